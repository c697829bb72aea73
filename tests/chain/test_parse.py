"""Every InputError path of request parsing names the step and field at fault."""

import json

import pytest

from reasonforge.chain import parse_request, parse_translations
from reasonforge.errors import InputError
from reasonforge.types import ChainLimits


def request(steps, **extra):
    return {"domain": "logic", "original_query": "q", "reasoning_chain": steps, **extra}


def step(sid, content="Socrates is a man.", **extra):
    return {"step_id": sid, "content": content, **extra}


def raises(raw, limits=None):
    with pytest.raises(InputError) as info:
        parse_request(raw, limits)
    return info.value


def test_valid_request_parses_and_defaults():
    req = parse_request(json.dumps(request([step(1), step(2)])))
    assert req.proof_level.value == "standard"
    assert req.reasoning_chain[1].dependencies is None


def test_invalid_json_reports_line_and_column():
    err = raises('{"domain": "logic",\n  "reasoning_chain": [}')
    assert "line 2" in err.message and "column" in err.message


def test_non_utf8_bytes():
    assert "UTF-8" in raises(b'{"a": "\xff"}').message


def test_not_an_object():
    assert raises("[1, 2]").field == "request"


def test_missing_field_named():
    err = raises({"domain": "logic"})
    assert err.field == "reasoning_chain"


def test_unknown_domain_named():
    err = raises(request([step(1)], domain="astrology"))
    assert err.field == "domain"


def test_unknown_field_rejected_with_hint():
    err = raises(request([step(1, contnet="x")]))
    assert err.field == "reasoning_chain[0].contnet" and "spelling" in err.message
    assert err.step_id == 1


def test_wrong_type_in_step_names_step():
    err = raises(request([step(1), {"step_id": 2, "content": 5}]))
    assert err.field == "reasoning_chain[1].content" and err.step_id == 2


def test_empty_chain():
    assert raises(request([])).field == "reasoning_chain"


def test_empty_content():
    err = raises(request([step(1), step(2, "   ")]))
    assert err.step_id == 2 and err.field == "reasoning_chain[1].content"


def test_duplicate_ids():
    err = raises(request([step(1), step(2), step(2)]))
    assert err.step_id == 2 and "duplicate" in err.message and err.field == "reasoning_chain[2].step_id"


def test_unknown_dependency():
    err = raises(request([step(1), step(2, dependencies=[7])]))
    assert err.step_id == 2 and "unknown step 7" in err.message
    assert err.field == "reasoning_chain[1].dependencies"


def test_self_dependency():
    err = raises(request([step(1), step(2, dependencies=[2])]))
    assert err.step_id == 2 and "itself" in err.message


def test_cycle_named():
    err = raises(request([step(1, dependencies=[3]), step(2, dependencies=[1]), step(3, dependencies=[2])]))
    assert "cycle" in err.message and "1 -> 3 -> 2 -> 1" in err.message and err.step_id == 1


def test_too_many_steps():
    err = raises(request([step(i) for i in range(1, 6)]), ChainLimits(max_steps=4))
    assert err.field == "reasoning_chain" and "5 steps" in err.message


def test_step_too_large():
    err = raises(request([step(1), step(2, "x" * 100)]), ChainLimits(max_step_bytes=50))
    assert err.step_id == 2 and "100 bytes" in err.message


def test_request_too_large_before_decoding():
    raw = json.dumps(request([step(1, "x" * 2000)]))
    err = raises(raw, ChainLimits(max_request_bytes=1000))
    assert err.field == "request" and "over the limit" in err.message


def test_translation_for_unknown_step():
    raw = request([step(1)], translations=[{"step_id": 9, "language": "fol", "formal_representation": "⊢ P(a)"}])
    err = raises(raw)
    assert err.step_id == 9 and err.field == "translations[0].step_id"


def test_duplicate_translation():
    t = {"step_id": 1, "language": "fol", "formal_representation": "⊢ P(a)"}
    err = raises(request([step(1)], translations=[t, t]))
    assert err.field == "translations[1].step_id"


def test_parse_translations_errors():
    with pytest.raises(InputError) as info:
        parse_translations('[{"step_id": 1, "language": "klingon"}]')
    assert info.value.field == "translations[0].language"
    with pytest.raises(InputError):
        parse_translations('{"nope": 1}')
    assert parse_translations('{"translations": []}') == []
