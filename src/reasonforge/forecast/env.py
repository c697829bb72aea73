"""A verifiers-style single-turn environment: dataset rows + a rubric where only brier_reward has weight.

The shape follows the `verifiers` package (a dataset of prompt/answer/info rows and a rubric of
named reward functions with weights) without importing it, so the environment works whether or
not that optional package is installed. The genuine `verifiers` taskset (`verifiers_env.py`, loaded
by id through the top-level `calibrated_forecasting` package) scores with this module's rubric.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonforge.forecast.dataset import (  # noqa: F401 - default_data re-exported; it is defined in dataset
    ForecastFilters,
    ForecastItem,
    default_data,
    load_dataset,
)
from reasonforge.forecast.parse import parse_probability

ENV_NAME = "calibrated-forecasting"

SYSTEM_PROMPT = (
    "You are a careful forecaster. You are given a question about a real-world event and an 'as of' "
    "date. Use only what could be known at that date. Reason briefly, then end your reply with one line "
    "of the form\nPROBABILITY: 0.62\nwhere the number is your probability (between 0 and 1) that the "
    "question resolves Yes."
)


def format_prompt(item: ForecastItem) -> str:
    """The user message for one item: question, context and the 'as of' cutoff (never the price)."""
    parts = [f"Question: {item.question}"]
    if item.background:
        parts.append(f"Background: {item.background}")
    if item.resolution_criteria:
        parts.append(f"Resolution criteria: {item.resolution_criteria}")
    parts.append(f"As of: {item.cutoff.strftime('%Y-%m-%dT%H:%M:%SZ')}")
    parts.append("End your reply with a line 'PROBABILITY: <number between 0 and 1>'.")
    return "\n\n".join(parts)


def _p(reply: str) -> float | None:
    return parse_probability(reply)


def brier_reward(reply: str, item: ForecastItem) -> float:
    """1 − (p − outcome)²; an unparsable reply scores 0.0."""
    p = _p(reply)
    return 0.0 if p is None else 1.0 - (p - item.outcome) ** 2


def log_reward(reply: str, item: ForecastItem) -> float:
    """Normalised log reward (see rules.log_reward); an unparsable reply scores 0.0."""
    from reasonforge.forecast.rules import log_reward as rule

    p = _p(reply)
    return 0.0 if p is None else float(rule([p], [item.outcome])[0])


def market_skill(reply: str, item: ForecastItem) -> float:
    """Per-item skill over the market: market squared error − model squared error (unparsed: error 1)."""
    p = _p(reply)
    model_error = 1.0 if p is None else (p - item.outcome) ** 2
    return (item.market_price - item.outcome) ** 2 - model_error


def format_ok(reply: str, item: ForecastItem) -> float:
    """1.0 when the reply ends in a valid PROBABILITY line."""
    return 0.0 if _p(reply) is None else 1.0


def confidence(reply: str, item: ForecastItem) -> float:
    """|p − 0.5|·2 (0.0 when unparsable)."""
    p = _p(reply)
    return 0.0 if p is None else abs(p - 0.5) * 2.0


RewardFn = Callable[[str, ForecastItem], float]


@dataclass(frozen=True)
class Rubric:
    """Named reward functions with weights; the reward is the weighted sum."""

    funcs: tuple[RewardFn, ...]
    weights: tuple[float, ...]

    @property
    def names(self) -> list[str]:
        """The function names, in order."""
        return [f.__name__ for f in self.funcs]

    def score(self, reply: str, item: ForecastItem) -> dict[str, float]:
        """Every function's value plus `reward`, the weighted sum."""
        values = {f.__name__: float(f(reply, item)) for f in self.funcs}
        values["reward"] = sum(w * values[f.__name__] for f, w in zip(self.funcs, self.weights))
        return values


def default_rubric() -> Rubric:
    """brier_reward carries weight 1.0; the rest are weight-0 diagnostics (market_skill stays out of
    the training signal: rewarding noise around a near-efficient market teaches nothing)."""
    return Rubric(funcs=(brier_reward, log_reward, market_skill, format_ok, confidence),
                  weights=(1.0, 0.0, 0.0, 0.0, 0.0))


@dataclass
class ForecastEnvironment:
    """Single-turn environment: rows with a chat prompt, the answer and the item as `info`."""

    name: str
    items: list[ForecastItem]
    system_prompt: str = SYSTEM_PROMPT
    rubric: Rubric = field(default_factory=default_rubric)

    @property
    def dataset(self) -> list[dict[str, Any]]:
        """verifiers-style rows: {prompt: [messages], answer: "0"|"1", info: {...}}."""
        return [{"prompt": self.messages(item), "answer": str(item.outcome), "info": item.model_dump(mode="json")}
                for item in self.items]

    def messages(self, item: ForecastItem) -> list[dict[str, str]]:
        """The chat messages sent for one item."""
        return [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": format_prompt(item)}]

    def score(self, replies: Sequence[str]) -> list[dict[str, float]]:
        """Rubric values per item for replies in dataset order."""
        if len(replies) != len(self.items):
            raise ValueError(f"got {len(replies)} replies for {len(self.items)} items")
        return [self.rubric.score(reply, item) for reply, item in zip(replies, self.items)]


def load_items_for_env(data: str | Path | None = None, *, lenient: bool = False,
                       filters: ForecastFilters | None = None) -> list[ForecastItem]:
    """The environment's items: `data` (default: the packaged slice, `dataset.default_data`) after filters."""
    return load_dataset(data, filters, lenient=lenient).items


def load_environment(name: str = ENV_NAME, *, data: str | Path | None = None, lenient: bool = False,
                     **filters: Any) -> ForecastEnvironment:
    """The calibrated-forecasting environment over `data` (default: the packaged slice) after filters."""
    if name != ENV_NAME:
        raise ValueError(f"unknown environment {name!r}; this package provides {ENV_NAME!r}")
    return ForecastEnvironment(name=name, items=load_items_for_env(data, lenient=lenient,
                                                                   filters=ForecastFilters(**filters)))
