"""Per-date rewards: strict parsing of the agent's final answer, normalisation, multi-class proper scores.

The answer format (the only one accepted) is the whole reply, up to surrounding whitespace, being one
JSON object

    {"probabilities": [p1, ..., pn], "notebook": {...}}

with `probabilities` a list of n finite numbers in outcome order and `notebook` optional (memory-on
episodes: see `check_notebook`). No other keys, no code fences, no prose around it: a format that is
checked exactly is one a policy can learn exactly, and it leaves no room for a lenient parser to guess.

Two outcomes of parsing are kept apart:
- *usable* (`probs` is not None): a vector of the right length with finite numbers and positive mass after
  clipping negatives. It is normalised (negatives → 0, then divided by the sum) and scored.
- *format_ok*: usable **and** every check passed (mass within 1 ± tolerance, valid notebook when one is
  required). Only then is the format reward paid. So a forecast summing to 0.9 is still scored on its
  renormalised vector but earns no format reward; a reply that is not a vector at all is unusable and
  gets the worst scores: Brier 2 and log(10⁻³).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from reasonforge.boundary.jsontext import JsonLimits, scan_json
from reasonforge.errors import InputError
from reasonforge.forecast.agentic.records import Notebook, as_utc, first_error
from reasonforge.forecast.rules import multiclass_brier, multiclass_log_loss

LOG_FLOOR = 1e-3
_REPLY_JSON = JsonLimits(max_depth=16, max_integer_digits=60, max_number_chars=100)  # an answer and a notebook
"""Default floor of the log score: ln(max(p_y, LOG_FLOOR)) ≥ ln(1000⁻¹) ≈ −6.908."""

ANSWER_KEYS = frozenset({"probabilities", "notebook"})


class ParsedForecast(BaseModel):
    """Result of parsing a final answer: the normalised vector (None when unusable) and format checks."""

    probs: list[float] | None
    format_ok: bool
    errors: list[str] = Field(default_factory=list)
    notebook: dict[str, Any] | None = Field(default=None, description="the raw notebook object, if any")


class DateReward(BaseModel):
    """The scored answer of one forecast date: the reward is score + format reward."""

    probs: list[float] | None
    format_ok: bool
    errors: list[str] = Field(default_factory=list)
    brier: float = Field(description="multi-class Brier loss in [0, 2]; 2 when unusable")
    log: float = Field(description="floored log score ln(max(p_y, 1e-3)) in [ln 1e-3, 0]")
    reward: float
    notebook: Notebook | None = None


def _reject_constant(token: str) -> float:
    # json.loads accepts NaN and ±Infinity by default; they are not JSON and not probabilities.
    raise ValueError(f"non-finite number {token} is not allowed")


def _strict_json(text: str) -> Any:
    # a model wrote it: nesting is bounded before the decoder recurses (a deep reply must not crash the trainer)
    try:
        scan_json(text, "the reply", _REPLY_JSON)
    except InputError as exc:
        raise ValueError(exc.message) from None
    return json.loads(text, parse_constant=_reject_constant)


def normalise(probs: Sequence[float]) -> list[float]:
    """Clip negatives to 0 and rescale to sum 1; raises InputError on non-finite values or zero mass."""
    values = [float(p) for p in probs]
    if not values or not all(math.isfinite(v) for v in values):
        raise InputError(f"cannot normalise {values}: entries must be finite numbers", field="probabilities")
    clipped = [max(v, 0.0) for v in values]
    total = math.fsum(clipped)
    if total <= 0.0:
        raise InputError("cannot normalise a vector with no positive mass; give at least one positive probability",
                         field="probabilities")
    return [v / total for v in clipped]


def _check_index(probs: Sequence[float], outcome_index: int) -> None:
    if not 0 <= outcome_index < len(probs):
        raise InputError(f"outcome_index {outcome_index} is outside 0..{len(probs) - 1}", field="outcome_index")


def multiclass_brier_loss(probs: Sequence[float], outcome_index: int) -> float:
    """Σ_k (p_k − 1[k = y])², in [0, 2] for a probability vector (0 perfect, 2 certain and wrong)."""
    _check_index(probs, outcome_index)
    return float(multiclass_brier([list(probs)], [outcome_index])[0])


def floored_log_score(probs: Sequence[float], outcome_index: int, floor: float = LOG_FLOOR) -> float:
    """ln(max(p_y, floor)): the log score (higher is better) with the probability of the outcome floored.

    Why the floor: the ideal log score is −∞ when the realised outcome got probability 0, so one
    overconfident miss would dominate any average and any gradient. Flooring caps the loss at
    ln(1/floor) = ln 1000 ≈ 6.91 nats for the default floor.

    What it costs: strict properness on the whole simplex. The floored score equals the ideal score
    whenever p_y ≥ floor, but below the floor the reported value no longer matters (0 and 10⁻⁹ score
    the same), so a forecaster gains nothing by moving mass off an outcome it believes has
    probability < floor, and the expected score is no longer uniquely maximised by the true
    distribution when that distribution puts < floor on some outcome. Above the floor everywhere,
    truthful reporting is still optimal.
    """
    _check_index(probs, outcome_index)
    if not 0.0 < floor < 1.0:
        raise InputError(f"floor must lie in (0, 1), got {floor}", field="floor")
    return float(-multiclass_log_loss([list(probs)], [outcome_index], eps=floor)[0])


def _numbers(raw: object, n_outcomes: int) -> tuple[list[float] | None, list[str]]:
    """The probability list as floats, or None with the reasons it cannot be used."""
    if not isinstance(raw, list):
        return None, [f"'probabilities' must be a JSON array of {n_outcomes} numbers, got {type(raw).__name__}"]
    bad = [i for i, v in enumerate(raw) if isinstance(v, bool) or not isinstance(v, int | float)]
    if bad:
        return None, [f"'probabilities' entries must be numbers; entries {bad} are not (e.g. {raw[bad[0]]!r})"]
    if len(raw) != n_outcomes:
        return None, [f"'probabilities' has {len(raw)} entries but the question has {n_outcomes} outcomes"]
    values = [float(v) for v in raw]
    if not all(math.isfinite(v) for v in values):
        return None, ["'probabilities' entries must be finite"]
    return values, []


def parse_forecast(reply: str, n_outcomes: int, *, tolerance: float = 0.01) -> ParsedForecast:
    """Parse a final answer in the strict format of this module's docstring (never raises on bad replies)."""
    if n_outcomes < 2:
        raise InputError(f"a question needs at least 2 outcomes, got {n_outcomes}", field="n_outcomes")
    if not isinstance(reply, str):
        return ParsedForecast(probs=None, format_ok=False, errors=[f"reply must be text, got {type(reply).__name__}"])
    try:
        obj = _strict_json(reply.strip())
    except (ValueError, RecursionError) as exc:
        return ParsedForecast(probs=None, format_ok=False,
                              errors=[f'reply is not strict JSON ({exc}); answer with {{"probabilities": [...]}}'])
    if not isinstance(obj, dict):
        kind = type(obj).__name__
        return ParsedForecast(probs=None, format_ok=False,
                              errors=[f'reply must be a JSON object {{"probabilities": [...]}}, got {kind}'])
    if "probabilities" not in obj:
        return ParsedForecast(probs=None, format_ok=False, errors=["reply has no 'probabilities' key"])
    errors: list[str] = []
    extra = sorted(set(obj) - ANSWER_KEYS)
    if extra:
        errors.append(f"unexpected keys {extra}; only 'probabilities' and 'notebook' are allowed")
    notebook = obj.get("notebook")
    if notebook is not None and not isinstance(notebook, dict):
        errors.append(f"'notebook' must be a JSON object, got {type(notebook).__name__}")
        notebook = None
    values, problems = _numbers(obj["probabilities"], n_outcomes)
    if values is None:
        return ParsedForecast(probs=None, format_ok=False, errors=errors + problems, notebook=notebook)
    # Mass is checked on the clipped vector: the probability the forecast actually asserts.
    mass = math.fsum(max(v, 0.0) for v in values)
    if mass <= 0.0:
        return ParsedForecast(probs=None, format_ok=False, notebook=notebook,
                              errors=[*errors, "'probabilities' has no positive mass"])
    if abs(mass - 1.0) > tolerance:
        errors.append(f"'probabilities' sum to {mass:.6g} after clipping negatives, not 1 ± {tolerance}")
    return ParsedForecast(probs=normalise(values), format_ok=not errors, errors=errors, notebook=notebook)


