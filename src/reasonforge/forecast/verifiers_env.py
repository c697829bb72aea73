"""The calibrated-forecasting environment as a genuine `verifiers` (v1 API) taskset.

`verifiers.v1` finds a taskset by importing the module named after its id (`calibrated-forecasting` →
`calibrated_forecasting`, the top-level package that re-exports this module) and taking the one `Taskset`
subclass in its `__all__`. Scoring is not reimplemented here: every reward and metric is a value of
`env.default_rubric()`, the rubric behind `reasonforge forecast score`, on the reply text.

Needs the optional `verifiers` package (`pip install 'reasonforge[verifiers]'`); nothing else imports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.harnesses.null import NullHarness

from reasonforge.forecast.dataset import ForecastFilters, ForecastItem
from reasonforge.forecast.env import ENV_NAME, SYSTEM_PROMPT, default_rubric, format_prompt, load_items_for_env

__all__ = ["ENV_NAME", "ForecastHarness", "ForecastTask", "ForecastTaskData", "ForecastTaskset", "ForecastTasksetConfig", "reply_text"]


class ForecastTaskData(vf.TaskData):
    """One forecast item as verifiers task data: the prompt the model sees plus the item it is scored on."""

    item: ForecastItem
    """The question, its settled outcome and market price: read by the scorer, never put in the prompt."""


class ForecastTasksetConfig(vf.TasksetConfig):
    """`--env.taskset.*`: the data file (default: the packaged slice) and the dataset filters."""

    data: Path | None = None
    """A ForecastBench or ForecastItem JSONL file; None loads the slice shipped in the package."""
    lenient: bool = False
    """Skip malformed rows instead of refusing the file."""
    filters: ForecastFilters = Field(default_factory=ForecastFilters)
    """Horizons, volume, near-certain band, tags and max_items, as in `reasonforge forecast`."""


def reply_text(trace: vf.Trace) -> str:
    """The reply the rubric scores: the root reply, else the last sampled assistant message, unstripped."""
    # Not `trace.last_reply`: it strips, and stripping trailing form feeds or other Unicode whitespace would
    # turn a line our strict parser rejects into one it accepts, so the two scorers would disagree.
    if trace.root_reply is not None:
        return trace.root_reply
    messages = trace.assistant_messages
    return (messages[-1].content or "") if messages else ""


# The rubric's weights, read once: brier_reward is the only weighted function (env.default_rubric says why).
_WEIGHTS = dict(zip(default_rubric().names, default_rubric().weights))
if any(weight != 0.0 for name, weight in _WEIGHTS.items() if name != "brier_reward"):
    raise RuntimeError("verifiers_env maps only brier_reward to a verifiers reward; map the new weighted function")


class ForecastTask(vf.Task[ForecastTaskData, vf.State, vf.TaskConfig]):
    """Score one reply: brier_reward is the (weight 1) reward; the rubric's weight-0 functions are metrics."""

    @property
    def key(self) -> str:
        """The item id: durable across runs, unique per row."""
        return self.data.item.id

    # Async: verifiers gathers reward and metric hooks as coroutines.
    @vf.reward(weight=_WEIGHTS["brier_reward"])
    async def brier_reward(self, trace: vf.Trace) -> float:
        """1 − (p − outcome)² of the reply's PROBABILITY line; 0.0 when it does not parse."""
        return default_rubric().score(reply_text(trace), self.data.item)["brier_reward"]

    @vf.metric
    async def diagnostics(self, trace: vf.Trace) -> dict[str, float]:
        """The rubric's weight-0 values (log_reward, market_skill, format_ok, confidence)."""
        values = default_rubric().score(reply_text(trace), self.data.item)
        return {name: values[name] for name, weight in _WEIGHTS.items() if weight == 0.0}


class ForecastTaskset(vf.Taskset[ForecastTask, ForecastTasksetConfig]):
    """The calibrated-forecasting items, one single-turn task each (system prompt + question, no price)."""

    def load(self) -> Iterable[ForecastTask]:
        """One task per item of the configured data after filters."""
        items = load_items_for_env(self.config.data, lenient=self.config.lenient, filters=self.config.filters)
        for item in items:
            data = ForecastTaskData(id=item.id, name=item.question_id or item.id, prompt=format_prompt(item),
                                    system_prompt=SYSTEM_PROMPT, item=item)
            yield ForecastTask(data, self.config.task)


class ForecastHarness(NullHarness):
    """The taskset's default harness: verifiers' chat-only program (no shell, no code), as a forecast needs."""

    # Exported so `default_harness_id("calibrated-forecasting")` picks it; the fallback `bash` gives the
    # model a shell on the machine, which a question answered in one text reply has no use for.
