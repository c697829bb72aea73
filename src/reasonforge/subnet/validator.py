"""The proof-layer validator (plan `ProofLayerValidator`): one epoch = tasks → miners → verification → weights.

`run_epoch`:
1. metagraph; the miners are the neurons serving an endpoint (this validator excluded);
2. the epoch's tasks from the TaskSource (ordinary chains and traps, indistinguishable on the wire), each sent to
   every miner (or to `miners_per_task` of them, a seeded draw); miners are queried concurrently, each miner's
   tasks one after another so its answer time is its own;
3. every valid answer's artifacts are verified with `verify_chain(task.to_verify_request())` in a bounded thread
   pool (`CheckLimits` per check); identical submissions are verified once per epoch;
4. per task and miner a CTS gated on what held (`incentive.gated_cts`, a departure from the seed's formula;
   `credit` says which steps count). The miner's artifacts are verified a second time with artifacts that
   prove nothing in the same languages (the null verdict): a step is *decided* when the miner's verdict on it
   is verified or refuted and the null's is not the same, and *held* when it is decided and agrees with the
   reference: the majority of the miners that decided that step (`consensus.decided_majority`: the
   cross-validation, where a miner that decided nothing abstains), on a trap its ground truth. Then
   - Compilation = held steps whose artifact the validator's own checker accepted as compiled (see
     `miner.compiled_steps`: the checker's reading, never the miner's claim) over the steps of the task;
   - Correctness = held steps over decided steps;
   - Completeness = held steps / steps of the task;
   - Efficiency, from the validator-measured answer time (`QueryOutcome.elapsed_ms`) against the task's
     timeout, times Completeness;
   - no answer, an invalid answer (bad hash, wrong task, unverifiable translations), no translated step or no
     held step: CTS 0. A miner whose artifacts compile and prove nothing earns nothing;
5. S_epoch = mean CTS·D(t) × trap_penalty(trap scores); rank, scores within `rank_tolerance` sharing one
   (miners that scored nothing are not ranked);
   next_streak; PEB; weights = normalised S·(1 + PEB); an estimated TAO share from `emissions`;
6. the scored epoch is saved as `pending` BEFORE set_weights; after set_weights succeeds the epoch is folded into
   the state and saved again; then every miner gets its VerificationResult.
A restarted validator that finds a pending epoch finishes it (weights, notices) instead of scoring it again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Self

from reasonforge.errors import ReasonForgeError
from reasonforge.incentive import (
    DEFAULT_INCENTIVE,
    IncentiveSettings,
    epoch_score,
    gated_cts,
    standings,
    trap_penalty,
)
from reasonforge.pipeline.run import verify_chain
from reasonforge.subnet.chain import Chain, Metagraph, Neuron, SetWeightsResult
from reasonforge.subnet.credit import consensus_reference, credit, decisions, truth_reference
from reasonforge.subnet.errors import SubnetError
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.miner import compiled_steps, vacuous_translations
from reasonforge.subnet.protocol import VerificationResult
from reasonforge.subnet.state import (
    EpochReport,
    MinerEpoch,
    PendingEpoch,
    ValidatorState,
)
from reasonforge.subnet.tasks import EpochTask, TaskSource
from reasonforge.subnet.traps import trap_score
from reasonforge.subnet.validator_client import QueryOutcome, ValidatorClient
from reasonforge.types import (
    CONTEXT_STEP_ID,
    CheckLimits,
    StepStatus,
    StepTranslation,
    VerificationVerdict,
    VerifyRequest,
)

__all__ = ["EpochReport", "ProofLayerValidator", "WeightsNotSetError"]

log = logging.getLogger(__name__)


class WeightsNotSetError(SubnetError):
    """The chain refused the epoch's weights; the epoch stays pending and is retried on the next run."""

    code = "weights_not_set"


class _Scored:
    """One miner's answer to one task, as verified and scored."""

    __slots__ = ("compiled", "cts", "held", "steps", "translated", "trap", "verdict")

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.translated = 0
        self.compiled = 0
        self.held = 0
        self.cts = 0.0
        self.trap: float | None = None
        self.verdict: VerificationVerdict | None = None


