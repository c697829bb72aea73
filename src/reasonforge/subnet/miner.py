"""The translator miner (plan `TranslatorMiner`): translate a TranslationTask's steps, check them locally, answer.

`TranslatorMiner.handle_task` runs the translation engine (offline rule-based by default; a model when the
engine has one), checks the artifacts with the local checkers at the task's proof level (`verify_chain` on
its own translations), records per step whether the checker accepted the artifact (`compilation_check`),
and returns the task with translations, compilation_status, a base64 bundle of the artifacts, the time
taken and the submission hash. `handle_result` keeps the validators' VerificationResults.

Profiles (localnet realism, so weights differ): `honest` submits what the engine wrote; `lazy` drops the
second half of the steps; `vacuous` replaces every artifact with one that proves nothing about the step
(`assert True` tests, `claim 1 = 1`, a tautology), which the checkers accept but traps and consensus expose.

`run_miner` is a miner process: it registers (or re-serves) its hotkey and endpoint on a file-backed
InMemoryChain, accepts only callers holding a validator permit there (served by stake), and serves HTTP
until stopped. `python -m reasonforge.subnet.miner --help` runs it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import logging
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from reasonforge.pipeline.run import verify_chain
from reasonforge.subnet.chain import Endpoint, InMemoryChain, Metagraph
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.protocol import (
    LIMITS,
    CompilationStatus,
    TranslationTask,
    VerificationResult,
)
from reasonforge.translate.checking import classify_outcome
from reasonforge.translate.engine import TranslationEngine
from reasonforge.types import (
    CONTEXT_STEP_ID,
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    StepTranslation,
    StepVerdict,
    VerificationVerdict,
)

__all__ = ["PROFILES", "MinerProfile", "TranslatorMiner", "argument_parser", "compilation_status", "compiled_steps", "main",
           "run_miner", "vacuous_artifact", "vacuous_translations"]

log = logging.getLogger("reasonforge.subnet.miner")  # also when run as __main__

MinerProfile = Literal["honest", "lazy", "vacuous"]
PROFILES: tuple[MinerProfile, ...] = ("honest", "lazy", "vacuous")
_VACUOUS: dict[ArtifactLanguage, str] = {
    ArtifactLanguage.PYTHON: "def test_step():\n    assert True\n",
    ArtifactLanguage.SYMPY: "claim 1 = 1\n",
    ArtifactLanguage.FOL: "⊢ ∀x (P(x) → P(x))\n",
    ArtifactLanguage.PROPOSITIONAL: "⊢ p ∨ ¬p\n",
    ArtifactLanguage.SMTLIB: "(declare-const p Bool)\n(assert p)\n(assert (not p))\n",
}


def vacuous_artifact(language: ArtifactLanguage, step_id: int) -> str:
    """An artifact in `language` that the checker accepts but that says nothing about the step."""
    if language is ArtifactLanguage.COQ:
        return f"Theorem step{step_id} : True.\nProof. exact I. Qed.\n"
    if language is ArtifactLanguage.LEAN4:
        return f"theorem step{step_id} : True := trivial\n"
    return _VACUOUS[language]


def vacuous_translations(translations: Sequence[StepTranslation]) -> list[StepTranslation]:
    """What the `vacuous` profile submits for `translations`: each step's artifact replaced by
    `vacuous_artifact` in the same language (full confidence, no notes); the shared context is kept."""
    return [t if t.step_id == CONTEXT_STEP_ID
            else t.model_copy(update={"formal_representation": vacuous_artifact(t.language, t.step_id),
                                      "translation_confidence": 1.0, "notes": None})
            for t in translations]


def _step_compiled(verdict: StepVerdict, language: ArtifactLanguage) -> bool:
    """Whether the checker got past compiling this step's artifact (its own check, before any cascade)."""
    outcome = CheckOutcome(status=verdict.local_status or verdict.status, message=verdict.error_message,
                           error_kind=verdict.error_kind, details=verdict.details)
    return classify_outcome(outcome, language).compiled is True