def check_notebook(value: object, n_outcomes: int, *, as_of: datetime | None = None,
                   tolerance: float = 0.01) -> tuple[Notebook | None, list[str]]:
    """Validate a belief notebook (object or JSON text): beliefs valid like a forecast (n entries in [0, 1],
    mass 1 ± tolerance; stored normalised), bounded string lists, `updated_at` not after `as_of`."""
    if isinstance(value, Notebook):
        value = value.model_dump(mode="json")
    if isinstance(value, str):
        try:
            value = _strict_json(value)
        except (ValueError, RecursionError) as exc:
            return None, [f"notebook is not strict JSON ({exc})"]
    if not isinstance(value, dict):
        return None, [f"notebook must be a JSON object, got {type(value).__name__}"]
    try:
        notebook = Notebook.model_validate(value)
    except ValidationError as exc:
        return None, [first_error(exc, "notebook")]
    errors: list[str] = []
    beliefs = notebook.beliefs
    if len(beliefs) != n_outcomes:
        errors.append(f"notebook.beliefs has {len(beliefs)} entries but the question has {n_outcomes} outcomes")
    elif math.fsum(beliefs) <= 0.0:
        errors.append("notebook.beliefs has no positive mass")
    elif abs(math.fsum(beliefs) - 1.0) > tolerance:
        errors.append(f"notebook.beliefs sum to {math.fsum(beliefs):.6g}, not 1 ± {tolerance}")
    if as_of is not None and notebook.updated_at > as_utc(as_of, "as_of"):
        # A notebook from the future would carry information the agent cannot have at this date.
        errors.append(f"notebook.updated_at {notebook.updated_at.isoformat()} is after the forecast date "
                      f"{as_utc(as_of, 'as_of').isoformat()}")
    if errors:
        return None, errors
    return notebook.model_copy(update={"beliefs": normalise(beliefs)}), []


