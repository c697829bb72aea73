"""The ReasonForge reward as an inspect_ai scorer: `inspect_scorer()` in a `Task(scorer=…)`.

The sample's input is the question, the model's completion the reasoning, the target the reference answer (a gold
solution's `#### N` is read as N). The score's value is the reward (`rewards.design`), its answer the answer the
completion states, its explanation why, and its metadata the whole reward (outcome, per-step rewards, whether the
final value is the reference). The check runs in a worker thread (and there in a process killed at its budget), so
inspect's event loop is never blocked.

Needs the optional `inspect-ai` package (`pip install 'reasonforge[inspect]'`); nothing else imports it.
"""

from __future__ import annotations

from typing import Any

import anyio
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from reasonforge.chain import final_answer
from reasonforge.rewards.design import RewardDesign
from reasonforge.rewards.score import DEFAULT_BUDGET_S, score

__all__ = ["inspect_scorer"]


@scorer(metrics=[mean(), stderr()], name="reasonforge")
def inspect_scorer(design: RewardDesign | None = None, budget_s: float = DEFAULT_BUDGET_S) -> Scorer:
    """Score each sample's completion by the ReasonForge reward (module docstring)."""

    async def reasonforge(state: TaskState, target: Target) -> Score:
        completion = state.output.completion if state.output is not None else ""
        reference = target.text or None

        def run() -> Any:
            return score(state.input_text, completion, reference, design=design, budget_s=budget_s)

        reward = await anyio.to_thread.run_sync(run)
        return Score(value=reward.reward, answer=final_answer(completion) or None, explanation=reward.message,
                     metadata=reward.model_dump(mode="json"))

    return reasonforge
