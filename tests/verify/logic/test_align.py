"""The logic aligner (verify/logic/align.py): fol, propositional and smtlib artifacts tied to what the step says.

Positive controls first (honest chains and honest supplied artifacts stay verified, with evidence), then each way
an artifact could be verified for a claim it does not prove.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasonforge import StepTranslation, VerifyRequest, verify_chain
from reasonforge.lang.logic import canonical, parse_formula
from reasonforge.translate.logic import LogicTranslator
from reasonforge.types import (
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    ProofLevel,
    ReasoningStep,
    StepContext,
    StepStatus,
)
from reasonforge.verify.logic import align, entails, read_context

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
V, F, U = StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.UNSUPPORTED


def verify(query: str, steps: list[str], artifacts: list[tuple[str, str]] | None = None, *,
           level: str = "standard", deps: list[list[int]] | None = None):
    """The verdict of a chain; `artifacts` are (language, text) per step, in order (None: the offline translator)."""
    chain = [{"step_id": i + 1, "content": c} for i, c in enumerate(steps)]
    for i, d in enumerate(deps or []):
        chain[i]["dependencies"] = d
    body: dict = {"domain": "logic", "original_query": query, "proof_level": level, "reasoning_chain": chain}
    if artifacts is not None:
        body["translations"] = [{"step_id": i + 1, "language": lang, "formal_representation": text}
                                for i, (lang, text) in enumerate(artifacts)]
    return verify_chain(VerifyRequest.model_validate(body), limits=CheckLimits(timeout_s=10))


def statuses(verdict) -> list[StepStatus]:
    return [v.status for v in verdict.step_verdicts]


# ------------------------------------------------------------------------------------- positive controls

CATS = "Every cat is a feline. Every feline is a carnivore. Tom is a cat."


@pytest.mark.parametrize("level", ["quick", "standard", "formal"])
def test_the_offline_translators_chains_stay_verified_with_the_readers_claim(level):
    verdict = verify(CATS, ["Tom is a feline.", "Tom is a carnivore."], level=level)
    assert statuses(verdict) == [V, V], [v.error_message for v in verdict.step_verdicts]
    evidence = verdict.step_verdicts[1].evidence
    assert (evidence.kind, evidence.aligned_claim, evidence.formaliser, evidence.supplied_by) == (
        "claim", "Carnivore(tom)", "offline_reader", "proof")
    assert verdict.step_verdicts[1].evidence.aligned_claim == "Carnivore(tom)"


def test_a_step_restating_givens_and_concluding_is_verified():
    verdict = verify(CATS, ["Every cat is a feline. Therefore Tom is a feline."])
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message


@pytest.mark.parametrize("level", ["quick", "standard"])
def test_a_universal_claim_grounded_with_a_skolem_constant_aligns(level):
    verdict = verify(CATS, ["Every cat is a carnivore."], level=level)
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message
    if level == "quick":
        assert verdict.step_verdicts[0].details["language"] == "propositional"


def test_an_existential_given_grounded_at_quick_level_is_a_witness():
    verdict = verify("Some cat is red. Every red thing is big.", ["Some cat is big."], level="quick")
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message
    assert verdict.step_verdicts[0].details["language"] == "propositional"


def test_an_honest_supplied_fol_artifact_is_verified_as_the_artifacts_formalisation():
    artifact = "∀x (Cat(x) → Feline(x))\n∀y (Feline(y) → Carnivore(y))\nCat(tom)\n⊢ Carnivore(tom) ∧ Feline(tom)"
    verdict = verify(CATS, ["Tom is a feline and a carnivore."], [("fol", artifact)])
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message
    assert verdict.step_verdicts[0].evidence.formaliser == "artifact"


def test_a_premise_entailed_by_the_givens_is_grounded():
    artifact = "∀x (Cat(x) → Carnivore(x))\nCat(tom)\n⊢ Carnivore(tom)"  # the first line is not a given, but follows
    verdict = verify(CATS, ["Tom is a carnivore."], [("fol", artifact)])
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message
    assert verdict.step_verdicts[0].details["provenance"] == {"theory": 1, "entailed": 1, "own_individuals": 0,
                                                              "derived_premises": 0, "assumed_premises": 0}


def test_an_ancestors_claim_may_be_a_premise():
    verdict = verify(CATS, ["Tom is a feline.", "Tom is a carnivore."],
                     [("fol", "Cat(tom)\n∀x (Cat(x) → Feline(x))\n⊢ Feline(tom)"),
                      ("fol", "Feline(tom)\n∀x (Feline(x) → Carnivore(x))\n⊢ Carnivore(tom)")])
    assert statuses(verdict) == [V, V], [v.error_message for v in verdict.step_verdicts]


def test_an_artifacts_own_witness_for_an_existential_given():
    artifact = "Cat(c1) ∧ Red(c1)\n∀x (Red(x) → Big(x))\n⊢ ∃x (Cat(x) ∧ Big(x))"
    verdict = verify("Some cat is red. Every red thing is big.", ["Some cat is big."], [("fol", artifact)])
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message


def test_an_arbitrary_element_proves_a_universal_claim():
    # The plan's style: assume an arbitrary whale w and prove it warm-blooded (the deduction theorem).
    artifact = "∀x (Mammal(x) → WarmBlooded(x))\n∀x (Whale(x) → Mammal(x))\nWhale(w)\n⊢ WarmBlooded(w)"
    query = "All mammals are warm-blooded. Whales are mammals. Moby is a whale."
    verdict = verify(query, ["Therefore whales are warm-blooded."], [("fol", artifact)])
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message


WHALES = "All whales are mammals. All mammals are warm-blooded. Moby is a whale."


def test_an_artifact_proving_the_conclusion_is_verified_once_the_supporting_claims_are_checked():
    # A model writes the step's reasoning, not its supporting sentence: the aligner checks that sentence itself.
    verdict = verify(WHALES, ["Moby is a whale and all whales are mammals, so Moby is a mammal.",
                              "Since all mammals are warm-blooded, Moby is warm-blooded."],
                     [("fol", "∀x (Whale(x) → Mammal(x))\nWhale(moby)\n⊢ Mammal(moby)"),
                      ("fol", "∀x (Mammal(x) → WarmBlooded(x))\nMammal(moby)\n⊢ WarmBlooded(moby)")], deps=[[], [1]])
    assert statuses(verdict) == [V, V], [v.error_message for v in verdict.step_verdicts]
    first, second = verdict.step_verdicts
    assert first.evidence.aligned_claim == "Whale(moby) ∧ (∀x (Whale(x) → Mammal(x))) ∧ Mammal(moby)"  # the whole
    assert first.details["provenance"]["derived_premises"] == 1
    assert "derived premise(s) follow from the givens" in first.evidence.note
    assert second.evidence.aligned_claim == "(∀x (Mammal(x) → WarmBlooded(x))) ∧ WarmBlooded(moby)"


@pytest.mark.parametrize("level", ["quick", "standard", "formal"])
def test_a_supporting_claim_entailed_but_not_given_may_be_the_artifacts_premise(level):
    # "Every cat is a carnivore" is no given but follows from two; once checked, the artifact may build on it.
    language, artifact = (("propositional", "Cat_tom\nCat_tom → Carnivore_tom\n⊢ Carnivore_tom") if level == "quick"
                          else ("fol", "∀x (Cat(x) → Carnivore(x))\nCat(tom)\n⊢ Carnivore(tom)"))
    verdict = verify(CATS, ["Every cat is a carnivore. So Tom is a carnivore."], [(language, artifact)], level=level)
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message
    assert verdict.step_verdicts[0].details["provenance"]["theory"] == 2  # the rule (or its instance) and Cat(tom)


@pytest.mark.parametrize(("query", "content", "artifact", "sentence"), [
    ("All whales are mammals. Moby is a whale.", "Moby is a fish and all fish are mammals, so Moby is a mammal.",
     "Fish(moby)\n∀x (Fish(x) → Mammal(x))\n⊢ Mammal(moby)", "Moby is a fish and all fish are mammals"),
    ("Tom is a cat.", "Since every cat is a bird, Tom is a bird.", "∀x (Cat(x) → Bird(x))\nCat(tom)\n⊢ Bird(tom)",
     "every cat is a bird"),
    ("Tom is a cat.", "Tom is a cat. Every cat is a dog. So Tom is a dog.", "Cat(tom)\nCat(tom) → Dog(tom)\n⊢ Dog(tom)",
     "Every cat is a dog."),
])
def test_an_unstated_supporting_claim_is_an_assumption_of_conditional_evidence(query, content, artifact, sentence):
    # (was: failed naming the sentence; the assumption rule: what the step states and nothing gives, derives or
    # contradicts is assumed, the step verified as an inference from it, the chain not VERIFIED)
    verdict = verify(query, [content], [("fol", artifact)])
    step = verdict.step_verdicts[0]
    assert step.status is V, step.error_message
    assert step.evidence.kind == "conditional" and step.evidence.assumptions == [sentence]
    assert verdict.overall == "PARTIAL" and verdict.assurance == "conditional"


def test_a_supporting_claim_that_alone_gives_the_conclusion_proves_nothing():
    step = verify("Tom is a cat.", ["Some cat is a dog. Therefore something is a dog."],
                  [("fol", "Cat(c1) ∧ Dog(c1)\n⊢ ∃x Dog(x)")]).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.ASSUMED_CONCLUSION, step.error_message


def test_a_supporting_claim_the_givens_contradict_fails_the_step_naming_its_sentence():
    step = verify("Tom is a cat. No cat is a bird.", ["Since every cat is a bird, Tom is a bird."],
                  [("fol", "∀x (Cat(x) → Bird(x))\nCat(tom)\n⊢ Bird(tom)")]).step_verdicts[0]
    assert step.status is F and step.error_kind is ErrorKind.CONTRADICTED_PREMISE, step.error_message
    assert 'premise "every cat is a bird"' in step.error_message and step.details["sentence"] == "every cat is a bird"
    assert step.details["checker_status"] == "verified"


def test_an_assumption_is_only_unsupported_when_a_given_could_not_be_read():
    step = verify("Tom is a cat. Tom chased the mailman yesterday.", ["Since every cat is a bird, Tom is a bird."],
                  [("fol", "∀x (Cat(x) → Bird(x))\nCat(tom)\n⊢ Bird(tom)")]).step_verdicts[0]
    assert step.status is U and "is not read" in step.error_message


def test_contradictory_givens_do_not_establish_a_supporting_claim():
    # (was failed: contradictory givens are a defect of the question; nothing is verified from them, nothing refuted)
    step = verify("Tom is a cat. Tom is not a cat.", ["Every cat is a dog. So Tom is a dog."],
                  [("fol", "Cat(tom)\n∀x (Cat(x) → Dog(x))\n⊢ Dog(tom)")]).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.VACUOUS and "contradict each other" in step.error_message


def test_true_supporting_claims_do_not_excuse_the_conclusion():
    # The reading refutes "So Tom is a dog." whatever the artifact: an artifact that is not the step's (a tautology,
    # the supporting claim restated, the conclusion smuggled in) leaves it failed, not merely unsupported.
    query, content = "Tom is a cat. Every cat is a feline.", "Every cat is a feline. So Tom is a dog."
    for artifact in ("∀x (Cat(x) → Feline(x))\n⊢ Dog(tom) ∨ ¬Dog(tom)", "∀x (Cat(x) → Feline(x))\n⊢ ∀x (Cat(x) → Feline(x))",
                     "∀x (Cat(x) → Feline(x))\nDog(tom)\n⊢ Dog(tom)"):
        step = verify(query, [content], [("fol", artifact)]).step_verdicts[0]
        assert step.status is F and step.error_kind is ErrorKind.COUNTEREXAMPLE, (artifact, step.error_message)
    assert "the step concludes Dog(tom)" in verify(query, [content], [("fol", "⊢ Dog(tom) ∨ ¬Dog(tom)")]
                                                   ).step_verdicts[0].error_message


def test_an_artifact_proving_the_whole_claim_from_the_steps_own_premise_is_conditional():
    # (was failed: its premise, the step's supporting sentence, is no given; it is now an assumption)
    artifact = "Cat(tom)\n∀x (Cat(x) → Dog(x))\n⊢ (∀x (Cat(x) → Dog(x))) ∧ Dog(tom)"
    step = verify("Tom is a cat.", ["Every cat is a dog. Therefore Tom is a dog."], [("fol", artifact)]).step_verdicts[0]
    assert step.status is V and step.evidence.assumptions == ["Every cat is a dog."], step.error_message


# ------------------------------------------------------------------------- naming a failed sentence


@pytest.mark.parametrize("level", ["quick", "standard", "formal"])
def test_the_failed_step_names_its_first_sentence_that_does_not_follow(level):
    step = verify("Tom is a cat. Every cat is an animal.", ["Therefore Tom is an animal. Therefore Tom is a bird."],
                  level=level).step_verdicts[0]
    assert step.status is F, step.error_message
    assert step.details["sentence"] == "Tom is a bird."
    assert 'the step\'s conclusion "Tom is a bird." does not follow' in step.error_message


def test_a_failed_artifact_stands_only_when_the_reading_refutes_the_step():
    # the reading refutes "So Tom is a bird." whatever artifact failed, and names the sentence
    supplied = verify("Tom is a cat.", ["Tom is a cat. So Tom is a bird."],
                      [("fol", "Cat(tom)\n⊢ Bird(tom)")]).step_verdicts[0]
    assert supplied.status is F and supplied.details["sentence"] == "Tom is a bird."
    # an artifact that fails while the step's inference holds as read is not the step's inference
    holds = verify("Tom is a cat. Every cat is a bird.", ["Tom is a cat. So Tom is a bird."],
                   [("fol", "Cat(tom)\n⊢ Bird(tom)")]).step_verdicts[0]
    assert holds.status is U and holds.error_kind is ErrorKind.UNALIGNED and "refutes nothing" in holds.error_message


@pytest.mark.parametrize("name", ["whale", "six-step-chain", "affirming-the-consequent", "whale-assumed"])
def test_examples_keep_their_verdicts(name):
    request = VerifyRequest.model_validate_json((EXAMPLES / f"{name}.json").read_text())
    expected = {"whale": [V], "six-step-chain": [V, V, F, F, F, V], "affirming-the-consequent": [V, F],
                "whale-assumed": [V]}[name]
    verdict = verify_chain(request, limits=CheckLimits(timeout_s=10))
    got = [v.status for v in verdict.step_verdicts]
    # the six-step chain's steps 4 and 5 are invalidated by step 3's failure (a cascade, not their own verdict)
    assert [s if s is not StepStatus.INVALIDATED else F for s in got] == expected, verdict.step_verdicts


def test_the_plans_smtlib_whale_aligns_in_the_readings_names_and_is_refused_in_its_own():
    for name, expected in (("whale-smtlib", V), ("whale-smtlib-unaligned", U)):
        request = VerifyRequest.model_validate_json((EXAMPLES / f"{name}.json").read_text())
        translations = [StepTranslation.model_validate(t)
                        for t in json.loads((EXAMPLES / f"{name}.translations.json").read_text())]
        verdict = verify_chain(request, translations=translations, limits=CheckLimits(timeout_s=20))
        step = verdict.step_verdicts[0]
        assert step.status is expected, step.error_message
    assert "IsWhale/1" in step.error_message and "Whale/1" in step.error_message


def test_an_honest_smtlib_artifact_with_its_own_sort_name():
    artifact = ("(declare-sort Thing 0)\n(declare-fun Cat (Thing) Bool)\n(declare-fun Feline (Thing) Bool)\n"
                "(declare-const tom Thing)\n(assert (forall ((x Thing)) (=> (Cat x) (Feline x))))\n(assert (Cat tom))\n"
                "(assert (not (Feline tom)))\n(check-sat)")
    verdict = verify(CATS, ["Tom is a feline."], [("smtlib", artifact)])
    assert statuses(verdict) == [V], verdict.step_verdicts[0].error_message


# ---------------------------------------------------------------------------------------- the refusals


def test_the_conclusion_smuggled_in_as_a_premise_is_refused_naming_it():
    # "Rex is a dog." claims no inference: what nothing gives, derives or contradicts is assumed, never refuted
    # (was failed); the smuggled premise is named and the step unsupported
    verdict = verify("Rex is a cat.", ["Rex is a dog."], [("fol", "Dog(rex)\n⊢ Dog(rex)")])
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNGROUNDED_PREMISE
    assert "line 1: Dog(rex)" in step.error_message
    assert step.details["checker_status"] == "verified" and step.details["ungrounded_premise_lines"] == [1]
    # "So Rex is a dog." claims that it follows: the reading refutes it, the smuggled premise named beside
    step = verify("Rex is a cat.", ["So Rex is a dog."], [("fol", "Dog(rex)\n⊢ Dog(rex)")]).step_verdicts[0]
    assert step.status is F and step.error_kind is ErrorKind.COUNTEREXAMPLE and "line 1: Dog(rex)" in step.error_message


def test_an_ungrounded_premise_is_only_unsupported_when_a_given_could_not_be_read():
    verdict = verify("Rex is a cat. Rex chased the mailman yesterday.", ["Rex is a dog."],
                     [("fol", "Dog(rex)\n⊢ Dog(rex)")])
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNGROUNDED_PREMISE
    assert "is not read" in step.error_message


def test_an_unrelated_tautology_under_an_unreadable_claim_is_unsupported():
    verdict = verify("What is 2 + 2?", ["2 + 2 = 5"], [("smtlib", "(declare-const p Bool)\n(assert (not (or p (not p))))")])
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNREADABLE_CLAIM
    assert "cannot translate" in step.error_message


def test_excluded_middle_at_quick_never_verifies_a_contingent_claim():
    for artifact in ("⊢ p ∨ ¬p", "⊢ Bird_rex ∨ ¬Bird_rex", "Bird_rex\n⊢ Bird_rex ∨ ¬Bird_rex"):
        verdict = verify("Rex is a bird.", ["Rex is a bird."], [("propositional", artifact)], level="quick")
        step = verdict.step_verdicts[0]
        assert step.status is U and step.error_kind is ErrorKind.UNALIGNED, (artifact, step.error_message)


def test_a_renamed_predicate_is_a_vocabulary_mismatch_naming_the_names():
    verdict = verify(CATS, ["Tom is a feline."], [("fol", "Cat(tom)\n∀x (Cat(x) → Felid(x))\n⊢ Felid(tom)")])
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNALIGNED
    assert "'Felid/1' are not in the reading" in step.error_message and "'Feline/1'" in step.error_message


def test_the_converse_is_not_the_claim():
    artifact = "∀x (Feline(x) → Cat(x))\n⊢ ∀x (Feline(x) → Cat(x))"
    verdict = verify("Every feline is a cat.", ["Every cat is a feline."], [("fol", artifact)])
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNALIGNED
    assert "does not imply the claim" in step.error_message
    assert step.details["aligned_with"] == "∀x (Cat(x) → Feline(x))"


def test_a_dropped_conjunct_is_not_the_claim():
    verdict = verify(CATS, ["Tom is a feline and Tom is a dog."],
                     [("fol", "Cat(tom)\n∀x (Cat(x) → Feline(x))\n⊢ Feline(tom)")])
    assert statuses(verdict) == [U]


def test_a_stronger_conclusion_from_an_unread_premise_is_not_verified():
    # "more than the step claims" only passes when the givens make them equivalent; here a premise is not given
    verdict = verify("Tom is a cat. Rex is a dog.", ["Tom is a cat."], [("fol", "Cat(tom)\nDog(tom)\n⊢ Cat(tom) ∧ Dog(tom)")])
    step = verdict.step_verdicts[0]
    assert step.status is U and "claims more than the step does" in step.error_message


def test_a_quantifier_swap_is_not_the_claim():
    artifact = "∃x Cat(x)\n⊢ ∃x Cat(x)"
    verdict = verify("Some animal is a cat.", ["Every animal is a cat."], [("fol", artifact)])
    assert statuses(verdict) == [U]


def test_contradictory_givens_ground_nothing_by_entailment():
    # (was failed: a defect of the question refutes no step; nothing is verified from it)
    verdict = verify("Rex is a cat. Rex is not a cat.", ["Rex is a dog."], [("fol", "Dog(rex)\n⊢ Dog(rex)")])
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.VACUOUS and "contradict each other" in step.error_message


def test_an_own_individual_without_a_given_that_it_exists_is_ungrounded():
    artifact = "Dog(d1)\n∀x (Dog(x) → Animal(x))\n⊢ ∃x Animal(x)"
    verdict = verify("Every dog is an animal.", ["Some animal exists."], [("fol", artifact)])
    assert statuses(verdict) != [V]
    verdict = verify("Every dog is an animal.", ["Something is an animal."], [("fol", artifact)])
    step = verdict.step_verdicts[0]
    assert step.status is U and "line 1: Dog(d1)" in step.error_message  # an assumed statement: not refuted
    verdict = verify("Every dog is an animal.", ["So something is an animal."], [("fol", artifact)])
    step = verdict.step_verdicts[0]
    assert step.status is F and "line 1: Dog(d1)" in step.error_message  # an inference that does not follow


def test_a_non_ancestor_steps_claim_is_not_a_premise():
    verdict = verify("Rex is a cat.", ["Rex is a dog.", "Rex is a dog."],
                     [("fol", "Cat(rex)\n⊢ Cat(rex) ∨ Dog(rex)"), ("fol", "Dog(rex)\n⊢ Dog(rex)")], deps=[[], []])
    step = verdict.step_verdicts[1]
    assert step.status is U and step.error_kind is ErrorKind.UNGROUNDED_PREMISE  # its own statement, no ancestor


def test_an_unreadable_claimed_conclusion_leaves_the_step_unsupported():
    request = VerifyRequest.model_validate({
        "domain": "logic", "original_query": "Rex is a cat.", "proof_level": "standard",
        "reasoning_chain": [{"step_id": 1, "content": "Rex is a cat.", "claimed_conclusion": "Rex is 3 + 4."}],
        "translations": [{"step_id": 1, "language": "fol", "formal_representation": "Cat(rex)\n⊢ Cat(rex)"}]})
    step = verify_chain(request).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNREADABLE_CLAIM and "claimed_conclusion" in step.error_message


SMT_HEAD = "(declare-sort U 0)\n(declare-fun Dog (U) Bool)\n(declare-fun Cat (U) Bool)\n(declare-const rex U)\n"


@pytest.mark.parametrize(("artifact", "words"), [
    (SMT_HEAD + "(assert (or (Dog rex) (> 1 2)))\n(assert (not (Dog rex)))", "theory symbol"),
    (SMT_HEAD + "(declare-const n Int)\n(assert (=> (= n n) (Dog rex)))\n(assert (not (Dog rex)))", "sort Int"),
    (SMT_HEAD + "(declare-sort V 0)\n(declare-fun P (V) Bool)\n(declare-const v V)\n(assert (=> (P v) (Dog rex)))\n"
     "(assert (P v))\n(assert (not (Dog rex)))", "second sort"),
    (SMT_HEAD + "(declare-fun f (U) U)\n(assert (Dog (f rex)))\n(assert (forall ((x U)) (=> (Dog (f x)) (Dog x))))\n"
     "(assert (not (Dog rex)))", "compound term"),
])
def test_smtlib_outside_the_readings_logic_is_refused_naming_what(artifact, words):
    verdict = verify("Rex is a cat.", ["Rex is a dog."], [("smtlib", artifact)])
    step = verdict.step_verdicts[0]
    assert step.status is not V and words in (step.error_message or ""), step.error_message


def test_an_earlier_negated_assert_is_a_premise_whose_provenance_is_checked():
    artifact = SMT_HEAD + "(assert (not (Cat rex)))\n(assert (Dog rex))\n(assert (not (Dog rex)))"
    verdict = verify("Rex is a cat.", ["Rex is a dog."], [("smtlib", artifact)])
    assert statuses(verdict) == [U] and "line 5" in verdict.step_verdicts[0].error_message


def test_push_pop_leaves_only_the_final_stack_to_align():
    artifact = SMT_HEAD + "(push 1)\n(assert (Dog rex))\n(pop 1)\n(assert (Cat rex))\n(assert (not (Dog rex)))"
    verdict = verify("Rex is a cat.", ["So Rex is a dog."], [("smtlib", artifact)])
    assert statuses(verdict) == [F]  # the checker itself: Cat(rex) does not give Dog(rex), nor does the reading


# ----------------------------------------------------------------------------------- direct calls


def context(query: str, content: str, ancestors: list[str] = (), **extra) -> StepContext:
    steps = [ReasoningStep(step_id=i + 1, content=c) for i, c in enumerate(ancestors)]
    return StepContext(step_id=len(steps) + 1, content=content, original_query=query, ancestors=steps,
                       domain="logic", proof_level=ProofLevel.STANDARD, **extra)


def test_read_context_reads_givens_ancestors_and_the_whole_claim():
    reading = read_context(context(CATS, "Every cat is a feline. So Tom is a feline.", ["Tom is a cat."]))
    assert len(reading.givens) == 3 and reading.ancestor_claims == (parse_formula("Cat(tom)"),)
    assert canonical(reading.claim) == canonical(parse_formula("(∀x (Cat(x) → Feline(x))) ∧ Feline(tom)"))
    assert reading.error is None and reading.gaps == ()


def test_an_error_or_unsupported_outcome_is_not_touched_and_a_failure_is_judged_by_the_reading():
    ctx = context("Rex is a cat.", "Rex is a dog.")
    translation = StepTranslation(step_id=1, language="fol", formal_representation="Dog(rex)\n⊢ Dog(rex)")
    for status in (StepStatus.ERROR, StepStatus.UNSUPPORTED):
        outcome = CheckOutcome(status=status, message="m")
        assert align(ctx, translation, outcome, CheckLimits()) == outcome
    # "Rex is a dog." states, infers nothing: a failed artifact does not refute it
    failed = align(ctx, translation, CheckOutcome(status=StepStatus.FAILED, message="m"), CheckLimits())
    assert failed.status is StepStatus.UNSUPPORTED and failed.error_kind is ErrorKind.ASSUMED_CONCLUSION


def test_a_failed_outcome_keeps_its_details_when_the_reading_refutes_the_step():
    ctx = context("Tom is a cat.", "Tom is a cat. So Tom is a bird.")
    translation = StepTranslation(step_id=1, language="fol", formal_representation="Cat(tom)\n⊢ Cat(tom) ∧ Bird(tom)")
    outcome = CheckOutcome(status=StepStatus.FAILED, message="m", details={"counterexample": "x"})
    named = align(ctx, translation, outcome, CheckLimits())
    assert named.status is StepStatus.FAILED and named.details["counterexample"] == "x"
    assert named.message.endswith("the checker: m") and named.details["sentence"] == "Tom is a bird."


@pytest.mark.parametrize(("query", "content", "ancestors"), [
    (CATS, "Every cat is a feline. So Tom is a feline.", ["Tom is a cat."]),
    ("Ｒｅｘ is a cat. No cat is a dog.", "Since ｒｅｘ is a cat, Rex is not a dog.", []),  # full-width: NFKC
    ("Wumpuses are not hot. Max is a wumpus.", "Max is a wumpus. So Max is not hot.", ["Max is a wumpus."]),
])
def test_the_aligners_reading_is_the_translators(query, content, ancestors):
    ctx = context(query, content, ancestors)
    reading, scope = read_context(ctx), LogicTranslator().read_context(ctx)
    assert reading.givens == scope.givens.formulas and set(reading.ancestor_claims) == set(scope.inherited)
    assert reading.claim == scope.reading.claim and reading.conclusion == scope.reading.conclusion
    assert [p.formula for p in reading.supports] == list(scope.reading.premises)
    assert reading.scope.inference == scope.inference


def test_canonical_forms_ignore_bound_names_and_bracketing():
    assert canonical(parse_formula("∀x (P(x) ∧ (Q(x) ∧ R(x)))")) == canonical(parse_formula("∀y (P(y) ∧ Q(y) ∧ R(y))"))
    assert canonical(parse_formula("∀x P(x)")) != canonical(parse_formula("∃x P(x)"))


# ---------------------------------------------------------------------------- a property: no false VERIFIED

GIVENS = "Rex is a cat. Every cat is an animal. Tom is a dog."
CLAIMS = ["Rex is an animal.", "Rex is a dog.", "Tom is an animal.", "Tom is a dog.", "Rex is a cat or Rex is a dog.",
          "Every dog is an animal.", "Something is a cat.", "Rex is not a dog.", "Every cat is an animal.",
          # supporting claims, true and false, before a conclusion the artifact may prove alone
          "Every dog is an animal. So Tom is an animal.", "Rex is a dog. So Rex is an animal.",
          "Since every cat is an animal, Rex is an animal.", "Since Rex is a dog, Rex is an animal.",
          "Tom is a dog and every dog is an animal, so Tom is an animal."]
ATOMS = ["Cat(rex)", "Dog(rex)", "Animal(rex)", "Cat(tom)", "Dog(tom)", "Animal(tom)", "Cat(w)", "Animal(w)", "Dog(w)"]
GIVEN = ["Cat(rex)", "∀x (Cat(x) → Animal(x))", "Dog(tom)"]
POOL = ["∀x (Dog(x) → Animal(x))", "Dog(rex)", "Cat(w)", "Dog(w)", "∃x Cat(x)", "Animal(tom)", "w = rex", "Animal(rex)"]


def formulas(depth: int = 2):
    leaf = st.sampled_from(ATOMS + ["∀x (Cat(x) → Animal(x))", "∃x Cat(x)", "∀x (Dog(x) → Animal(x))"])
    return st.recursive(leaf, lambda inner: st.one_of(
        inner.map(lambda a: f"¬({a})"),
        st.tuples(inner, inner, st.sampled_from(["∧", "∨", "→"])).map(lambda t: f"({t[0]}) {t[2]} ({t[1]})"),
    ), max_leaves=4)


# Near misses of the claims' readings, so that many artifacts are verified by the checker and the gate decides.
NEAR = ["Animal(rex)", "¬¬Animal(rex)", "Animal(rex) ∧ Cat(rex)", "Animal(rex) ∨ Dog(rex)", "Cat(rex) ∨ Dog(rex)",
        "Dog(rex) ∨ Cat(rex)", "∀y (Dog(y) → Animal(y))", "Animal(w)", "Cat(w) → Animal(w)", "∃x Cat(x)", "Cat(w)",
        "¬Dog(rex)", "Animal(tom)", "Dog(tom) ∧ Animal(tom)", "Dog(rex)", "Dog(w) → Animal(w)", "∀x (Cat(x) → Animal(x))",
        "Dog(tom)", "Cat(rex) ∧ (Dog(rex) ∨ ¬Dog(rex))", "∃x Animal(x)"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claim=st.sampled_from(CLAIMS), given_lines=st.lists(st.sampled_from(GIVEN), unique=True),
       extra=st.lists(st.sampled_from(POOL), max_size=2, unique=True), conclusion=st.one_of(st.sampled_from(NEAR), formulas()))
def test_whatever_the_artifact_a_verified_step_claims_what_the_givens_entail(claim, given_lines, extra, conclusion):
    """No false VERIFIED: a step verified on claim evidence asserts what the givens entail, one verified on
    conditional evidence what they entail with the step's own uncontradicted premises it names; no false
    refutation: a failed step's conclusion does not follow from the givens and its own premises."""
    artifact = "\n".join([*given_lines, *extra, "⊢ " + conclusion])
    step = verify(GIVENS, [claim], [("fol", artifact)]).step_verdicts[0]
    reading = read_context(context(GIVENS, claim))
    givens = list(reading.givens)
    supports = {part.text: part.formula for part in reading.supports}
    if step.status is StepStatus.VERIFIED and step.evidence.kind == "claim":
        assert entails(givens, reading.claim).status == "entailed", (claim, artifact)
    elif step.status is StepStatus.VERIFIED:
        assumed = [supports[text] for text in step.evidence.assumptions]
        assert step.evidence.kind == "conditional" and assumed, (claim, artifact)
        assert entails([*givens, *assumed], reading.claim).status == "entailed", (claim, artifact)
        for premise in assumed:
            assert entails(givens, premise).status == "not_entailed", (claim, artifact)
            assert entails([*givens, premise], reading.claim).status != "vacuous", (claim, artifact)
    elif step.status is StepStatus.FAILED:
        inference = entails([*givens, *supports.values()], reading.conclusion).status
        assert inference in ("not_entailed", "vacuous"), (claim, artifact, step.error_message)
