"""verify_chain end to end with supplied translations and the real solvers."""

import pytest

from reasonforge import StepTranslation, VerifyRequest, verify_chain
from reasonforge.chain import verdict_hash
from reasonforge.errors import InputError
from reasonforge.types import CheckLimits, Overall, StepStatus

# Every step says what GOOD proves from the givens, so the soundness gate ties GOOD to it (a step that says nothing
# the artifact proves is unsupported whatever the checker says: tests/pipeline/test_soundness_logic.py).
QUERY = "Rex is a cat. If Rex is a cat then Rex is an animal."
CLAIM = "Rex is an animal."


def request(n, deps=None, level="standard", contents=None):
    deps = deps or [None] * n
    contents = contents or {}
    return VerifyRequest.model_validate(
        {
            "domain": "logic",
            "proof_level": level,
            "original_query": QUERY,
            "reasoning_chain": [{"step_id": i + 1, "content": contents.get(i + 1, CLAIM), "dependencies": d}
                                for i, d in enumerate(deps)],
        }
    )


def prop(step_id, text, language="propositional"):
    return StepTranslation(step_id=step_id, language=language, formal_representation=text)


GOOD = "Cat_rex\nCat_rex → Animal_rex\n⊢ Animal_rex"
BAD = "Cat_rex → Animal_rex\nAnimal_rex\n⊢ Cat_rex"  # affirming the consequent


def test_diamond_cascade_through_real_checker():
    # Step 2 says what does not follow (a logic failure stands only where the reader's reading refutes the step;
    # a true claim whose artifact fails is merely unsupported)
    req = request(5, deps=[[], [1], [1], [2, 3], [4]], contents={2: "So Rex is a dog."})
    translations = [prop(1, GOOD), prop(2, BAD), prop(3, GOOD), prop(4, GOOD), prop(5, GOOD)]
    verdict = verify_chain(req, translations=translations)
    statuses = [sv.status for sv in verdict.step_verdicts]
    assert statuses == [
        StepStatus.VERIFIED,
        StepStatus.FAILED,
        StepStatus.VERIFIED,
        StepStatus.INVALIDATED,
        StepStatus.INVALIDATED,
    ]
    assert verdict.overall is Overall.PARTIAL
    assert verdict.verified_steps == 2 and verdict.total_steps == 5
    assert verdict.step_verdicts[0].evidence.aligned_claim == "Animal(rex)"  # verified past the soundness gate
    assert [sv.step_id for sv in verdict.failure_points] == [2, 4, 5]
    failed = verdict.step_verdicts[1]
    assert failed.details["counterexample"]
    assert verdict.step_verdicts[3].local_status == "verified"
    report = verdict.failure_report
    assert report.failed_step_id == 2 and report.cascade_impact == [4, 5] and report.last_valid_step == 1
    assert report.formal_translation == BAD
    assert verdict.verdict_hash == verdict_hash(verdict.task_id, "PARTIAL", verdict.step_verdicts)


def test_same_request_same_hashes_across_runs():
    req = request(2)
    translations = [prop(1, GOOD), prop(2, BAD)]
    first = verify_chain(req, translations=translations)
    second = verify_chain(VerifyRequest.model_validate_json(req.model_dump_json()), translations=translations)
    assert (first.task_id, first.task_hash, first.verdict_hash) == (
        second.task_id,
        second.task_hash,
        second.verdict_hash,
    )
    assert first.task_id == first.task_hash[:32]


def test_missing_and_empty_translations_are_unsupported_not_failed():
    req = request(3)
    empty = StepTranslation(step_id=2, language="fol", formal_representation="", notes='cannot translate "x"')
    verdict = verify_chain(req, translations=[prop(1, GOOD), empty])
    assert [sv.status for sv in verdict.step_verdicts] == [
        StepStatus.VERIFIED,
        StepStatus.UNSUPPORTED,
        StepStatus.UNSUPPORTED,
    ]
    assert verdict.step_verdicts[1].error_message == 'cannot translate "x"'
    assert verdict.overall is Overall.PARTIAL


def test_unparsable_artifact_is_error_and_does_not_invalidate():
    req = request(2)
    verdict = verify_chain(req, translations=[prop(1, "Cat_rex ∧\n⊢ Cat_rex"), prop(2, GOOD)])
    assert verdict.step_verdicts[0].status is StepStatus.ERROR
    assert "line 1" in verdict.step_verdicts[0].error_message
    assert verdict.step_verdicts[1].status is StepStatus.VERIFIED


def test_checker_spec_recorded_for_replay():
    verdict = verify_chain(request(1), translations=[prop(1, GOOD)])
    spec = verdict.step_verdicts[0].checker_spec
    assert spec.name and spec.version


def test_translation_for_unknown_step_is_input_error():
    with pytest.raises(InputError):
        verify_chain(request(1), translations=[prop(5, GOOD)])


def test_smtlib_whale_from_the_plan_verifies_at_formal_level():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "examples"
    req = VerifyRequest.model_validate_json((root / "whale-smtlib.json").read_text())
    translations = [StepTranslation.model_validate(t) for t in json.loads((root / "whale-smtlib.translations.json").read_text())]
    verdict = verify_chain(req, translations=translations, limits=CheckLimits(timeout_s=20))
    assert verdict.overall is Overall.VERIFIED, verdict.step_verdicts[0].error_message