def compiled_steps(verdict: VerificationVerdict, translations: Sequence[StepTranslation]) -> dict[int, bool]:
    """step_id -> the checker accepted (compiled) that step's artifact; an empty artifact never compiled.

    "Compiled" is `translate.checking`'s reading: fol/propositional/smtlib/sympy parsed, python imported and
    its tests were collected, coq/lean4 compiled; a check that could not decide (timeout, missing tool)
    does not count as compiled."""
    by_step = {t.step_id: t for t in translations if t.step_id != CONTEXT_STEP_ID}
    out: dict[int, bool] = {}
    for sv in verdict.step_verdicts:
        translation = by_step.get(sv.step_id)
        out[sv.step_id] = (translation is not None and bool(translation.formal_representation.strip())
                           and _step_compiled(sv, translation.language))
    return out


def compilation_status(compiled: dict[int, bool]) -> CompilationStatus:
    """COMPILED when every step compiled, FAILED when none did, PARTIAL otherwise."""
    done = sum(compiled.values())
    if compiled and done == len(compiled):
        return "COMPILED"
    return "PARTIAL" if done else "FAILED"


def _bundle(translations: Sequence[StepTranslation]) -> str | None:
    """Every artifact in one text, base64 (the plan's full_proof_artifact); None when it would be too large."""
    parts = [f"# step {t.step_id} ({t.language.value})\n{t.formal_representation.rstrip()}\n"
             for t in translations if t.formal_representation.strip()]
    encoded = base64.b64encode("\n".join(parts).encode("utf-8")).decode("ascii")
    return encoded if len(encoded) <= LIMITS.max_request_bytes else None