class ProofLayerValidator:
    """Runs epochs against a chain and its miners; state (streaks, history, pending epoch) lives at `state_path`."""

    def __init__(self, identity: Identity, chain: Chain, tasks: TaskSource, state_path: Path,
                 settings: IncentiveSettings = DEFAULT_INCENTIVE, miners_per_task: int | None = None, *,
                 limits: CheckLimits | None = None, verify_workers: int = 2, epoch_emission: float = 1.0,
                 timeout_margin_s: float = 2.0) -> None:
        if miners_per_task is not None and miners_per_task < 1:
            raise SubnetError(f"miners_per_task must be at least 1 (or None for every miner), got {miners_per_task}")
        if verify_workers < 1:
            raise SubnetError(f"verify_workers must be at least 1, got {verify_workers}")
        self.identity = identity
        self.chain = chain
        self.tasks = tasks
        self.state_path = Path(state_path)
        self.settings = settings
        self.miners_per_task = miners_per_task
        self.limits = limits or CheckLimits()
        self.epoch_emission = epoch_emission
        self.state = ValidatorState.load(self.state_path, hotkey=identity.hotkey)
        self._client = ValidatorClient(identity, timeout_margin_s=timeout_margin_s)
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=verify_workers,
                                                           thread_name_prefix="rf-verify")

    async def aclose(self) -> None:
        """Close the HTTP client and the verification threads."""
        await self._client.aclose()
        self._pool.shutdown(wait=True)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # ---- epochs ----------------------------------------------------------------------------------

    async def run(self, epochs: int, *, before_epoch: Callable[[int], Awaitable[None] | None] | None = None,
                  on_report: Callable[[EpochReport], None] | None = None) -> list[EpochReport]:
        """Run `epochs` epochs from where the state left off (a pending epoch is finished first and counts)."""
        reports = []
        for _ in range(epochs):
            if before_epoch is not None:
                waited = before_epoch(self.state.next_epoch)
                if waited is not None:
                    await waited
            report = await self.run_epoch()
            reports.append(report)
            if on_report is not None:
                on_report(report)
        return reports

    async def run_epoch(self) -> EpochReport:
        """Run the next epoch; if the last one was scored but its weights never reached the chain, finish it."""
        if self.state.pending is not None:
            log.info("finishing pending epoch %s from %s", self.state.pending.report.epoch, self.state_path)
            return await self._finish(self.state.pending, resumed=True, started=time.perf_counter())
        started = time.perf_counter()
        epoch = self.state.last_completed_epoch + 1
        graph = self.chain.metagraph()
        miners = self._miners(graph)
        tasks = self.tasks.epoch_tasks(epoch)
        assigned = {i: self._assign(epoch, item, miners) for i, item in enumerate(tasks)}
        outcomes = await self._dispatch(tasks, assigned)
        scored = await self._score_tasks(tasks, assigned, outcomes)
        report, results = self._epoch_report(epoch, tasks, assigned, miners, scored)
        report.elapsed_s = round(time.perf_counter() - started, 3)
        pending = PendingEpoch(report=report, results=results)
        self.state.pending = pending
        self.state.save(self.state_path)  # the scores are safe before the chain sees any weight
        return await self._finish(pending, resumed=False, started=started)

    def _miners(self, graph: Metagraph) -> list[Neuron]:
        """Neurons serving an endpoint, this validator excluded, by uid."""
        return [n for n in sorted(graph.neurons, key=lambda n: n.uid)
                if n.endpoint is not None and n.hotkey != self.identity.hotkey]

    def _assign(self, epoch: int, item: EpochTask, miners: Sequence[Neuron]) -> list[Neuron]:
        """The miners that get this task: all, or a seeded draw of `miners_per_task`."""
        if self.miners_per_task is None or self.miners_per_task >= len(miners):
            return list(miners)
        rng = random.Random(f"assign:{self.tasks.seed}:{epoch}:{item.task.task_id}")
        return sorted(rng.sample(list(miners), self.miners_per_task), key=lambda n: n.uid)

    async def _dispatch(self, tasks: Sequence[EpochTask],
                        assigned: dict[int, list[Neuron]]) -> dict[tuple[int, int], QueryOutcome]:
        """Query every (task, miner) pair: miners concurrently, one miner's tasks in sequence."""
        per_miner: dict[int, tuple[Neuron, list[int]]] = {}
        for index, neurons in assigned.items():
            for neuron in neurons:
                per_miner.setdefault(neuron.uid, (neuron, []))[1].append(index)
        outcomes: dict[tuple[int, int], QueryOutcome] = {}

        async def serve(neuron: Neuron, indices: list[int]) -> None:
            assert neuron.endpoint is not None
            for index in indices:
                outcome = await self._client.query(neuron.uid, neuron.endpoint, neuron.hotkey,
                                                   tasks[index].task.for_miner())
                if outcome.error:
                    log.info("uid %s, task %s: %s", neuron.uid, tasks[index].task.task_id, outcome.error)
                outcomes[(index, neuron.uid)] = outcome

        await asyncio.gather(*(serve(neuron, indices) for neuron, indices in per_miner.values()))
        return outcomes

    async def _verify(self, outcome: QueryOutcome, cache: dict[str, asyncio.Future[VerificationVerdict | None]],
                      *, null: bool = False) -> VerificationVerdict | None:
        """The verdict on a miner's artifacts (`null`: on artifacts in the same languages that prove nothing);
        None for an answer that cannot be verified (or no answer)."""
        if not outcome.ok or outcome.task is None:
            return None
        request = outcome.task.to_verify_request()
        if null:
            request = request.model_copy(update={"translations": vacuous_translations(request.translations or [])})
        key = hashlib.sha256(request.model_dump_json().encode("utf-8")).hexdigest()
        if key not in cache:
            loop = asyncio.get_running_loop()
            cache[key] = asyncio.ensure_future(self._run_verify(loop, request))
        return await cache[key]

    async def _run_verify(self, loop: asyncio.AbstractEventLoop, request: VerifyRequest) -> VerificationVerdict | None:
        """verify_chain in the pool; a submission the pipeline refuses (bad translations) is None."""
        try:
            return await loop.run_in_executor(self._pool, lambda: verify_chain(request, limits=self.limits))
        except ReasonForgeError as exc:  # e.g. translations for steps the task does not have
            log.info("task %s: submission rejected: %s", request.task_id, exc.message)
            return None
        except Exception:  # one bad submission must not end the epoch
            log.exception("task %s: verification crashed", request.task_id)
            return None

    async def _score_tasks(self, tasks: Sequence[EpochTask], assigned: dict[int, list[Neuron]],
                           outcomes: dict[tuple[int, int], QueryOutcome]) -> dict[tuple[int, int], _Scored]:
        """Verify every answer (and its null), cross-validate per task and compute each miner's CTS and trap score."""
        cache: dict[str, asyncio.Future[VerificationVerdict | None]] = {}
        keys = [(index, n.uid) for index, neurons in assigned.items() for n in neurons]
        # Identical submissions (and identical nulls: one per set of languages) are verified once.
        both = await asyncio.gather(*(self._verify(outcomes[key], cache) for key in keys),
                                    *(self._verify(outcomes[key], cache, null=True) for key in keys))
        by_key = dict(zip(keys, both[:len(keys)], strict=True))
        null_by_key = dict(zip(keys, both[len(keys):], strict=True))
        scored: dict[tuple[int, int], _Scored] = {}
        for index, neurons in assigned.items():
            item = tasks[index]
            task = item.task
            step_ids = [s.step_id for s in task.reasoning_chain]
            answers: dict[int, tuple[VerificationVerdict, list[StepTranslation], dict[int, StepStatus]]] = {}
            for neuron in neurons:
                verdict = by_key[(index, neuron.uid)]
                answer = outcomes[(index, neuron.uid)].task
                translations = (answer.translations or []) if answer is not None else []
                translated = _translated_ids(translations, step_ids)
                # An answer without a single artifact is not a translation: it neither votes nor scores.
                if verdict is not None and translated:
                    answers[neuron.uid] = (verdict, translations,
                                           decisions(verdict, null_by_key[(index, neuron.uid)], translated))
            # Cross-validation among the translations that decided each step; on a trap, its ground truth.
            reference = (truth_reference(item.trap.step_verified, item.trap.step_refuted) if item.trap is not None
                         else consensus_reference(decided for _, _, decided in answers.values()))
            timeout_ms = task.timeout_seconds * 1000
            for neuron in neurons:
                result = scored[(index, neuron.uid)] = _Scored(len(step_ids))
                found = answers.get(neuron.uid)
                if item.trap is not None:
                    result.trap = trap_score(item.trap, found[0] if found is not None else None)
                if found is None:
                    continue
                verdict, translations, decided = found
                compiled = compiled_steps(verdict, translations)
                got = credit(decided, _translated(translations, step_ids), compiled, reference)
                result.verdict = verdict
                result.translated = got.translated
                result.compiled = sum(compiled.values())
                result.held = got.held
                elapsed_ms = outcomes[(index, neuron.uid)].elapsed_ms
                result.cts = gated_cts(len(step_ids), got.translated, got.decided, got.held, got.compiled_held,
                                       elapsed_ms, timeout_ms, self.settings)
        return scored

    def _epoch_report(self, epoch: int, tasks: Sequence[EpochTask], assigned: dict[int, list[Neuron]],
                      miners: Sequence[Neuron], scored: dict[tuple[int, int], _Scored]
                      ) -> tuple[EpochReport, list[VerificationResult]]:
        """S_epoch, rank, streak, PEB, weights and estimated TAO per miner; the notices to send.

        Only miners that were sent a task are scored; one left out of a `miners_per_task` draw keeps its streak."""
        figures: dict[int, MinerEpoch] = {}
        for neuron in miners:
            mine = [(index, scored[(index, neuron.uid)]) for index in sorted(assigned)
                    if (index, neuron.uid) in scored]
            if not mine:
                continue
            task_cts = [s.cts for _, s in mine]
            difficulties = [tasks[index].task.difficulty for index, _ in mine]
            traps = [s.trap for _, s in mine if s.trap is not None]
            penalty = trap_penalty(traps, self.settings)
            figures[neuron.uid] = MinerEpoch(
                uid=neuron.uid, hotkey=neuron.hotkey, tasks=len(mine),
                answered=sum(1 for _, s in mine if s.verdict is not None),
                cts=[round(c, 6) for c in task_cts], cts_mean=round(sum(task_cts) / len(task_cts), 6),
                epoch_score=epoch_score(task_cts, difficulties, penalty, self.settings),
                trap_scores=[round(t, 6) for t in traps],
                trap_score=round(sum(traps) / len(traps), 6) if traps else None,
                trap_penalty=penalty, steps_compiled=sum(s.compiled for _, s in mine),
                steps_held=sum(s.held for _, s in mine), steps_total=sum(s.steps for _, s in mine))
        placed = standings(
            {uid: m.epoch_score for uid, m in figures.items()},
            {uid: self.state.streak(uid, m.hotkey) for uid, m in figures.items()},
            self.settings.miner_emission_share * self.epoch_emission, self.settings)
        results = []
        for uid, miner in figures.items():
            standing = placed[uid]
            miner.rank, miner.streak, miner.peb = standing.rank, standing.streak, standing.peb
            miner.weight, miner.tao_earned = standing.weight, standing.reward
            results.append(VerificationResult(
                epoch_id=epoch, miner_uid=uid, tasks_translated=sum(
                    1 for index in assigned if (index, uid) in scored and scored[(index, uid)].translated),
                steps_compiled=miner.steps_compiled, steps_total=miner.steps_total,
                compilation_rate=miner.steps_compiled / miner.steps_total if miner.steps_total else 0.0,
                epoch_score=miner.epoch_score, rank=miner.rank or 0, tao_earned=miner.tao_earned))
        report = EpochReport(epoch=epoch, weights={uid: s.weight for uid, s in placed.items()}, miners=figures,
                             tasks=len(tasks), traps=sum(1 for t in tasks if t.is_trap))
        return report, results

    async def _finish(self, pending: PendingEpoch, *, resumed: bool, started: float) -> EpochReport:
        """Set the pending epoch's weights, fold it into the state, save, and notify the miners."""
        report = pending.report
        graph = self.chain.metagraph()
        uids = sorted(report.weights)
        values = [report.weights[uid] for uid in uids]
        if sum(values) > 0:
            result = await asyncio.to_thread(self.chain.set_weights, self.identity, uids, values)
            if not result.success:
                raise WeightsNotSetError(f"epoch {report.epoch}: the chain refused the weights ({result.message}); "
                                         f"the scored epoch is kept in {self.state_path} and its weights are set "
                                         "on the next run")
        else:
            # Nothing scored: there is no weight vector to set, and the epoch is still complete.
            result = SetWeightsResult(success=False, message="no miner scored above 0; no weights to set",
                                      block=graph.block)
        report = report.model_copy(update={"set_weights": result, "resumed": resumed})
        self.state.complete(report)
        self.state.save(self.state_path)
        notified = await self._notify(pending.results, report, graph)
        # A resumed epoch's time is its scoring (before the restart) plus the finishing now.
        elapsed = time.perf_counter() - started + (report.elapsed_s if resumed else 0.0)
        return report.model_copy(update={"notified": notified, "elapsed_s": round(elapsed, 3)})

    async def _notify(self, results: Sequence[VerificationResult], report: EpochReport, graph: Metagraph) -> int:
        """Send each miner its VerificationResult (best effort); how many accepted."""
        async def one(result: VerificationResult) -> bool:
            neuron = graph.by_uid(result.miner_uid)
            miner = report.miners.get(result.miner_uid)
            if neuron is None or neuron.endpoint is None or miner is None or neuron.hotkey != miner.hotkey:
                return False  # the uid changed hands since the epoch was scored
            return await self._client.notify(neuron.endpoint, neuron.hotkey, result)

        accepted = await asyncio.gather(*(one(r) for r in results))
        return sum(accepted)


def _translated_ids(translations: Sequence[StepTranslation] | None, step_ids: Sequence[int]) -> set[int]:
    """The task's steps that carry a non-empty artifact."""
    wanted = set(step_ids)
    return {t.step_id for t in translations or ()
            if t.step_id != CONTEXT_STEP_ID and t.step_id in wanted and t.formal_representation.strip()}


def _translated(translations: Sequence[StepTranslation] | None, step_ids: Sequence[int]) -> int:
    """How many of the task's steps carry a non-empty artifact."""
    return len(_translated_ids(translations, step_ids))
