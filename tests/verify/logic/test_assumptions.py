"""The assumption rule of the logic aligner: a premise a step states that nothing gives, derives or contradicts is an
assumption (the step verified on conditional evidence naming it), never a refutation; what the reading refutes
stays refuted; and the attacks on the rule (a premise that is the conclusion, premise steps, a failing artifact,
an invented premise, readings the reader did not choose) each kept as a test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reasonforge import VerifyRequest, verify_chain
from reasonforge.errors import ReasonForgeError
from reasonforge.types import Assurance, CheckLimits, ErrorKind, EvidenceKind, Overall, StepStatus

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
V, F, U, I = StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.UNSUPPORTED, StepStatus.INVALIDATED
WHALE = "All mammals are warm-blooded. Whales are mammals. Therefore whales are warm-blooded."
BARE = "Are whales warm-blooded?"


def verify(query: str, steps: list[str], *, level: str = "standard", deps: list[list[int] | None] | None = None,
           artifacts: list[tuple[str, str]] | None = None, claimed: list[str | None] | None = None):
    chain = [{"step_id": i + 1, "content": c} for i, c in enumerate(steps)]
    for i, d in enumerate(deps or []):
        if d is not None:
            chain[i]["dependencies"] = d
    for i, c in enumerate(claimed or []):
        if c is not None:
            chain[i]["claimed_conclusion"] = c
    body: dict = {"domain": "logic", "original_query": query, "proof_level": level, "reasoning_chain": chain}
    if artifacts is not None:
        body["translations"] = [{"step_id": i + 1, "language": lang, "formal_representation": text}
                                for i, (lang, text) in enumerate(artifacts)]
    return verify_chain(VerifyRequest.model_validate(body), limits=CheckLimits(timeout_s=10))


def statuses(verdict) -> list[StepStatus]:
    return [v.status for v in verdict.step_verdicts]


def why(verdict) -> list[str | None]:
    return [v.error_message for v in verdict.step_verdicts]


# ------------------------------------------------------------------------------------------- the whale


def test_the_whale_with_its_premises_given_stays_verified_on_claim_evidence():
    request = VerifyRequest.model_validate_json((EXAMPLES / "whale.json").read_text())
    verdict = verify_chain(request)
    assert verdict.overall is Overall.VERIFIED and verdict.assurance is Assurance.PROVEN
    evidence = verdict.step_verdicts[0].evidence
    assert evidence.kind is EvidenceKind.CLAIM and evidence.assumptions == []


@pytest.mark.parametrize("level", ["quick", "standard", "formal"])
def test_the_whale_under_the_bare_question_is_conditional_naming_both_assumptions(level):
    verdict = verify(BARE, [WHALE], level=level)
    [step] = verdict.step_verdicts
    assert step.status is V, step.error_message
    assert step.evidence.kind is EvidenceKind.CONDITIONAL
    assert step.evidence.assumptions == ["All mammals are warm-blooded.", "Whales are mammals."]
    assert "∀x (Mammal(x) → WarmBlooded(x))" in step.evidence.note
    assert verdict.overall is Overall.PARTIAL and verdict.assurance is Assurance.CONDITIONAL
    assert [(a.step_id, a.premise) for a in verdict.assumptions] == [
        (1, "All mammals are warm-blooded."), (1, "Whales are mammals.")]


def test_the_whale_assumed_example_through_verify_chain():
    request = VerifyRequest.model_validate_json((EXAMPLES / "whale-assumed.json").read_text())
    verdict = verify_chain(request)
    assert statuses(verdict) == [V] and verdict.overall is Overall.PARTIAL
    assert verdict.assurance is Assurance.CONDITIONAL
    assert [a.premise for a in verdict.assumptions] == ["All mammals are warm-blooded.", "Whales are mammals."]


def test_the_whale_assumed_example_on_the_command_line_exits_3_naming_the_assumptions():
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "verify", str(EXAMPLES / "whale-assumed.json")],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 3, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert "assumed (step 1): All mammals are warm-blooded." in lines
    assert "assumed (step 1): Whales are mammals." in lines
    assert "PARTIAL" in out.stdout and "conditional" in out.stdout


def test_only_the_premise_the_givens_do_not_give_is_assumed():
    verdict = verify("Whales are mammals. Are whales warm-blooded?",
                     ["All mammals are warm-blooded. Whales are mammals. Therefore whales are warm-blooded."])
    assert verdict.step_verdicts[0].evidence.assumptions == ["All mammals are warm-blooded."]


# --------------------------------------------------------------- valid inferences are never refuted


@pytest.mark.parametrize("content", [
    "Whales are mammals. All mammals are warm-blooded. Therefore whales are warm-blooded.",  # premises reordered
    "Since all mammals are warm-blooded and whales are mammals, whales are warm-blooded.",
    "Whales are warm-blooded because all mammals are warm-blooded and whales are mammals.",
    "All mammals are warm-blooded, and whales are mammals, so whales are warm-blooded.",
    "Given that all mammals are warm-blooded, and since whales are mammals, whales are warm-blooded.",
    "As whales are mammals, and all mammals are warm-blooded, it follows that whales are warm-blooded.",
    "Whales are mammals. Every mammal is warm-blooded. Hence every whale is warm-blooded.",
    "If something is a mammal then it is warm-blooded. Whales are mammals. So whales are warm-blooded.",
])
def test_valid_inferences_from_unstated_premises_in_any_form_are_not_refuted(content):
    step = verify(BARE, [content]).step_verdicts[0]
    assert step.status is not F, step.error_message
    assert step.status is not V or step.evidence.kind is EvidenceKind.CONDITIONAL


@pytest.mark.parametrize(("query", "content"), [
    ("Is Rex a mammal?", "If Rex is a dog, then Rex is a mammal. Rex is a dog. Therefore Rex is a mammal."),
    ("Is Rex a cat?", "Every cat is a feline. Rex is not a feline. Therefore Rex is not a cat."),  # modus tollens
    ("Is Rex a dog?", "Rex is a cat or a dog. Rex is not a cat. So Rex is a dog."),  # disjunctive syllogism
    ("Are whales animals?", "All whales are mammals. All mammals are animals. Therefore all whales are animals."),
    ("", "No reptile is a mammal. All snakes are reptiles. Therefore no snake is a mammal."),
])
def test_classic_valid_forms_from_assumed_premises_are_conditional(query, content):
    step = verify(query, [content]).step_verdicts[0]
    assert step.status is V and step.evidence.kind is EvidenceKind.CONDITIONAL, step.error_message


def test_a_claimed_conclusion_drawn_from_unmarked_sentences_is_an_inference_from_them():
    verdict = verify("Is Socrates mortal?", ["All men are mortal. Socrates is a man."],
                     claimed=["Socrates is mortal."])
    step = verdict.step_verdicts[0]
    assert step.status is V and step.evidence.assumptions == ["All men are mortal.", "Socrates is a man."]


# ---------------------------------------------------------------------------- what stays refuted


@pytest.mark.parametrize("level", ["quick", "standard"])
@pytest.mark.parametrize(("query", "content", "kind"), [
    ("Are whales fish?", "All fish are cold-blooded. Whales are cold-blooded. Therefore whales are fish.",
     ErrorKind.UNDISTRIBUTED_MIDDLE),
    ("Is Socrates a man?", ("If Socrates is a man then Socrates is mortal. Socrates is mortal. "
                            "Therefore Socrates is a man."), ErrorKind.AFFIRMING_THE_CONSEQUENT),
    ("Is Rex a mammal?", "If Rex is a dog, then Rex is a mammal. Rex is not a dog. Therefore Rex is not a mammal.",
     ErrorKind.DENYING_THE_ANTECEDENT),
    ("Are cats dogs?", "All cats are animals. All dogs are animals. Therefore all cats are dogs.",
     ErrorKind.UNDISTRIBUTED_MIDDLE),
    ("Is Socrates mortal?", "Socrates is a man. So Socrates is mortal.", ErrorKind.COUNTEREXAMPLE),  # an enthymeme
])
def test_an_inference_invalid_even_granting_its_premises_is_refuted_naming_the_fallacy(query, content, kind, level):
    verdict = verify(query, [content], level=level)
    step = verdict.step_verdicts[0]
    assert step.status is F and step.error_kind is kind, step.error_message
    assert "even granting them all" in step.error_message
    assert verdict.assurance is Assurance.REFUTED


@pytest.mark.parametrize(("query", "content", "sentence"), [
    ("Tom is a cat. No cat is a whale. Is Tom a whale?", "All cats are whales. Tom is a cat. Therefore Tom is a whale.",
     "All cats are whales."),
    ("Rex is not a dog. Is Rex a mammal?", "All dogs are mammals. Rex is a dog. Hence Rex is a mammal.",
     "Rex is a dog."),
    ("Tom is a cat. No cat is a bird.", "Since every cat is a bird, Tom is a bird.", "every cat is a bird"),
])
def test_a_premise_the_givens_contradict_is_refuted_naming_its_sentence(query, content, sentence):
    step = verify(query, [content]).step_verdicts[0]
    assert step.status is F and step.error_kind is ErrorKind.CONTRADICTED_PREMISE, step.error_message
    assert f'"{sentence}"' in step.error_message and step.details["sentence"] == sentence


def test_premises_that_contradict_each_other_are_refuted_as_vacuous():
    step = verify("", ["Rex is a cat. Rex is not a cat. Therefore Rex is a dog."]).step_verdicts[0]
    assert step.status is F and step.error_kind is ErrorKind.VACUOUS, step.error_message
    assert "contradict each other" in step.error_message


def test_a_universal_premise_contradicts_a_universal_given_only_about_individuals_that_exist():
    # Read in first-order logic, "No whale is a mammal" and "Whales are mammals" agree when there are no whales: the
    # premise is an assumption (the chain not VERIFIED), not a refutation; about a named whale it is contradicted.
    verdict = verify("All mammals are warm-blooded. No whale is a mammal. Are whales warm-blooded?", [WHALE])
    assert verdict.step_verdicts[0].evidence.assumptions == ["Whales are mammals."]
    assert verdict.overall is not Overall.VERIFIED
    named = verify("All mammals are warm-blooded. Moby is a whale. Moby is not a mammal.", [WHALE]).step_verdicts[0]
    assert named.status is F and named.error_kind is ErrorKind.CONTRADICTED_PREMISE


def test_a_conclusion_the_givens_contradict_is_refuted():
    step = verify("Rex is a cat. No cat is a dog.", ["Rex is a dog."]).step_verdicts[0]
    assert step.status is F and "contradicts" in step.error_message


def test_a_step_built_on_contradicting_ancestors_is_refuted_as_vacuous():
    verdict = verify("Rex is a cat.", ["Rex is a dog.", "Rex is not a dog.", "Therefore Rex is a bird."],
                     deps=[[], [], [1, 2]])
    assert statuses(verdict)[:2] == [U, U], why(verdict)
    assert verdict.step_verdicts[2].status is F and verdict.step_verdicts[2].error_kind is ErrorKind.VACUOUS


# ------------------------------------------------------------------- contradictory givens: unsupported


@pytest.mark.parametrize("content", ["Rex is a cat.", "Rex is a dog.", "So Rex is a dog.", "Rex is a cat or a dog."])
@pytest.mark.parametrize("level", ["quick", "standard"])
def test_contradictory_givens_verify_nothing_and_refute_nothing(content, level):
    verdict = verify("Rex is a cat. Rex is not a cat.", [content], level=level)
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.VACUOUS, step.error_message
    assert "givens contradict each other" in step.error_message
    assert verdict.overall is not Overall.VERIFIED and verdict.assurance is Assurance.UNPROVEN


def test_contradictory_givens_behind_a_supplied_artifact_that_uses_none_of_them():
    step = verify("Rex is a cat. Rex is not a cat.", ["Rex is a cat."],
                  artifacts=[("fol", "Cat(rex)\n⊢ Cat(rex)")]).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.VACUOUS


# ------------------------------------------------------------------- attacks: faking a VERIFIED


@pytest.mark.parametrize("content", [
    "Whales are warm-blooded. Therefore whales are warm-blooded.",
    "Whales are mammals and whales are warm-blooded. So whales are warm-blooded.",
    "All mammals are warm-blooded. Whales are mammals. Whales are warm-blooded. So whales are warm-blooded.",
    "Since whales are warm-blooded, whales are warm-blooded.",
    "Every whale is warm-blooded. Hence every whale is warm-blooded.",
    "Whales are warm-blooded because whales are warm-blooded.",
])
@pytest.mark.parametrize("level", ["quick", "standard"])
def test_an_assumption_that_is_the_conclusion_proves_nothing(content, level):
    verdict = verify(BARE, [content], level=level)
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.ASSUMED_CONCLUSION, step.error_message
    assert "assumes what it concludes" in step.error_message
    assert verdict.overall is not Overall.VERIFIED


def test_a_supplied_artifact_proving_the_conclusion_from_itself_as_an_assumption_proves_nothing():
    artifact = "∀x (Whale(x) → WarmBlooded(x))\n⊢ ∀x (Whale(x) → WarmBlooded(x))"
    step = verify(BARE, ["Whales are warm-blooded. Therefore whales are warm-blooded."],
                  artifacts=[("fol", artifact)]).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.ASSUMED_CONCLUSION


def test_a_conclusion_the_givens_give_is_no_circle_even_beside_an_assumption():
    step = verify("Whales are warm-blooded.", ["Whales are fish. Therefore whales are warm-blooded."]).step_verdicts[0]
    assert step.status is V and step.evidence.assumptions == ["Whales are fish."]


def test_a_statement_with_no_inference_is_an_assumption_not_a_derivation():
    verdict = verify(BARE, ["Whales are warm-blooded."])
    step = verdict.step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.ASSUMED_CONCLUSION, step.error_message
    assert "an assumption, not a derivation" in step.error_message


def test_premise_steps_are_assumptions_and_the_step_built_on_them_is_not_refuted():
    verdict = verify(BARE, ["All mammals are warm-blooded.", "Whales are mammals.",
                            "Therefore whales are warm-blooded."], deps=[None, [], [1, 2]])
    assert statuses(verdict) == [U, U, V], why(verdict)
    assert [v.error_kind for v in verdict.step_verdicts[:2]] == [ErrorKind.ASSUMED_CONCLUSION] * 2
    assert verdict.overall is Overall.PARTIAL and verdict.assurance is Assurance.UNPROVEN


def test_a_circle_through_an_earlier_step_is_not_a_verified_chain():
    verdict = verify(BARE, ["Whales are warm-blooded.", "So whales are warm-blooded."])
    assert statuses(verdict) == [U, V], why(verdict)
    assert verdict.overall is not Overall.VERIFIED and verdict.assurance is not Assurance.PROVEN


def test_a_cycle_of_dependencies_is_refused_as_input():
    with pytest.raises(ReasonForgeError, match="cycle"):
        verify(BARE, ["Whales are warm-blooded.", "So whales are warm-blooded."], deps=[[2], [1]])


def test_a_premise_step_with_an_earlier_step_claims_an_inference_and_is_refuted():
    # the default dependency is the previous step: "Tom is a whale." is drawn from it, and does not follow
    verdict = verify("Tom is a cat.", ["Tom is a cat.", "Tom is a whale."])
    assert statuses(verdict) == [V, F], why(verdict)


def test_an_assumption_an_unread_given_might_contradict_is_not_conditional_evidence():
    step = verify("Tom is a cat. Tom chased the mailman yesterday.",
                  ["Since every cat is a bird, Tom is a bird."]).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNGROUNDED_PREMISE and "is not read" in step.error_message


def test_an_invented_premise_the_step_never_states_is_not_an_assumption():
    artifact = "∀x (Mammal(x) → WarmBlooded(x))\n∀x (Whale(x) → Mammal(x))\n⊢ ∀x (Whale(x) → WarmBlooded(x))"
    query = "Moby is a mammal. Are whales warm-blooded?"  # Mammal is in the reading's vocabulary
    # unmarked: nothing refuted, the artifact's premises ungrounded
    unmarked = verify(query, ["Whales are warm-blooded."], artifacts=[("fol", artifact)]).step_verdicts[0]
    assert unmarked.status is U and unmarked.error_kind is ErrorKind.UNGROUNDED_PREMISE, unmarked.error_message
    # marked with nothing stated before it: the reading refutes the inference, whatever the artifact assumes
    marked = verify(query, ["Therefore whales are warm-blooded."], artifacts=[("fol", artifact)]).step_verdicts[0]
    assert marked.status is F and "line 1" in marked.error_message


def test_an_assumed_premise_may_not_be_stronger_in_the_artifact_than_in_the_step():
    artifact = "∀x WarmBlooded(x)\n⊢ ∀x (Whale(x) → WarmBlooded(x))"
    step = verify(BARE, [WHALE], artifacts=[("fol", artifact)]).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNGROUNDED_PREMISE, step.error_message


# ----------------------------------------------------- attacks: provoking a false refutation


def test_a_supplied_artifact_that_omits_the_stated_premise_and_fails_refutes_nothing():
    artifact = "∀x (Whale(x) → Mammal(x))\n⊢ ∀x (Whale(x) → WarmBlooded(x))"
    step = verify(BARE, [WHALE], artifacts=[("fol", artifact)]).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.UNALIGNED, step.error_message
    assert step.details["checker_status"] == "failed" and "refutes nothing" in step.error_message


def test_a_tautology_artifact_does_not_save_an_invalid_inference_from_refutation():
    step = verify("Tom is a cat.", ["So Tom is a dog."], artifacts=[("fol", "⊢ Dog(tom) ∨ ¬Dog(tom)")]).step_verdicts[0]
    assert step.status is F and "the artifact is not the step's" in step.error_message


@pytest.mark.parametrize(("query", "content", "alternative"), [
    # a compound noun phrase is one predicate to the reader; English may mean both words
    ("Whales are warm-blooded mammals.", "Therefore whales are warm-blooded.", "is a WarmBlooded"),
    ("Are whales warm-blooded?", "Whales are warm-blooded mammals. Therefore whales are warm-blooded.",
     "is a WarmBlooded"),
    # a definite description is not the individual of that name to the reader; English may mean it
    ("The cat is a dog.", "So Cat is a dog.", "the individual named cat"),
    # "either … or" is exclusive to the reader; English may mean inclusive
    ("Rex is a cat.", "So either Rex is a cat or Rex is a dog.", "inclusive"),
])
def test_a_refutation_that_another_english_reading_undoes_is_not_made(query, content, alternative):
    step = verify(query, [content]).step_verdicts[0]
    assert step.status is U and step.error_kind is ErrorKind.AMBIGUOUS, step.error_message
    assert alternative in step.error_message


def test_the_cat_is_not_the_individual_cat():
    verdict = verify("The cat is a dog.", ["Cat is a dog."])
    assert verdict.step_verdicts[0].status is not V and verdict.overall is not Overall.VERIFIED
    assert verify("The cat is a dog.", ["The cat is a dog."]).overall is Overall.VERIFIED


@pytest.mark.parametrize("query", [
    "Is Rex a cat? Rex is a dog.", '"Is Rex a cat?" Rex is a dog.', "Could Rex be a cat? Rex is a dog.",
    "Rex is a dog. Does Rex chase the cat? Every dog is an animal.", "Will Rex be a cat? Rex is a dog.",
    "Rex is a dog. Is Rex a cat?! ", "Rex is a cat? Rex is a dog.",
])
def test_a_questions_interrogative_sentence_is_never_a_given(query):
    verdict = verify(query, ["Rex is a cat."])
    assert verdict.step_verdicts[0].status is not V and verdict.overall is not Overall.VERIFIED

