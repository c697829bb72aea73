"""`verified-math`: GSM8K-style word problems as a genuine `verifiers` (v1 API) taskset whose reward is the
ReasonForge reward (`rewards.design`): every step of the reply checked, its final value against the gold answer.

`verifiers.v1` finds a taskset by importing the module named after its id (`verified-math` → `verified_math`, the
top-level package that re-exports this module). The reward is `score.score` on the reply, in a worker killed at
its budget and run in a thread, so the event loop verifiers scores on is never blocked; the metrics are the
verdict's own (answer right, a step refuted, share of steps verified).

Needs the optional `verifiers` package (`pip install 'reasonforge[verifiers]'`); nothing else imports it.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

import verifiers.v1 as vf
from verifiers.v1.harnesses.null import NullHarness

from reasonforge.errors import InputError
from reasonforge.rewards.design import Reward
from reasonforge.rewards.score import gold_answer, score

__all__ = ["ENV_NAME", "SYSTEM_PROMPT", "MathHarness", "MathTask", "MathTaskData", "MathTaskset", "MathTasksetConfig",
           "load_math_environment", "load_rows", "reply_text"]

ENV_NAME = "verified-math"
SYSTEM_PROMPT = ("Solve the problem step by step, one step per line. Write every calculation out as an equation "
                 "(48 / 2 = 24). End with a line `#### <answer>` holding only the final number.")
_MAX_ROWS = 100_000


class MathTaskData(vf.TaskData):
    """One problem as verifiers task data: the question the model sees and the gold answer it is scored on."""

    question: str
    answer: str
    """The gold answer (a GSM8K answer's `#### N`): read by the reward, never put in the prompt."""


class MathTasksetConfig(vf.TasksetConfig):
    """`--env.taskset.*`: the data file (default: the packaged GSM8K slice) and how many rows to take."""

    data: Path | None = None
    """A JSONL file of `{"question", "answer"}` rows (GSM8K's format); None loads the slice in the package."""
    max_items: int | None = None


def reply_text(trace: vf.Trace) -> str:
    """The reply the reward scores: the root reply, else the last sampled assistant message, unstripped."""
    if trace.root_reply is not None:
        return trace.root_reply
    messages = trace.assistant_messages
    return (messages[-1].content or "") if messages else ""


@functools.lru_cache(maxsize=1024)
def _scored(question: str, reply: str, answer: str) -> Reward:
    # the reward and the metrics read one verdict: a pure function of its arguments, so remembered, not redone
    return score(question, reply, answer)


class MathTask(vf.Task[MathTaskData, vf.State, vf.TaskConfig]):
    """Score one reply: the ReasonForge reward (weight 1) and the verdict's metrics (weight 0)."""

    @property
    def key(self) -> str:
        """The row's id: durable across runs, unique per row."""
        return self.data.id or str(self.data.idx)

    @vf.reward(weight=1.0)
    async def verified_reward(self, trace: vf.Trace) -> float:
        """What the reply earns under the documented reward design (`reasonforge.rewards.design`)."""
        reward = await asyncio.to_thread(_scored, self.data.question, reply_text(trace), self.data.answer)
        return reward.reward

    @vf.metric
    async def verification(self, trace: vf.Trace) -> dict[str, float]:
        """Whether the final value is the gold answer, whether a step was refuted, the share of steps verified."""
        reward = await asyncio.to_thread(_scored, self.data.question, reply_text(trace), self.data.answer)
        verified = sum(1 for s in reward.step_rewards if s > 0)
        return {"answer_matches_reference": float(reward.answer_matches_reference is True),
                "refuted": float(reward.first_refuted_step is not None),
                "steps_verified": verified / reward.steps if reward.steps else 0.0}


def load_rows(data: Path | None, max_items: int | None = None) -> list[tuple[str, str]]:
    """(question, gold answer) of each row of `data` (default: the packaged slice); InputError naming the line."""
    if data is None:
        text = resources.files("reasonforge.rewards").joinpath("data/gsm8k/train.first100.jsonl").read_text("utf-8")
        where = "the packaged GSM8K slice"
    else:
        try:
            text = Path(data).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the verified-math data {data}: {exc}") from None
        where = str(data)
    rows: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            question, answer = row["question"], row["answer"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InputError(f"{where}, line {number}: expected a JSON object with \"question\" and \"answer\" "
                             "strings (GSM8K's format)") from None
        if not isinstance(question, str) or not isinstance(answer, str):
            raise InputError(f"{where}, line {number}: \"question\" and \"answer\" must be strings")
        rows.append((question, gold_answer(answer)))
        if len(rows) >= min(max_items or _MAX_ROWS, _MAX_ROWS):
            break
    return rows


class MathTaskset(vf.Taskset[MathTask, MathTasksetConfig]):
    """The problems, one single-turn task each (system prompt + question)."""

    def load(self) -> Iterable[MathTask]:
        """One task per row of the configured data."""
        for index, (question, answer) in enumerate(load_rows(self.config.data, self.config.max_items)):
            data = MathTaskData(id=f"gsm8k-{index}", name=f"gsm8k-{index}", prompt=question,
                                system_prompt=SYSTEM_PROMPT, question=question, answer=answer)
            yield MathTask(data, self.config.task)


class MathHarness(NullHarness):
    """The taskset's default harness: verifiers' chat-only program (no shell, no code): a word problem is
    answered in one text reply."""


def load_math_environment(**taskset: object) -> vf.Env:
    """The verifiers `Env` of `verified-math` (single agent); keyword arguments set `--env.taskset.*` fields."""
    return vf.load_environment(vf.resolve_env_config({"taskset": {**taskset, "id": ENV_NAME}}))
