"""Which translations held: decisions against the null verdict, the deciders' majority, a trap's truth."""

from __future__ import annotations

from reasonforge.chain import build_verdict
from reasonforge.subnet.credit import Credit, Reference, consensus_reference, credit, decisions, truth_reference
from reasonforge.types import (
    Domain,
    Evidence,
    EvidenceKind,
    Formaliser,
    ProofLevel,
    StepStatus,
    StepVerdict,
    VerificationVerdict,
)

V, F, I, U = StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.INVALIDATED, StepStatus.UNSUPPORTED
PROVEN = Evidence(kind=EvidenceKind.CLAIM, aligned_claim="c", formaliser=Formaliser.OFFLINE_READER)


def verdict(*statuses: StepStatus) -> VerificationVerdict:
    """A verdict whose step i + 1 has statuses[i]."""
    steps = [StepVerdict(step_id=i + 1, verified=s is V, status=s, evidence=PROVEN if s is V else None)
             for i, s in enumerate(statuses)]
    return build_verdict(steps, domain=Domain.LOGIC, proof_level=ProofLevel.QUICK, task_id="t")


# The six-step chain at quick level, as the localnet's miners' artifacts verify it: step 3 is refuted by the
# English reader whatever the artifact (the null verdict refutes it too), steps 4 and 5 are invalidated by it.
HONEST = verdict(V, V, F, I, I, V)
LAZY = verdict(V, V, F, I, I, U)  # translated steps 1-3 only
VACUOUS = verdict(U, U, F, I, I, U)
NULL = VACUOUS  # what artifacts that prove nothing get, in the same languages


def test_a_step_is_decided_only_where_the_artifact_made_the_difference():
    assert decisions(HONEST, NULL, range(1, 7)) == {1: V, 2: V, 6: V}  # step 3 is the reader's refutation
    assert decisions(LAZY, NULL, [1, 2, 3]) == {1: V, 2: V}
    assert decisions(VACUOUS, NULL, range(1, 7)) == {}
    # without a null (the simulator's model) a refutation is the artifact's own
    assert decisions(HONEST, None, range(1, 7)) == {1: V, 2: V, 3: F, 6: V}
    assert decisions(HONEST, NULL, [1]) == {1: V}  # untranslated steps decide nothing


def test_the_deciders_majority_is_the_reference_and_abstainers_do_not_outvote_a_proof():
    mine = [decisions(HONEST, NULL, range(1, 7)), decisions(LAZY, NULL, [1, 2, 3]), decisions(VACUOUS, NULL, range(1, 7))]
    reference = consensus_reference(mine)
    # step 6: only the honest miner decided it; the lazy and vacuous miners abstain instead of voting it down
    assert reference == {1: Reference.HOLDS, 2: Reference.HOLDS, 6: Reference.HOLDS}
    compiled = dict.fromkeys(range(1, 7), True)
    assert credit(mine[0], 6, compiled, reference) == Credit(translated=6, decided=3, held=3, compiled_held=3)
    assert credit(mine[1], 3, compiled, reference) == Credit(translated=3, decided=2, held=2, compiled_held=2)
    assert credit(mine[2], 6, compiled, reference) == Credit(translated=6, decided=0, held=0, compiled_held=0)
    # a verdict against the majority is decided but does not hold
    split = consensus_reference([{1: V}, {1: V}, {1: F}])
    assert split == {1: Reference.HOLDS}
    assert credit({1: F}, 1, {1: True}, split) == Credit(translated=1, decided=1, held=0, compiled_held=0)
    assert consensus_reference([{1: V}, {1: F}]) == {1: Reference.OPEN}


def test_on_a_trap_only_the_truth_counts_and_only_refuted_steps_hold_a_refutation():
    # a perturbed GSM8K solution: step 1's result changed, steps 2-4 rest on it
    truth = truth_reference({1: False, 2: False, 3: False, 4: False}, [1])
    assert truth == {1: Reference.FAILS, 2: Reference.OPEN, 3: Reference.OPEN, 4: Reference.OPEN}
    assert credit({1: F}, 4, dict.fromkeys(range(1, 5), True), truth).held == 1
    assert credit({1: V, 2: F}, 4, dict.fromkeys(range(1, 5), True), truth).held == 0
    # a held step counts toward Compilation only when the checker accepted its artifact as compiled
    assert credit({1: F}, 4, {1: False}, truth) == Credit(translated=4, decided=1, held=1, compiled_held=0)