class TranslatorMiner:
    """A miner's handlers: `handle_task` translates and checks, `handle_result` records the validator's notice."""

    def __init__(self, identity: Identity, engine: TranslationEngine | None = None, *,
                 profile: MinerProfile = "honest", local_check: bool = True, limits: CheckLimits | None = None,
                 keep_results: int = 256) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown miner profile {profile!r}; use one of {', '.join(PROFILES)}")
        self.identity = identity
        self.engine = engine or TranslationEngine()
        self.profile: MinerProfile = profile
        self.local_check = local_check
        self.limits = limits or CheckLimits()
        self.results: collections.deque[VerificationResult] = collections.deque(maxlen=keep_results)
        self.tasks_handled = 0

    async def handle_task(self, task: TranslationTask) -> TranslationTask:
        """Translate every step, check the artifacts locally and return the filled task (never raises)."""
        started = time.perf_counter()
        self.tasks_handled += 1
        try:
            request = task.for_miner().to_verify_request().model_copy(update={"translations": None})
            outcome = await self.engine.atranslate(request)
            translations = self._apply_profile(outcome.translations)
            if self.local_check:
                verdict = await asyncio.to_thread(verify_chain, request, translations, limits=self.limits)
                compiled = compiled_steps(verdict, translations)
                translations = [t if t.step_id == CONTEXT_STEP_ID
                                else t.model_copy(update={"compilation_check": compiled.get(t.step_id, False)})
                                for t in translations]
            else:
                compiled = {s.step_id: False for s in request.reasoning_chain}
                for t in translations:
                    if t.step_id in compiled:
                        compiled[t.step_id] = t.compilation_check and bool(t.formal_representation.strip())
            elapsed = int((time.perf_counter() - started) * 1000)
            return task.with_submission(translations, compilation_status(compiled), elapsed, _bundle(translations))
        except Exception as exc:  # noqa: BLE001 - a miner answers every task, even one it cannot translate
            # A chain this miner cannot translate is still answered: an honest empty submission scores 0
            # but tells the validator the miner is alive.
            log.warning("task %s: translation failed: %s", task.task_id, exc)
            elapsed = int((time.perf_counter() - started) * 1000)
            return task.with_submission([], "FAILED", elapsed)

    def _apply_profile(self, translations: list[StepTranslation]) -> list[StepTranslation]:
        """What this profile submits instead of the engine's translations."""
        if self.profile == "honest":
            return translations
        steps = [t for t in translations if t.step_id != CONTEXT_STEP_ID]
        context = [t for t in translations if t.step_id == CONTEXT_STEP_ID]
        if self.profile == "lazy":
            kept = {t.step_id for t in steps[: (len(steps) + 1) // 2]}
            return [*context, *(t for t in steps if t.step_id in kept)]
        return [*context, *vacuous_translations(steps)]

    async def handle_result(self, result: VerificationResult) -> None:
        """Keep the validator's verdict on this miner's epoch (newest `keep_results`)."""
        self.results.append(result)
        log.info("epoch %s: score %.4f, rank %s, %s/%s steps compiled", result.epoch_id, result.epoch_score,
                 result.rank, result.steps_compiled, result.steps_total)


# ---- the miner process ---------------------------------------------------------------------------


class _PermitCache:
    """Who may call this miner (validator permit) and with what priority (stake), re-read every few seconds."""

    def __init__(self, chain: InMemoryChain, ttl_s: float = 2.0) -> None:
        self.chain = chain
        self.ttl_s = ttl_s
        self._graph: Metagraph | None = None
        self._read_at = 0.0
        self._lock = threading.Lock()

    def _metagraph(self) -> Metagraph:
        with self._lock:
            if self._graph is None or time.monotonic() - self._read_at > self.ttl_s:
                self._graph = self.chain.metagraph()
                self._read_at = time.monotonic()
            return self._graph

    def allow(self, hotkey: str) -> bool:
        """Only registered validators (permit) may send tasks."""
        neuron = self._metagraph().by_hotkey(hotkey)
        return neuron is not None and neuron.validator_permit

    def priority(self, hotkey: str) -> float:
        """Higher stake is served first."""
        neuron = self._metagraph().by_hotkey(hotkey)
        return neuron.stake if neuron is not None else 0.0


def _exit_with_parent(parent_pid: int) -> None:
    """Stop this process when the process that started it is gone (no orphans after a parent crash)."""

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(0)
            time.sleep(0.5)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def run_miner(seed: str, host: str, port: int, chain_path: Path, stake: float = 0.0, *,
              profile: MinerProfile = "honest", netuid: int = 1, parent_pid: int | None = None,
              model: str | None = None) -> None:
    """Register (or re-serve) `seed`'s hotkey at host:port on the chain at `chain_path` and serve until stopped;
    `model` (a URL or name, else the REASONFORGE_MODEL* environment) writes the artifacts, else the offline rules."""
    from reasonforge.subnet.miner_server import create_miner_app, serve_miner

    identity = Identity.from_seed(seed)
    chain = InMemoryChain(netuid, path=Path(chain_path))
    endpoint = Endpoint(host=host, port=port)
    neuron = chain.metagraph().by_hotkey(identity.hotkey)
    if neuron is None:
        chain.register(identity.hotkey, stake, endpoint=endpoint)
    else:
        chain.serve(identity.hotkey, endpoint)
    if parent_pid is not None:
        _exit_with_parent(parent_pid)
    miner = TranslatorMiner(identity, TranslationEngine.from_env(model), profile=profile)
    permits = _PermitCache(chain)
    app = create_miner_app(identity, miner.handle_task, miner.handle_result, allow=permits.allow,
                           priority=permits.priority)
    log.info("miner %s (%s) serving on %s", identity.hotkey, profile, endpoint.url())
    serve_miner(app, host, port)


def argument_parser() -> argparse.ArgumentParser:
    """The command line of `python -m reasonforge.subnet.miner`."""
    parser = argparse.ArgumentParser(description="Run a ReasonForge translator miner on a local (file-backed) chain.")
    parser.add_argument("--seed", required=True, help='dev key seed, e.g. "//miner-1"')
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--chain", type=Path, required=True, help="the InMemoryChain JSON file")
    parser.add_argument("--stake", type=float, default=0.0)
    parser.add_argument("--netuid", type=int, default=1)
    parser.add_argument("--profile", choices=PROFILES, default="honest")
    parser.add_argument("--model", default=None, help="the model that translates: an OpenAI-compatible URL or a "
                        "name (default REASONFORGE_MODEL_BASE_URL / REASONFORGE_MODEL; neither: the offline rules)")
    parser.add_argument("--parent-pid", type=int, default=None, help="exit when this process is no longer the parent")
    return parser


def main(argv: list[str] | None = None) -> int:
    """`python -m reasonforge.subnet.miner`: one miner process on a file-backed local chain."""
    args = argument_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from reasonforge.errors import ReasonForgeError

    try:
        run_miner(args.seed, args.host, args.port, args.chain, args.stake, profile=args.profile, netuid=args.netuid,
                  parent_pid=args.parent_pid, model=args.model)
    except ReasonForgeError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
