"""Every InputError path of request parsing names the step and field at fault; untrusted text never gets past it
as anything else (no traceback, no silent coercion)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


# ---- untrusted text: every bad input is an InputError naming what, where and how to fix it ----------------------
def chain_text(steps_json: str) -> str:
    """A request whose steps are raw JSON text, written as an attacker would write it."""
    return '{"domain": "logic", "original_query": "q", "reasoning_chain": [' + steps_json + "]}"


def raw_step(step_id: str, content: str = '"a"', extra: str = "") -> str:
    """A one-step request with the step id (and content) as raw JSON text."""
    return chain_text('{"step_id": ' + step_id + ', "content": ' + content + extra + "}")


@pytest.mark.parametrize("raw", ["[" * 100_000, '{"domain": "logic", "reasoning_chain": ' + "[" * 100_000,
                                 '{"a": ' * 50_000, "[" * 33 + "]" * 33])
def test_deep_nesting_is_refused_before_decoding(raw):
    err = raises(raw)
    assert err.field == "request" and "nested more than 32 levels" in err.message and "line 1, column" in err.message


def test_nesting_a_request_needs_is_accepted():
    assert parse_request(json.dumps(request([step(1), step(2, dependencies=[1])]))).reasoning_chain[1].dependencies == [1]


def test_a_5000_digit_step_id_is_refused_with_its_place():
    err = raises(raw_step("9" * 5000))
    assert err.field == "reasoning_chain[0].step_id" and "5000 digits" in err.message and "column" in err.message


@pytest.mark.parametrize("number", ["1" + "0" * 30, "-" + "1" * 19])
def test_integers_too_long_for_a_step_id_are_refused(number):
    assert "digits, over the limit" in raises(raw_step(number)).message


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(literal):
    err = raises(raw_step(literal))
    assert err.field == "reasoning_chain[0].step_id" and f"{literal} at line 1" in err.message


def test_numbers_that_overflow_or_run_long_are_refused():
    translation = '{"step_id": 1, "language": "fol", "translation_confidence": %s}'
    body = '{"domain": "logic", "reasoning_chain": [{"step_id": 1, "content": "a"}], "translations": [%s]}'
    err = raises(body % (translation % "1e999"))
    assert err.field == "translations[0].translation_confidence" and "out of range" in err.message
    assert "characters long" in raises(body % (translation % ("0." + "5" * 60))).message


@pytest.mark.parametrize(("escape", "where"), [("\\ud800", "content"), ("\\udfff tail", "content"),
                                               ("x\\ud83d", "claimed_conclusion")])
def test_a_lone_surrogate_escape_is_refused_naming_the_field(escape, where):
    fields = {"content": "ok", "claimed_conclusion": "c", where: escape}
    err = raises(raw_step("1", f'"{fields["content"]}"', f', "claimed_conclusion": "{fields["claimed_conclusion"]}"'))
    assert err.field == f"reasoning_chain[0].{where}" and "lone surrogate" in err.message


def test_a_surrogate_pair_is_a_character():
    req = parse_request(chain_text('{"step_id": 1, "content": "Socrates \\ud83d\\ude00 is a man."}'))
    assert "\U0001f600" in req.reasoning_chain[0].content


def test_lone_surrogates_in_text_dicts_and_models_are_refused():
    assert "lone surrogate" in raises(chain_text('{"step_id": 1, "content": "a\ud800"}')).message
    assert raises(request([step(1, "a\udc00")])).field == "reasoning_chain[0].content"
    from reasonforge.chain import validate_request
    from reasonforge.types import VerifyRequest

    model = VerifyRequest.model_validate(request([step(1)], original_query="q\ud800"))
    with pytest.raises(InputError, match="lone surrogate") as info:
        validate_request(model)
    assert info.value.field == "original_query"


def test_a_surrogate_in_a_key_is_refused_before_it_is_printed():
    assert "lone surrogate" in raises('{"\\ud800": 1}').message


def test_duplicate_keys_are_refused_with_the_key_and_both_places():
    err = raises('{"domain": "logic",\n "domain": "mathematics", "reasoning_chain": []}')
    assert '"domain"' in err.message and "line 2, column 2" in err.message and "first at line 1, column 2" in err.message
    nested = raises(chain_text('{"step_id": 1, "content": "true claim", "content": "false claim"}'))
    assert nested.field == "reasoning_chain[0].content" and "in reasoning_chain[0]" in nested.message


def test_keys_equal_after_unescaping_are_duplicates():
    assert "repeats the key" in raises('{"domain": "logic", "dom\\u0061in": "code", "reasoning_chain": []}').message


def test_the_same_key_in_sibling_objects_is_fine():
    assert len(parse_request(json.dumps(request([step(1), step(2)]))).reasoning_chain) == 2


@pytest.mark.parametrize(("raw", "kind"), [("[1, 2]", "an array"), ('"hi"', "a string"), ("3", "a number"),
                                           ("null", "null"), ("true", "true")])
def test_a_top_level_non_object_says_what_it_is(raw, kind):
    err = raises(raw)
    assert err.field == "request" and err.message.endswith(f"not {kind}")


@pytest.mark.parametrize(("raw", "words"), [
    (b"\xef\xbb\xbf{}", "byte-order mark"),
    ('{"domain": "logic"}'.encode("utf-16"), "UTF-16"),
    ('{"domain": "logic"}'.encode("utf-16-le"), "NUL bytes"),
    ('{"domain": "logic"}'.encode("utf-32"), "UTF-32"),
    ('{"q": "café"}'.encode("latin-1"), "not UTF-8 text"),
    (b'{"q": "\xed\xa0\x80"}', "not UTF-8 text"),  # a surrogate encoded as UTF-8: json.loads(bytes) takes it
])
def test_bytes_must_be_utf8_without_a_bom(raw, words):
    err = raises(raw)
    assert err.field == "request" and words in err.message and "save it as UTF-8" in err.message


@pytest.mark.parametrize(("value", "shown"), [("true", "got true"), ("1.0", "got 1.0"), ('"1"', 'got "1"'),
                                              ("false", "got false")])
def test_step_ids_must_be_json_integers_not_coerced(value, shown):
    err = raises(raw_step(value))
    assert err.field == "reasoning_chain[0].step_id" and shown in err.message and err.step_id is None


def test_dependencies_and_booleans_are_strict_too():
    err = raises(chain_text('{"step_id": 1, "content": "a"}, {"step_id": 2, "content": "b", "dependencies": [true]}'))
    assert err.field == "reasoning_chain[1].dependencies[0]" and err.step_id == 2
    assert raises(request([step(1)], generate_certificate="yes")).field == "generate_certificate"


@pytest.mark.parametrize("sid", [0, -1, -7])
def test_step_ids_are_positive(sid):
    err = raises(request([step(sid)]))
    assert err.field == "reasoning_chain[0].step_id" and "number the steps from 1" in err.message
    assert ("Context" in err.message) == (sid == 0)


@pytest.mark.parametrize("content", ["\u200b", "\u200b\u2060\ufeff", " \t\n\u00a0\u3000", "\x00\x01"])
def test_content_of_only_invisible_characters_is_empty(content):
    err = raises(request([step(1), step(2, content)]))
    assert err.step_id == 2 and "invisible" in err.message


def test_visible_text_among_invisible_characters_is_content():
    assert parse_request(request([step(1, "\u200bSocrates is a man.")])).reasoning_chain[0].content.startswith("\u200b")


def test_a_self_cycle_and_a_forward_dependency():
    assert "itself" in raises(request([step(1, dependencies=[1])])).message
    # Listing order is not dependency order: a step may use one written after it (the DAG orders them).
    req = parse_request(request([step(1, dependencies=[2]), step(2, dependencies=[])]))
    assert req.reasoning_chain[0].dependencies == [2]


def test_64_steps_of_64_kib_are_over_the_request_limit():
    from reasonforge.chain.parse import RequestTooLargeError

    big = request([step(i, "x" * (64 * 1024)) for i in range(1, 65)])
    with pytest.raises(RequestTooLargeError) as info:
        parse_request(json.dumps(big))
    assert info.value.field == "request" and "over the limit of 1048576" in info.value.message
    with pytest.raises(RequestTooLargeError):
        parse_request(big)


def test_unknown_fields_are_refused_everywhere():
    assert raises(request([step(1)], foo=1)).field == "foo"
    t = {"step_id": 1, "language": "fol", "formal_representation": "⊢ P(a)", "proof": "trust me"}
    assert raises(request([step(1)], translations=[t])).field == "translations[0].proof"


def test_translations_for_another_chain_name_the_steps_that_exist():
    translations = parse_translations(json.dumps([{"step_id": 7, "language": "fol", "formal_representation": "⊢ P(a)"}]))
    from reasonforge.chain import StepGraph, check_translations
    from reasonforge.types import ReasoningStep

    with pytest.raises(InputError) as info:
        check_translations(translations, StepGraph([ReasoningStep(step_id=1, content="a"),
                                                    ReasoningStep(step_id=2, content="b")]))
    assert "unknown step 7" in info.value.message and "(1, 2)" in info.value.message
    zero = {"step_id": 0, "language": "fol", "formal_representation": "⊢ P(a)"}
    assert "coq/lean4 Context" in raises(request([step(1)], translations=[zero])).message


def test_parse_translations_is_as_strict_as_requests():
    for raw, field in (('[{"step_id": true, "language": "fol"}]', "translations[0].step_id"),
                       ("[5]", "translations[0]"), ('[{"step_id": 1, "step_id": 2, "language": "fol"}]',
                                                    "[0].step_id"),
                       ("[" * 1000, "translations"), (b"\xff", "translations")):
        with pytest.raises(InputError) as info:
            parse_translations(raw)
        assert info.value.field == field, (raw, info.value)


def test_syntax_errors_still_read_as_the_decoder_says():
    err = raises('{"domain": "logic", "reasoning_chain": [{"step_id": 1, "content": "a\nb"}]}')
    assert "Invalid control character at line 1" in err.message
    assert "not valid JSON" in raises('{"a": "[[[[NaN').message  # an unterminated string hides nothing


# ---- property: any text or JSON value is a request or an InputError, never anything else -----------------------
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


def _parses_or_refuses(raw) -> None:
    try:
        parse_request(raw)
    except InputError as exc:
        assert exc.message and isinstance(exc.message, str)
        exc.message.encode("utf-8")  # printable: no surrogate ever reaches a message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300) | st.text(max_size=300))
def test_any_bytes_or_text_is_a_request_or_an_input_error(raw):
    _parses_or_refuses(raw)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values, st.sampled_from(["step_id", "content", "dependencies", "domain", "reasoning_chain"]))
def test_any_json_in_any_field_is_a_request_or_an_input_error(value, key):
    body = request([step(1), step(2)])
    if key in ("step_id", "content", "dependencies"):
        body["reasoning_chain"][1][key] = value
    else:
        body[key] = value
    _parses_or_refuses(json.dumps(body))
    _parses_or_refuses(body)


def test_keys_from_the_document_are_quoted_and_cut_in_messages():
    err = raises('{"\\u001b[2J": 1, "domain": "logic", "reasoning_chain": [{"step_id": 1, "content": "a"}]}')
    assert "\x1b" not in err.message and '"\\u001b[2J": unknown field' in err.message
    long_key = raises('{"domain": "logic", "reasoning_chain": [{"step_id": 1, "content": "a"}], "' + "k" * 100_000 + '": 1}')
    assert len(long_key.message) < 200 and len(long_key.field) < 100
