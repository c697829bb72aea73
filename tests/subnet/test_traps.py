"""Trap tasks: the committed set loads, its ground truth re-verifies, and trap scores count matching steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.pipeline.run import verify_chain
from reasonforge.subnet.miner import vacuous_translations
from reasonforge.subnet.traps import (
    TRAPS_PATH,
    Trap,
    load_traps,
    step_flags,
    trap_score,
)
from reasonforge.translate.engine import TranslationEngine
from reasonforge.types import (
    Domain,
    Overall,
    ProofLevel,
    StepStatus,
    StepVerdict,
    VerificationVerdict,
)

REPO = TRAPS_PATH.parents[2]


def _verdict(trap: Trap, flags: dict[int, bool]) -> VerificationVerdict:
    steps = [StepVerdict(step_id=sid, verified=ok, status=StepStatus.VERIFIED if ok else StepStatus.FAILED)
             for sid, ok in flags.items()]
    verified = sum(flags.values())
    overall = Overall.VERIFIED if verified == len(flags) else Overall.PARTIAL if verified else Overall.FAILED
    return VerificationVerdict(task_id="t", overall=overall, step_verdicts=steps, total_steps=len(steps),
                               verified_steps=verified, domain=trap.request.domain,
                               proof_level=trap.request.proof_level)


def test_committed_traps_cover_every_domain_and_kind_with_consistent_truth() -> None:
    traps = load_traps()
    assert 20 <= len(traps) <= 60
    # No FOLIO trap: a logic step's refutation is the English reader's whatever the artifact, so a vacuous miner
    # reproduced every FOLIO ground truth and the builder drops such traps (they cannot test a translation).
    assert {t.kind for t in traps} == {"gsm8k-reference", "gsm8k-perturbed", "humaneval-canonical",
                                       "humaneval-mutant"}
    assert {t.request.domain for t in traps} == {Domain.MATHEMATICS, Domain.CODE}
    for trap in traps:
        assert trap.request.translations is None
        assert (REPO / trap.source).is_file(), trap.source
        flags = list(trap.step_verified.values())
        expected = Overall.VERIFIED if all(flags) else Overall.FAILED if not any(flags) else Overall.PARTIAL
        if trap.kind == "gsm8k-reference":  # every step verified, on the arithmetic inside its prose only
            expected = Overall.PARTIAL
        assert all(flags) or trap.kind != "gsm8k-reference", trap.trap_id
        assert trap.expected is expected, trap.trap_id
    # Both verdicts occur, so a miner cannot pass traps by always saying one thing.
    assert {t.expected for t in traps} >= {Overall.VERIFIED, Overall.FAILED}
    perturbed = [t for t in traps if t.kind == "gsm8k-perturbed"]
    for trap in perturbed:  # the label says where the slip is; the truth fails from exactly there
        step = int(trap.label.rsplit(" ", 1)[-1])
        assert next(sid for sid, ok in trap.step_verified.items() if not ok) == step


@pytest.mark.parametrize("kind", ["gsm8k-reference", "gsm8k-perturbed", "humaneval-canonical", "humaneval-mutant"])
def test_trap_ground_truth_reverifies(kind: str) -> None:
    trap = next(t for t in load_traps() if t.kind == kind)
    verdict = verify_chain(trap.request)
    assert verdict.overall is trap.expected
    assert step_flags(verdict) == trap.step_verified
    assert trap_score(trap, verdict) == 1.0


def test_trap_score_is_the_share_of_steps_matching_the_ground_truth() -> None:
    trap = next(t for t in load_traps() if t.kind == "gsm8k-perturbed" and 0 < sum(t.step_verified.values()))
    truth = trap.step_verified
    everything = dict.fromkeys(truth, True)  # a vacuous translator verifies every step
    assert trap_score(trap, _verdict(trap, everything)) == pytest.approx(sum(truth.values()) / len(truth))
    assert trap_score(trap, _verdict(trap, dict(truth))) == 1.0
    assert trap_score(trap, None) == 0.0
    first, *rest = truth
    only_first = {first: truth[first]}  # the steps a verdict does not mention count as not verified, not refuted
    expected = (1 + sum(1 for sid in rest if not truth[sid] and sid not in trap.step_refuted)) / len(truth)
    assert trap_score(trap, _verdict(trap, only_first)) == pytest.approx(expected)


def test_a_refuted_step_must_be_refuted_not_left_unproven() -> None:
    # A vacuous artifact is `unsupported` behind the soundness gate: that is no refutation of a false step.
    trap = next(t for t in load_traps() if t.kind == "gsm8k-perturbed")
    assert trap.step_refuted == [int(trap.label.rsplit(" ", 1)[-1])]
    unproven = _verdict(trap, dict(trap.step_verified))
    for sv in unproven.step_verdicts:
        if sv.step_id in trap.step_refuted:
            sv.status = StepStatus.UNSUPPORTED
    assert trap_score(trap, unproven) == pytest.approx(1 - 1 / len(trap.step_verified))
    assert trap_score(trap, _verdict(trap, dict(trap.step_verified))) == 1.0


@pytest.mark.parametrize("kind", ["gsm8k-reference", "gsm8k-perturbed", "humaneval-canonical", "humaneval-mutant"])
def test_a_vacuous_miner_never_reproduces_a_committed_trap(kind: str) -> None:
    # The builder keeps a trap only when the vacuous miner's artifacts miss its ground truth somewhere.
    engine = TranslationEngine()
    for trap in [t for t in load_traps() if t.kind == kind][:3]:
        vacuous = vacuous_translations(engine.translate_chain(trap.request))
        assert trap_score(trap, verify_chain(trap.request, vacuous)) < 1.0, trap.trap_id


def test_trap_flags_must_cover_exactly_the_chain_steps() -> None:
    trap = load_traps()[0]
    data = trap.model_dump(mode="json")
    data["step_verified"] = {"99": True}
    with pytest.raises(ValueError, match="step_verified covers steps"):
        Trap.model_validate(data)


def test_bad_trap_files_are_input_errors_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist.*build_traps"):
        load_traps(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"traps": [', encoding="utf-8")
    with pytest.raises(InputError, match="broken.json is invalid"):
        load_traps(broken)
    twice = tmp_path / "twice.json"
    one = json.loads(TRAPS_PATH.read_text(encoding="utf-8"))["traps"][0]
    twice.write_text(json.dumps({"traps": [one, one]}), encoding="utf-8")
    with pytest.raises(InputError, match="repeats trap ids"):
        load_traps(twice)


def test_trap_levels_are_recorded_per_trap() -> None:
    levels = {(t.request.domain, t.request.proof_level) for t in load_traps()}
    # Every committed trap is at quick now that no FOLIO trap survives the vacuous check (see above).
    assert levels == {(Domain.MATHEMATICS, ProofLevel.QUICK), (Domain.CODE, ProofLevel.QUICK)}
    assert (Domain.MATHEMATICS, ProofLevel.QUICK) in levels and (Domain.CODE, ProofLevel.QUICK) in levels
