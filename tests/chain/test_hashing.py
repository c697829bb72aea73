"""verdict_hash and task_hash are exactly the documented recipes, hence stable across machines."""

import hashlib
import json

from reasonforge.chain import task_hash, verdict_hash
from reasonforge.types import Domain, ReasoningStep, StepStatus, StepVerdict, VerifyRequest

REQUEST = VerifyRequest(
    domain=Domain.LOGIC,
    original_query="Are whales warm-blooded?",
    reasoning_chain=[
        ReasoningStep(step_id=1, content="All mammals are warm-blooded."),
        ReasoningStep(step_id=2, content="Whales are mammals. Therefore whales are warm-blooded.", dependencies=[1]),
    ],
)


def test_verdict_hash_matches_the_plan_recipe():
    steps = [
        StepVerdict(step_id=1, verified=True, status=StepStatus.VERIFIED),
        StepVerdict(step_id=2, verified=False, status=StepStatus.FAILED),
    ]
    expected = hashlib.sha256(
        json.dumps(
            {"task_id": "t1", "overall": "PARTIAL", "steps": [{"id": 1, "verified": True}, {"id": 2, "verified": False}]},
            sort_keys=True,
        ).encode()
    ).hexdigest()
    assert verdict_hash("t1", "PARTIAL", steps) == expected


def test_task_hash_is_pinned():
    # Literal pins: if these change, every issued certificate's task_hash changes with them.
    canonical = (
        '{"claimed_answer":"","original_query":"Are whales warm-blooded?","reasoning_chain":['
        '{"claimed_conclusion":null,"content":"All mammals are warm-blooded.","dependencies":null,"step_id":1},'
        '{"claimed_conclusion":null,"content":"Whales are mammals. Therefore whales are warm-blooded.",'
        '"dependencies":[1],"step_id":2}]}'
    )
    assert task_hash(REQUEST) == hashlib.sha256(canonical.encode()).hexdigest()
    assert task_hash(REQUEST) == "4eda0a067e109e9037fb74531d65822d0502e3d442ef43580a3e1567e98e91e7"


def test_task_hash_covers_the_claimed_answer_and_ignores_other_fields():
    other = REQUEST.model_copy(update={"proof_level": "formal", "generate_certificate": False, "task_id": "t9"})
    assert task_hash(other) == task_hash(REQUEST)
    changed = REQUEST.model_copy(update={"original_query": "Are whales fish?"})
    assert task_hash(changed) != task_hash(REQUEST)
    # a verdict checks the claimed answer, so a certificate for "yes" must not serve "no"
    yes, no = (REQUEST.model_copy(update={"claimed_answer": a}) for a in ("yes", "no"))
    assert len({task_hash(yes), task_hash(no), task_hash(REQUEST)}) == 3
