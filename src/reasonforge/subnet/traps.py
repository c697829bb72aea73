"""Trap tasks: real reasoning chains whose per-step verdicts are known in advance (plan Eq. 9).

A trap is an ordinary-looking chain taken from a public dataset whose label says what a faithful
translation must find: a FOLIO conclusion that does not follow (FAILED), a GSM8K reference solution
(every step VERIFIED) or the same solution with one computed result changed (FAILED from that step on),
a HumanEval canonical solution with the dataset's tests (VERIFIED) or a behaviour-changing mutant of it
(FAILED). `scripts/build_traps.py` establishes each trap's ground truth mechanically, once: it runs our
own `verify_chain` on the chain and keeps the trap only when the verifier's verdict equals the dataset's
label, so the ground truth is formally verified and agrees with the data. A trap must also test the miner's
translation: the builder verifies the chain again with the vacuous miner's artifacts (`miner.vacuous_translations`)
and drops the trap when they reproduce its ground truth (`trap_score` 1.0), since a verdict the pipeline reaches
whatever the artifact cannot tell honest miners from vacuous ones. That drops every FOLIO trap today (a logic
step's refutation is the English reader's, whatever artifact a miner sends), so the committed set holds GSM8K and
HumanEval traps only. The kept traps, with the verifier's per-step flags, are committed in `data/subnet/traps.json`.

A miner's trap score on a trap task is the fraction of steps whose verdict, from verifying the miner's own
artifacts, matches the ground truth (`trap_score`): a step that must verify must be verified, and a step the
verifier refutes (`failed`) must be refuted by the miner's artifact too; a vacuous artifact, which the
soundness gate leaves `unsupported`, does not pass for a refutation. `incentive.trap_penalty` turns a
miner's trap scores into its epoch penalty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import check_json
from reasonforge.errors import InputError
from reasonforge.types import Overall, StepStatus, VerificationVerdict, VerifyRequest

__all__ = ["TRAPS_PATH", "Trap", "TrapKind", "TrapSet", "load_traps", "step_flags", "trap_score"]

REPO_ROOT = Path(__file__).resolve().parents[3]
TRAPS_PATH = REPO_ROOT / "data" / "subnet" / "traps.json"
"""The committed trap set (regenerate with `python scripts/build_traps.py`)."""

TrapKind = Literal["folio", "gsm8k-reference", "gsm8k-perturbed", "humaneval-canonical", "humaneval-mutant"]


class Trap(BaseModel):
    """One trap: the chain (as a VerifyRequest, without translations) and its ground-truth step flags."""

    model_config = ConfigDict(extra="forbid")

    trap_id: str = Field(description="Validator-side name, e.g. 'gsm8k-perturbed:12'; never sent to miners.")
    kind: TrapKind
    source: str = Field(description="Dataset file, relative to the repository root.")
    row: int = Field(ge=0, description="0-based row of the source file.")
    label: str = Field(description="What the dataset says: FOLIO's label, 'reference', 'perturbed step 3', ...")
    request: VerifyRequest
    expected: Overall = Field(description="The chain-level ground truth.")
    step_verified: dict[int, bool] = Field(description="step_id -> ground-truth verified flag, one per step.")
    step_refuted: list[int] = Field(default_factory=list, description=(
        "The steps whose own claim the verifier refutes (status failed): a miner must refute them too."))
    note: str = ""

    @model_validator(mode="after")
    def _one_flag_per_step(self) -> Trap:
        ids = [step.step_id for step in self.request.reasoning_chain]
        if sorted(ids) != sorted(self.step_verified):
            raise ValueError(f"trap {self.trap_id}: step_verified covers steps {sorted(self.step_verified)}, "
                             f"the chain has steps {sorted(ids)}")
        if any(self.step_verified.get(sid, True) for sid in self.step_refuted):
            raise ValueError(f"trap {self.trap_id}: step_refuted {sorted(self.step_refuted)} must name steps of the "
                             "chain that are not verified")
        if self.request.translations is not None:
            raise ValueError(f"trap {self.trap_id}: a trap carries no translations (miners write them)")
        return self


class TrapSet(BaseModel):
    """The committed file: how it was built and the traps."""

    model_config = ConfigDict(extra="forbid")

    version: int = 1
    generated_by: str = "scripts/build_traps.py"
    seed: int = 0
    verifier: str = Field(default="", description="How the ground truth was established.")
    traps: list[Trap]


def load_traps(path: Path | None = None) -> list[Trap]:
    """The traps of a trap file (default: the committed `data/subnet/traps.json`)."""
    path = Path(path) if path is not None else TRAPS_PATH
    fix = "regenerate it with `python scripts/build_traps.py`"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"trap file {path} does not exist; {fix}", field="traps") from None
    except OSError as exc:
        raise InputError(f"trap file {path} cannot be read ({exc.strerror}); {fix}", field="traps") from None
    try:
        text = check_json(data, what="the file", limits=DOCUMENT_JSON)  # bounded, and no key given twice
    except InputError as exc:
        raise InputError(f"trap file {path} is invalid: {exc.message}; {fix}", field="traps") from None
    try:
        trap_set = TrapSet.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"trap file {path} is invalid at {where or 'top level'}: {first['msg']}; {fix}",
                         field="traps") from None
    ids = [t.trap_id for t in trap_set.traps]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise InputError(f"trap file {path} repeats trap ids {duplicates}; {fix}", field="traps")
    return trap_set.traps


def step_flags(verdict: VerificationVerdict) -> dict[int, bool]:
    """step_id -> verified, from a verdict."""
    return {sv.step_id: sv.verified for sv in verdict.step_verdicts}


def trap_score(trap: Trap, verdict: VerificationVerdict | None) -> float:
    """Fraction of the trap's steps whose verdict (from the miner's artifacts) matches the ground truth: the
    verified flag equals it, and a step the ground truth refutes is refuted (failed), not merely unproven.

    No verdict (no answer, an invalid answer) scores 0.0; a step the verdict does not mention counts as
    not verified, exactly as an untranslated step would.
    """
    if verdict is None or not trap.step_verified:
        return 0.0
    flags = step_flags(verdict)
    failed = {sv.step_id for sv in verdict.step_verdicts if sv.status is StepStatus.FAILED}
    refuted = set(trap.step_refuted)
    hits = sum(1 for sid, truth in trap.step_verified.items()
               if flags.get(sid, False) == truth and (sid not in refuted or sid in failed))
    return hits / len(trap.step_verified)
