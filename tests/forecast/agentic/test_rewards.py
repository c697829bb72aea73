"""Rewards: strict answer parsing, normalisation, multi-class Brier and floored log score, notebook checks."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.records import Notebook
from reasonforge.forecast.agentic.rewards import (
    check_notebook,
    date_reward,
    floored_log_score,
    multiclass_brier_loss,
    normalise,
    parse_forecast,
    score_reward,
)

LN_FLOOR = math.log(1e-3)


def test_brier_and_log_by_hand_three_outcomes() -> None:
    p = [0.5, 0.3, 0.2]
    assert multiclass_brier_loss(p, 0) == pytest.approx(0.25 + 0.09 + 0.04)  # (0.5−1)² + 0.3² + 0.2²
    assert multiclass_brier_loss(p, 2) == pytest.approx(0.25 + 0.09 + 0.64)  # 0.5² + 0.3² + (0.2−1)²
    assert floored_log_score(p, 0) == pytest.approx(math.log(0.5))
    assert floored_log_score(p, 2) == pytest.approx(math.log(0.2))
    assert multiclass_brier_loss([1.0, 0.0, 0.0], 0) == 0.0
    assert multiclass_brier_loss([1.0, 0.0, 0.0], 1) == pytest.approx(2.0)


def test_log_floor() -> None:
    assert floored_log_score([1.0, 0.0, 0.0], 1) == pytest.approx(LN_FLOOR)
    assert floored_log_score([0.9995, 0.0005, 0.0], 1) == pytest.approx(LN_FLOOR)  # below the floor: flat
    assert floored_log_score([0.998, 0.002, 0.0], 1) == pytest.approx(math.log(0.002))
    assert floored_log_score([0.5, 0.5], 1, floor=0.6) == pytest.approx(math.log(0.6))
    with pytest.raises(InputError, match="floor"):
        floored_log_score([0.5, 0.5], 0, floor=0.0)
    with pytest.raises(InputError, match="outside 0..1"):
        multiclass_brier_loss([0.5, 0.5], 2)


def test_normalise() -> None:
    assert normalise([0.2, 0.2, 0.6]) == pytest.approx([0.2, 0.2, 0.6])
    assert normalise([2.0, -1.0, 2.0]) == pytest.approx([0.5, 0.0, 0.5])
    with pytest.raises(InputError, match="no positive mass"):
        normalise([0.0, -0.5, 0.0])
    with pytest.raises(InputError, match="finite"):
        normalise([0.5, float("nan")])


def test_good_answer_reward_brier_and_log_rules() -> None:
    reply = ' {"probabilities": [0.5, 0.3, 0.2]}\n'
    r = date_reward(reply, 3, 0)
    assert r.format_ok and r.errors == []
    assert r.probs == pytest.approx([0.5, 0.3, 0.2])
    assert r.brier == pytest.approx(0.38)
    assert r.log == pytest.approx(math.log(0.5))
    assert r.reward == pytest.approx(1 - 0.38 / 2 + 0.1)
    r_log = date_reward(reply, 3, 0, rule="log", format_weight=0.2)
    assert r_log.reward == pytest.approx(1 - math.log(0.5) / LN_FLOOR + 0.2)
    assert score_reward(2.0, LN_FLOOR, "brier") == 0.0 and score_reward(0.0, 0.0, "log") == 1.0


@pytest.mark.parametrize(("reply", "message"), [
    ("0.5, 0.3, 0.2", "not strict JSON"),
    ('```json\n{"probabilities": [0.5, 0.3, 0.2]}\n```', "not strict JSON"),
    ('I think {"probabilities": [0.5, 0.3, 0.2]}', "not strict JSON"),
    ("[0.5, 0.3, 0.2]", "must be a JSON object"),
    ('{"probs": [0.5, 0.3, 0.2]}', "no 'probabilities' key"),
    ('{"probabilities": [0.5, 0.5]}', "has 2 entries but the question has 3"),
    ('{"probabilities": [0.5, NaN, 0.5]}', "NaN at line 1, column 25 is not a JSON number"),
    ('{"probabilities": [Infinity, 0, 0]}', "Infinity at line 1, column 20 is not a JSON number"),
    pytest.param('{"probabilities": ' + "[" * 100_000, "nested more than 16 levels deep", id="deep"),  # bounded
    ('{"probabilities": [1e999, 0, 0]}', "finite"),
    ('{"probabilities": ["0.5", "0.3", "0.2"]}', "must be numbers"),
    ('{"probabilities": [true, false, false]}', "must be numbers"),
    ('{"probabilities": "0.5 0.3 0.2"}', "JSON array"),
    ('{"probabilities": [0, 0, 0]}', "no positive mass"),
    ('{"probabilities": [-0.2, 0, 0]}', "no positive mass"),
])
def test_unusable_answers_get_the_worst_scores(reply: str, message: str) -> None:
    r = date_reward(reply, 3, 1)
    assert r.probs is None and not r.format_ok
    assert any(message in e for e in r.errors), r.errors
    assert r.brier == 2.0 and r.log == pytest.approx(LN_FLOOR) and r.reward == 0.0


def test_non_text_reply_is_unusable() -> None:
    parsed = parse_forecast(None, 2)  # type: ignore[arg-type]
    assert parsed.probs is None and "must be text" in parsed.errors[0]


def test_mass_outside_tolerance_is_scored_without_format_reward() -> None:
    r = date_reward('{"probabilities": [0.5, 0.3, 0.1]}', 3, 0)  # mass 0.9, tolerance 0.01
    assert not r.format_ok and "sum to 0.9" in r.errors[0]
    assert r.probs == pytest.approx([5 / 9, 3 / 9, 1 / 9])
    assert r.brier == pytest.approx((4 / 9) ** 2 + (3 / 9) ** 2 + (1 / 9) ** 2)
    assert r.reward == pytest.approx(1 - r.brier / 2)  # no format bonus
    assert parse_forecast('{"probabilities": [0.5, 0.3, 0.1]}', 3, tolerance=0.1).format_ok
    assert parse_forecast('{"probabilities": [0.5, 0.3, 0.205]}', 3).format_ok  # 1.005 is within 1 ± 0.01


def test_negative_values_are_clipped() -> None:
    parsed = parse_forecast('{"probabilities": [0.7, 0.305, -0.005]}', 3)  # clipped mass 1.005
    assert parsed.format_ok
    assert parsed.probs == pytest.approx([0.7 / 1.005, 0.305 / 1.005, 0.0])
    too_much = parse_forecast('{"probabilities": [0.6, 0.5, -0.1]}', 3)  # raw sum 1, clipped mass 1.1
    assert not too_much.format_ok and too_much.probs == pytest.approx([0.6 / 1.1, 0.5 / 1.1, 0.0])


def test_extra_keys_fail_the_format_but_the_vector_counts() -> None:
    r = date_reward('{"probabilities": [0.2, 0.8], "reasoning": "..."}', 2, 1)
    assert not r.format_ok and "unexpected keys ['reasoning']" in r.errors[0]
    assert r.brier == pytest.approx(0.08)


def _nb(**overrides: object) -> dict:
    row = {"beliefs": [0.6, 0.4], "key_evidence": ["d3: talks resumed"], "open_questions": ["vote date?"],
           "updated_at": "2015-09-05T23:59:59Z"}
    row.update(overrides)
    return row


AS_OF = datetime(2015, 9, 5, 23, 59, 59, tzinfo=UTC)


def test_notebook_valid_in_every_form() -> None:
    for value in (_nb(), json.dumps(_nb()), Notebook.model_validate(_nb())):
        notebook, errors = check_notebook(value, 2, as_of=AS_OF)
        assert errors == [] and notebook is not None
        assert notebook.beliefs == [0.6, 0.4]
    notebook, _ = check_notebook(_nb(beliefs=[0.603, 0.4]), 2)
    assert notebook is not None and notebook.beliefs == pytest.approx([0.603 / 1.003, 0.4 / 1.003])


@pytest.mark.parametrize(("value", "message"), [
    ([0.5, 0.5], "must be a JSON object"),
    ("{beliefs", "not strict JSON"),
    (_nb(beliefs=[0.3, 0.3, 0.4]), "3 entries but the question has 2"),
    (_nb(beliefs=[0.3, 0.3]), "sum to 0.6"),
    (_nb(beliefs=[0.0, 0.0]), "no positive mass"),
    (_nb(beliefs=[1.2, -0.2]), "notebook.beliefs: beliefs must be finite probabilities"),
    (_nb(beliefs=["0.6", 0.4]), "notebook.beliefs"),
    (_nb(key_evidence=["e"] * 21), "notebook.key_evidence: List should have at most 20"),
    (_nb(open_questions=["q" * 501]), "limited to 500"),
    (_nb(updated_at="2015-09-06T00:00:00Z"), "after the forecast date"),
    (_nb(updated_at="2015-09-05T23:59:59"), "UTC offset"),
    ({"beliefs": [0.5, 0.5]}, "notebook.updated_at: Field required"),
    (_nb(secret="x"), "notebook.secret: Extra inputs"),
])
def test_notebook_failures(value: object, message: str) -> None:
    notebook, errors = check_notebook(value, 2, as_of=AS_OF)
    assert notebook is None
    assert any(message in e for e in errors), errors


def test_notebook_in_the_answer() -> None:
    good = json.dumps({"probabilities": [0.2, 0.8], "notebook": _nb()})
    r = date_reward(good, 2, 1, require_notebook=True, as_of=AS_OF)
    assert r.format_ok and r.notebook is not None and r.notebook.open_questions == ["vote date?"]
    missing = date_reward('{"probabilities": [0.2, 0.8]}', 2, 1, require_notebook=True)
    assert not missing.format_ok and "needs a 'notebook'" in missing.errors[0]
    assert missing.brier == pytest.approx(0.08) and missing.reward == pytest.approx(1 - 0.04)
    future = json.dumps({"probabilities": [0.2, 0.8], "notebook": _nb(updated_at="2015-09-09T00:00:00Z")})
    bad = date_reward(future, 2, 1, as_of=AS_OF)
    assert not bad.format_ok and bad.notebook is None and "after the forecast date" in bad.errors[0]
    not_object = date_reward('{"probabilities": [0.2, 0.8], "notebook": "remember X"}', 2, 1)
    assert not not_object.format_ok and "'notebook' must be a JSON object" in not_object.errors[0]


def test_caller_errors_raise() -> None:
    with pytest.raises(InputError, match="outside 0..2"):
        date_reward('{"probabilities": [0.2, 0.8, 0]}', 3, 3)
    with pytest.raises(InputError, match="at least 2 outcomes"):
        parse_forecast('{"probabilities": [1]}', 1)
    with pytest.raises(InputError, match="format_weight"):
        date_reward('{"probabilities": [0.2, 0.8]}', 2, 0, format_weight=-1)
    with pytest.raises(InputError, match="unknown scoring rule"):
        date_reward('{"probabilities": [0.2, 0.8]}', 2, 0, rule="spherical")  # type: ignore[arg-type]
