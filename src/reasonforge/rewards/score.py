"""Scoring completions: each verified in a worker process killed at its budget, so no reward call can hang its
caller (a trainer's main thread, an event loop, a data loader), and batches over a pool of such workers.

A completion is maths reasoning answering `question`; it is split into steps as a model wrote it
(`chain.request_from_reasoning`: one per line, or per paragraph, a `#### 72` / `\\boxed{72}` line joining the step
before it), verified at the quick level with the rules' translation (no model: a reward is computed thousands of
times a step), and rewarded by `design.reward_of`. A reference may be a whole gold solution: its stated answer
(`#### 72`, the last `\\boxed{…}`, "the answer is …") is the one compared.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from pathlib import Path
from typing import Self

from pydantic import BaseModel, Field

from reasonforge.chain import final_answer, request_from_reasoning
from reasonforge.errors import ReasonForgeError
from reasonforge.pipeline import VerdictCache, verify_chain
from reasonforge.rewards.design import Reward, RewardDesign, RewardOutcome, reward_of
from reasonforge.translate import Translator, default_translator
from reasonforge.types import (
    CheckLimits,
    Domain,
    ProofLevel,
    ReasoningSubmission,
    TranslatorMode,
    VerificationVerdict,
    VerifyRequest,
)
from reasonforge.verify.math import Killed, Stop, call_killable, warm_sympy

__all__ = ["DEFAULT_BUDGET_S", "RewardInput", "Scorer", "gold_answer", "score", "score_many", "warm_rewards"]

DEFAULT_BUDGET_S = 30.0  # one completion, every step and the reference comparison; a GSM8K one takes ~0.1 s
_PER_CHECK_S = 5.0  # one step's check inside that budget


class RewardInput(BaseModel):
    """One completion to reward: the question it answers, the completion's text and the reference answer (or a
    whole gold solution), if the caller holds one."""

    question: str = ""
    completion: str
    reference: str | None = Field(default=None, description="None or empty: no reference; the answer term is unused.")


def gold_answer(reference: str) -> str:
    """The answer a reference states: a gold solution's `#### 72`, last `\\boxed{…}` or "the answer is …", else the
    reference itself."""
    return final_answer(reference) or reference.strip()


def _request(question: str, completion: str, reference: str) -> VerifyRequest:
    """The request a completion makes (ReasonForgeError or pydantic's ValueError when there is nothing to verify)."""
    submission = ReasoningSubmission(reasoning=completion, domain=Domain.MATHEMATICS, original_query=question,
                                     reference_answer=reference, proof_level=ProofLevel.QUICK,
                                     translator=TranslatorMode.RULES)
    return request_from_reasoning(submission)


def _translator() -> Translator:
    return default_translator(Domain.MATHEMATICS, level=ProofLevel.QUICK)


def _verdict(request: VerifyRequest, check_s: float, store: tuple[Path, str] | None) -> VerificationVerdict:
    """The verdict on `request`, in the worker; `store`: the cache folder and key to keep it under (named here, since
    a worker started by a fork server has that server's environment, not the caller's)."""
    verdict = verify_chain(request, translator=_translator(), limits=CheckLimits(timeout_s=check_s))
    if store is not None:
        VerdictCache(store[0]).put(store[1], verdict)
    return verdict


@functools.cache
def warm_rewards() -> bool:
    """Verify one small chain in this process, so workers forked from it inherit every module and cache a reward
    needs (`warm`)."""
    warm_sympy()
    _verdict(_request("What is 2 + 3?", "2 + 3 = 5\n#### 5", "5"), _PER_CHECK_S, None)
    return True


def score(question: str, completion: str, reference: str | None = None, *, design: RewardDesign | None = None,
          budget_s: float = DEFAULT_BUDGET_S, cached: bool = False) -> Reward:
    """The reward of one completion (module docstring), verified in a worker killed after `budget_s` seconds;
    `cached`: answered from the verdict cache (`pipeline.VerdictCache`, looked up here, before any worker starts)
    when the same completion was verified before by the same tools."""
    design = design or RewardDesign()
    if not completion.strip():
        return Reward(reward=design.invalid, outcome=RewardOutcome.INVALID, message="the completion is empty")
    try:
        request = _request(question, completion, gold_answer(reference) if reference else "")
    except (ReasonForgeError, ValueError) as exc:  # ValueError: pydantic's, for a field out of its bounds
        return Reward(reward=design.invalid, outcome=RewardOutcome.INVALID,
                      message=f"nothing to verify: {str(exc).splitlines()[0][:300]}")
    check_s = min(_PER_CHECK_S, budget_s)
    store = None
    if cached:
        cache = VerdictCache()
        key, hit = cache.lookup(request, _translator().spec, CheckLimits(timeout_s=check_s))
        if hit is not None:
            return reward_of(hit, design).model_copy(update={"cached": True})
        store = (cache.root, key)
    done = call_killable(_verdict, (request, check_s, store), timeout_s=budget_s,
                         preload="reasonforge.rewards.warm", warm=warm_rewards)
    if isinstance(done, Killed):
        if done.why is Stop.TIMEOUT:
            return Reward(reward=design.timeout, outcome=RewardOutcome.TIMEOUT,
                          message=f"the check did not finish: {done.message}")
        return Reward(reward=design.invalid, outcome=RewardOutcome.INVALID, message=f"the check failed: {done.message}")
    return reward_of(done.value, design)


def _score_row(row: RewardInput, design: RewardDesign, budget_s: float, cached: bool) -> Reward:
    return score(row.question, row.completion, row.reference, design=design, budget_s=budget_s, cached=cached)


class Scorer:
    """Scores batches over `jobs` worker processes (default: the cores), each completion in its own killed-at-budget
    worker; the pool starts on first use and lives until `close()` (or the end of a `with` block). One Scorer per
    trainer: a reward function holds it, so no state is global."""

    def __init__(self, *, design: RewardDesign | None = None, jobs: int | None = None,
                 budget_s: float = DEFAULT_BUDGET_S, cached: bool = False) -> None:
        self.design = design or RewardDesign()
        self.cached = cached
        self.jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))
        self.budget_s = budget_s
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the pool's workers."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def score(self, rows: Sequence[RewardInput]) -> list[Reward]:
        """The rewards of `rows`, in order."""
        if self.jobs == 1 or len(rows) <= 1:
            return [_score_row(row, self.design, self.budget_s, self.cached) for row in rows]
        try:
            return self._map(rows)
        except BrokenExecutor:  # a worker was killed from outside (the OOM killer): once more on a fresh pool
            self._pool = None
            return self._map(rows)

    def _map(self, rows: Sequence[RewardInput]) -> list[Reward]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.jobs)
        n = len(rows)
        return list(self._pool.map(_score_row, rows, [self.design] * n, [self.budget_s] * n, [self.cached] * n))


def score_many(rows: Iterable[RewardInput], *, design: RewardDesign | None = None, jobs: int | None = None,
               budget_s: float = DEFAULT_BUDGET_S, cached: bool = False) -> list[Reward]:
    """The rewards of `rows` over a pool of `jobs` processes started and stopped for this call."""
    with Scorer(design=design, jobs=jobs, budget_s=budget_s, cached=cached) as scorer:
        return scorer.score(list(rows))