def score_reward(brier: float, log: float, rule: Literal["brier", "log"], floor: float = LOG_FLOOR) -> float:
    """The score part of the reward, in [0, 1]: brier → 1 − loss/2; log → 1 − score/ln(floor).

    Both are positive affine maps of strictly proper scores (proper on [floor, 1] for log), so they keep
    the reporting optimum, put the two rules on one scale, and make a format reward comparable.
    """
    if rule == "brier":
        return 1.0 - brier / 2.0
    if rule == "log":
        return 1.0 - log / math.log(floor)
    raise InputError(f"unknown scoring rule {rule!r}; use 'brier' or 'log'", field="rule")


def date_reward(reply: str, n_outcomes: int, outcome_index: int, *, rule: Literal["brier", "log"] = "brier",
                format_weight: float = 0.1, tolerance: float = 0.01, require_notebook: bool = False,
                as_of: datetime | None = None) -> DateReward:
    """Reward of one dated answer: score_reward(rule) + format_weight·1[format ok].

    An unusable answer scores Brier 2 and log ln(10⁻³) (score reward 0). With `require_notebook`
    (memory-on episodes) a missing or invalid notebook fails the format check but the vector is still scored.
    """
    if not 0 <= outcome_index < n_outcomes:
        raise InputError(f"outcome_index {outcome_index} is outside 0..{n_outcomes - 1}", field="outcome_index")
    if format_weight < 0 or not math.isfinite(format_weight):
        raise InputError(f"format_weight must be a finite number ≥ 0, got {format_weight}", field="format_weight")
    parsed = parse_forecast(reply, n_outcomes, tolerance=tolerance)
    errors = list(parsed.errors)
    notebook = None
    if parsed.notebook is not None or require_notebook:
        if parsed.notebook is None:
            errors.append("memory is on: the answer needs a 'notebook' object")
        else:
            notebook, nb_errors = check_notebook(parsed.notebook, n_outcomes, as_of=as_of, tolerance=tolerance)
            errors.extend(nb_errors)
    if parsed.probs is None:
        brier, log = 2.0, math.log(LOG_FLOOR)
    else:
        brier = multiclass_brier_loss(parsed.probs, outcome_index)
        log = floored_log_score(parsed.probs, outcome_index)
    format_ok = parsed.probs is not None and not errors
    reward = score_reward(brier, log, rule) + (format_weight if format_ok else 0.0)
    return DateReward(probs=parsed.probs, format_ok=format_ok, errors=errors, brier=brier, log=log,
                      reward=reward, notebook=notebook)
