"""The verify body the SDK sends: the API's own VerifyRequest, checked before anything leaves the client."""

from __future__ import annotations

import pytest

from reasonforge.errors import InputError
from reasonforge.sdk.requests import build_verify_body
from reasonforge.types import ReasoningStep, StepTranslation, VerifyRequest


def body(**overrides):
    args = {
        "reasoning_chain": [{"step_id": 1, "content": "Let x = 3"}],
        "domain": "mathematics",
        "original_query": "q",
        "claimed_answer": "a",
        "proof_level": "quick",
        "callback_url": None,
        "generate_certificate": False,
        "translations": None,
    }
    return build_verify_body(**(args | overrides))


def test_body_round_trips_through_the_api_model_and_omits_unset_defaults():
    sent = body(
        reasoning_chain=[
            ReasoningStep(step_id=1, content="Let x = 3"),
            {"step_id": 2, "content": "so x = 3", "dependencies": [1]},
        ]
    )
    assert sent["reasoning_chain"] == [
        {"step_id": 1, "content": "Let x = 3"},
        {"step_id": 2, "content": "so x = 3", "dependencies": [1]},
    ]
    assert "prover" not in sent and "task_id" not in sent and "callback_url" not in sent
    assert VerifyRequest.model_validate(sent).proof_level.value == "quick"


def test_plain_strings_become_steps_numbered_in_order():
    sent = body(reasoning_chain=["first", "second"])
    assert [s["step_id"] for s in sent["reasoning_chain"]] == [1, 2]


def test_translations_and_enums_are_serialised():
    from reasonforge.types import Domain, ProofLevel

    translation = StepTranslation(
        step_id=1, formal_representation="x = 3", language="sympy"
    )
    sent = body(
        domain=Domain.LOGIC,
        proof_level=ProofLevel.FORMAL,
        translations=[translation],
        prover="coq",
    )
    assert (
        sent["domain"] == "logic"
        and sent["proof_level"] == "formal"
        and sent["prover"] == "coq"
    )
    assert sent["translations"] == [
        {"step_id": 1, "formal_representation": "x = 3", "language": "sympy"}
    ]


def test_who_translates_goes_on_the_wire_only_when_asked():
    sent = body(translator="ensemble", samples=3, agree=2)
    assert (sent["translator"], sent["samples"], sent["agree"]) == ("ensemble", 3, 2)
    assert not {"translator", "samples", "agree"} & set(body())


@pytest.mark.parametrize(
    ("overrides", "field", "fragment"),
    [
        ({"translator": "oracle"}, "translator", "ensemble"),
        ({"samples": 9}, "samples", "8"),
        ({"agree": 0}, "agree", "1"),
        ({"domain": "biology"}, "domain", "mathematics"),
        ({"proof_level": "thorough"}, "proof_level", "quick"),
        ({"reasoning_chain": []}, "reasoning_chain", "empty"),
        ({"reasoning_chain": "one long string"}, "reasoning_chain", "list of steps"),
        (
            {"reasoning_chain": [{"step_id": "one", "content": "x"}]},
            "reasoning_chain[0].step_id",
            "integer",
        ),
        (
            {"reasoning_chain": [{"step_id": 1}]},
            "reasoning_chain[0].content",
            "required",
        ),
        (
            {"reasoning_chain": [{"step_id": 1, "content": "x", "extra": 1}]},
            "reasoning_chain[0].extra",
            "not permitted",
        ),
        (
            {
                "translations": [
                    {"step_id": 1, "formal_representation": "x", "language": "klingon"}
                ]
            },
            "translations[0].language",
            "sympy",
        ),
    ],
)
def test_bad_input_names_the_field(overrides, field, fragment):
    with pytest.raises(InputError) as caught:
        body(**overrides)
    assert caught.value.field == field
    assert fragment in caught.value.message


def test_a_reference_answer_travels_only_when_given():
    assert body(reference_answer="72")["reference_answer"] == "72"
    assert "reference_answer" not in body()
