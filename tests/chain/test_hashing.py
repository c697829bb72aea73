"""verdict_hash and task_hash are exactly the documented recipes, hence stable across machines."""

import hashlib
import json

from reasonforge.chain import task_hash, verdict_hash
from reasonforge.types import (
    Domain,
    Evidence,
    EvidenceKind,
    ReasoningStep,
    Spec,
    StepStatus,
    StepVerdict,
    Supplier,
    VerifyRequest,
)

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


def _digest(**changes):
    from reasonforge.chain import verdict_digest
    from reasonforge.types import Assurance, Overall, ProofLevel

    step = StepVerdict(step_id=1, verified=True, status=StepStatus.VERIFIED, formal_representation="x = 3",
                       checker_spec=Spec(name="sympy-relations", version="1"),
                       evidence=Evidence(kind="claim", aligned_claim="x = 3", formaliser="offline_reader"))
    fields = {"task_hash": "ab" * 32, "claimed_answer": "3", "domain": Domain.MATHEMATICS,
              "proof_level": ProofLevel.QUICK, "overall": Overall.VERIFIED, "assurance": Assurance.PROVEN,
              "step_verdicts": [step]}
    return verdict_digest(**{**fields, **changes}), step


def test_verdict_digest_is_the_documented_recipe():
    digest, _ = _digest()
    spec = hashlib.sha256(b'{"args":{},"name":"sympy-relations","version":"1"}').hexdigest()
    body = {
        "recipe": "reasonforge-verdict-digest/2", "task_hash": "ab" * 32, "claimed_answer": "3",
        "domain": "mathematics", "proof_level": "quick", "overall": "VERIFIED", "assurance": "proven",
        "steps": [{"id": 1, "status": "verified", "verified": True, "evidence_kind": "claim",
                   "formaliser": "offline_reader", "supplied_by": "proof", "aligned_claim": "x = 3", "assumptions": [],
                   "artifact_sha256": hashlib.sha256(b"x = 3").hexdigest(), "checker_spec_sha256": spec,
                   "translator_spec_sha256": ""}],
    }
    expected = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert digest == expected


def test_verdict_digest_differs_whenever_what_was_proven_differs():
    from reasonforge.types import Assurance, ProofLevel

    base, step = _digest()
    other_checker = step.model_copy(update={"checker_spec": Spec(name="coq", version="1")})
    other_evidence = step.model_copy(update={"evidence": step.evidence.model_copy(update={"kind": EvidenceKind.RELATIONS})})
    assumed = step.model_copy(update={"evidence": step.evidence.model_copy(update={"assumptions": ["A"]})})
    authored = step.model_copy(update={"evidence": step.evidence.model_copy(update={"supplied_by": Supplier.AUTHOR})})
    diagnostics = step.model_copy(update={"details": {"elapsed_ms": 3}})
    variants = [
        _digest(proof_level=ProofLevel.FORMAL)[0],
        _digest(domain=Domain.CODE)[0],
        _digest(claimed_answer="4")[0],
        _digest(assurance=Assurance.CORROBORATED)[0],
        _digest(step_verdicts=[step.model_copy(update={"formal_representation": "x = 4"})])[0],
        _digest(step_verdicts=[other_checker])[0],
        _digest(step_verdicts=[other_evidence])[0],
        _digest(step_verdicts=[assumed])[0],
        _digest(step_verdicts=[authored])[0],
    ]
    assert len({base, *variants}) == len(variants) + 1
    assert _digest(step_verdicts=[diagnostics])[0] == base  # diagnostics are not what was proven
