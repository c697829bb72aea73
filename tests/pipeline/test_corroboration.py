"""A word problem's steps checked against independent formalisations of its question (pipeline/corroboration.py).

The formaliser here is a translator that writes the rules' step artifacts and answers with fixed programs for the
question: the programs are read, grounded and evaluated for real, the steps checked for real.
"""

import pytest

from reasonforge.pipeline.run import verify_chain
from reasonforge.translate import default_translator
from reasonforge.translate.question import QuestionPrograms
from reasonforge.types import (
    Assurance,
    Domain,
    Overall,
    ProofLevel,
    Prover,
    ReasoningStep,
    Spec,
    StepStatus,
    VerifyRequest,
)
from reasonforge.verify import coq as coq_checker

JANET = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")
RIGHT = ["Janet sells 16 - 3 - 4 = 9 duck eggs a day.", "She makes 9 * 2 = $18 every day at the farmer's market."]
PROGRAM = "```python\neggs_sold = 16 - 3 - 4\nanswer = eggs_sold * 2\n```"
# the same problem stated, not solved: Z3 finds that it forces eggs_sold = 9 and the answer 18
MODEL = "```\neggs_laid = 16\neggs_sold + 3 + 4 = eggs_laid\nanswer = eggs_sold * 2\n```"


class Formaliser:
    """The rules' artifacts for the steps; fixed programs and problem models for the question (counted, to see
    when it is asked). The problem models default to MODEL, one per program."""

    def __init__(self, programs, required=2, models=None):
        self.spec = Spec(name="question-formaliser", version="1")
        self.programs = programs
        self.models = [MODEL] * len(programs) if models is None else models
        self.required = required
        self.asked = 0

    def translate_chain(self, request, ancestors):
        return default_translator(request.domain, level=request.proof_level,
                                  prover=request.prover).translate_chain(request, ancestors)

    def formalise_question(self, request):
        self.asked += 1
        return QuestionPrograms(programs=list(self.programs), problem_models=list(self.models),
                                required=self.required, formaliser=self.spec)


def request(steps, answer="18", query=JANET):
    chain = [ReasoningStep(step_id=i, content=text) for i, text in enumerate(steps, 1)]
    return VerifyRequest(reasoning_chain=chain, domain=Domain.MATHEMATICS, original_query=query, claimed_answer=answer,
                         proof_level=ProofLevel.QUICK)


def kinds(verdict):
    return [v.evidence.kind if v.evidence else None for v in verdict.step_verdicts]


def test_without_a_formalisation_a_word_problem_is_verified_only_on_its_arithmetic():
    verdict = verify_chain(request(RIGHT))
    assert verdict.overall is Overall.PARTIAL and verdict.assurance is Assurance.ARITHMETIC
    assert kinds(verdict) == ["relations", "relations"]


def test_formalisations_that_compute_each_steps_result_and_the_answer_verify_the_chain():
    formaliser = Formaliser([PROGRAM, PROGRAM, PROGRAM])
    verdict = verify_chain(request(RIGHT), translator=formaliser)
    assert formaliser.asked == 1
    assert verdict.overall is Overall.VERIFIED and verdict.assurance is Assurance.CORROBORATED
    assert kinds(verdict) == ["corroborated", "corroborated"]
    first = verdict.step_verdicts[0].evidence
    assert first.formaliser == "question_model" and first.supplied_by == "independent"
    assert "9 is eggs_sold" in first.note and "3 of 3" in first.note
    assert verdict.step_verdicts[-1].details["question_model"]["agrees"] is True


def test_a_wrong_chain_is_not_corroborated_by_formalisations_of_the_right_answer():
    wrong = ["Janet sells 16 - 3 = 13 duck eggs a day.", "She makes 13 * 2 = $26 every day at the market."]
    verdict = verify_chain(request(wrong, answer="26"), translator=Formaliser([PROGRAM] * 3))
    assert verdict.overall is Overall.PARTIAL and kinds(verdict) == ["relations", "relations"]
    noted = verdict.step_verdicts[-1].details["question_model"]
    assert noted["agrees"] is False and "18" in noted["note"] and "26" in noted["note"]


def test_a_step_whose_result_no_formalisation_computes_stays_arithmetic_only():
    # the right answer, reached through a value (13) the formalisation never computes: 13 - 4 = 9 reaches a
    # quantity of theirs (9 eggs sold), but by combining 13 and 4, which no line of theirs does
    detour = ["Janet has 16 - 3 = 13 eggs after breakfast.", "She sells 13 - 4 = 9 eggs.",
              "She makes 9 * 2 = $18 every day."]
    verdict = verify_chain(request(detour), translator=Formaliser([PROGRAM] * 3))
    assert verdict.overall is Overall.PARTIAL
    assert kinds(verdict) == ["relations", "relations", "corroborated"]


@pytest.mark.parametrize("steps", [
    ["She makes 16 + 2 = $18 every day."],  # the answer, by an operation no formalisation makes
    ["Janet's ducks lay 9 eggs per day.", *RIGHT],  # 9 is the eggs she sells, not lays: no relation ties it
    ["Janet eats 9 eggs for breakfast.", *RIGHT],
    ["Janet sells all 16 eggs and makes $18."],  # the last step says more than the answer
    [RIGHT[0], "She makes 9 * 2 = $18 every day, which is $16 a week."],  # 16 is eggs in the question
])
def test_a_wrong_step_reaching_a_formalised_value_is_not_corroborated(steps):
    # found by a red-team pass: each came out VERIFIED when a step only had to reach values the formalisations
    # reach, or to share one word with a name of theirs
    verdict = verify_chain(request(steps), translator=Formaliser([PROGRAM] * 3))
    assert verdict.overall is not Overall.VERIFIED


def test_a_percent_answer_is_not_matched_to_the_formalisations_answer():
    verdict = verify_chain(request(RIGHT, answer="1800%"), translator=Formaliser([PROGRAM] * 3))
    assert verdict.overall is not Overall.VERIFIED


def test_too_few_agreeing_formalisations_corroborate_nothing():
    other = "```python\nanswer = 16 * 2\n```"
    verdict = verify_chain(request(RIGHT), translator=Formaliser([PROGRAM, other, "```python\nanswer = 16\n```"]))
    assert verdict.overall is Overall.PARTIAL
    noted = verdict.step_verdicts[-1].details["question_model"]
    assert noted["answer"] is None and noted["agreeing"] == 1 and noted["required"] == 2


def test_a_formalisation_with_an_invented_number_or_code_is_not_counted():
    invented = "```python\neggs_sold = 16 - 3 - 4\nbonus = 5\nanswer = eggs_sold * 2 + bonus - 5\n```"
    code = "```python\nimport os\nanswer = 18\n```"
    invented_model = "```\neggs_sold = 16 - 3 - 4 + 5 - 5\nanswer = eggs_sold * 2\n```"
    verdict = verify_chain(request(RIGHT), translator=Formaliser([PROGRAM, invented, code],
                                                                 models=[MODEL, invented_model, code]))
    assert verdict.overall is Overall.PARTIAL  # one problem model is left, and two must force the answer
    noted = verdict.step_verdicts[-1].details["question_model"]
    assert noted["problem_agreeing"] == 1 and noted["answer"] is None and "2 must" in noted["note"]
    rejected = noted["rejected"]
    assert any(r.startswith("program 2") and "5 is not a quantity the question states" in r for r in rejected)
    assert any(r.startswith("program 3") and "not an assignment" in r for r in rejected)
    assert any(r.startswith("problem model 2") and "5 is not a quantity the question states" in r for r in rejected)
    assert any(r.startswith("problem model 3") and "not an equation" in r for r in rejected)


def test_problem_models_that_do_not_force_one_answer_are_no_evidence():
    loose = "```\neggs_sold + eggs_kept = 16\nanswer = eggs_sold * 2\n```"  # how many are kept is never said
    clash = "```\neggs_sold = 16 - 3\neggs_sold = 16 - 3 - 4\nanswer = eggs_sold * 2\n```"
    verdict = verify_chain(request(RIGHT), translator=Formaliser([PROGRAM] * 3, models=[loose, clash, MODEL]))
    assert verdict.overall is Overall.PARTIAL and kinds(verdict) == ["relations", "relations"]
    rejected = verdict.step_verdicts[-1].details["question_model"]["rejected"]
    assert any("do not determine the answer" in r for r in rejected)
    assert any("contradict each other" in r for r in rejected)


def test_the_programs_must_compute_what_the_problem_models_force():
    doubled = "```python\nanswer = 16 * 2\n```"
    verdict = verify_chain(request(RIGHT), translator=Formaliser([doubled, doubled, PROGRAM]))
    assert verdict.overall is Overall.PARTIAL
    noted = verdict.step_verdicts[-1].details["question_model"]
    assert noted["problem_answer"] == "18" and noted["program_answer"] == "32" and noted["answer"] is None
    assert "force 18, but the programs compute 32" in noted["note"]


def test_without_a_problem_model_no_answer_is_agreed_whatever_the_programs_say():
    verdict = verify_chain(request(RIGHT), translator=Formaliser([PROGRAM] * 3, models=[]))
    assert verdict.overall is Overall.PARTIAL
    assert "no problem model" in verdict.step_verdicts[-1].details["question_model"]["note"]


def test_a_problem_told_backwards_is_modelled_as_told_and_z3_finds_the_start():
    # The problem gives the end and asks for the start: the model states it as told (start / 2 - 3 = 5), and Z3,
    # not the writer, works out that only 16 satisfies it. The program works backwards; both reach 16.
    query = ("Maya gave away half of her stickers and then 3 more, and she has 5 stickers left. How many stickers "
             "did she have at first?")
    steps = ["Before giving away the 3 she had 5 + 3 = 8 stickers.", "So she had 8 * 2 = 16 stickers at first."]
    program = "```python\nbefore_three = 5 + 3\nanswer = before_three * 2\n```"
    told = "```\nstart_stickers / 2 - 3 = 5\nanswer = start_stickers\n```"
    verdict = verify_chain(request(steps, answer="16", query=query), translator=Formaliser([program] * 3,
                                                                                           models=[told] * 3))
    assert verdict.overall is Overall.VERIFIED and kinds(verdict) == ["corroborated", "corroborated"]
    assert "3 of 3 problem models (Z3: the answer is forced)" in verdict.step_verdicts[-1].evidence.note
    shown = verdict.step_verdicts[-1].details["question_model"]
    assert shown["problem_models"] == [told] * 3 and shown["programs"] == [program] * 3  # what was checked


def test_one_formalisation_suffices_when_one_is_required():
    verdict = verify_chain(request(RIGHT), translator=Formaliser([PROGRAM], required=1))
    assert verdict.overall is Overall.VERIFIED and verdict.assurance is Assurance.CORROBORATED


def test_a_failed_step_stays_failed_whatever_the_formalisations_say():
    wrong = ["Janet sells 16 - 3 - 4 = 10 duck eggs a day.", "She makes 9 * 2 = $18 every day."]
    verdict = verify_chain(request(wrong), translator=Formaliser([PROGRAM] * 3))
    assert verdict.step_verdicts[0].status is StepStatus.FAILED and verdict.overall is not Overall.VERIFIED


def test_the_chains_own_answer_counts_when_no_answer_is_claimed():
    verdict = verify_chain(request(RIGHT, answer=""), translator=Formaliser([PROGRAM] * 3))
    assert verdict.overall is Overall.VERIFIED


def test_a_question_in_algebra_is_not_formalised_and_supplied_translations_are_not_either():
    algebra = request(["x = 3 + 4 = 7"], answer="7", query="Solve x = 3 + 4.")
    formaliser = Formaliser([PROGRAM] * 3)
    verify_chain(algebra, translator=formaliser)
    assert formaliser.asked == 0
    chain = request(RIGHT)
    supplied = default_translator(Domain.MATHEMATICS, level=ProofLevel.QUICK).translate_chain(chain, {1: [], 2: [1]})
    verdict = verify_chain(chain.model_copy(update={"translations": supplied}), translator=formaliser)
    assert formaliser.asked == 0 and verdict.overall is Overall.PARTIAL


def test_prose_that_claims_more_than_the_corroborated_quantities_is_not_corroborated():
    extra = ["Janet sells 16 - 3 - 4 = 9 duck eggs a day and keeps 100 for herself.",
             "She makes 9 * 2 = $18 every day at the farmer's market."]
    negated = ["Janet does not sell 16 - 3 - 4 = 9 duck eggs a day.", RIGHT[1]]
    for steps in (extra, negated):
        verdict = verify_chain(request(steps), translator=Formaliser([PROGRAM] * 3))
        assert verdict.overall is not Overall.VERIFIED, steps
        assert kinds(verdict)[0] != "corroborated"


def test_a_restatement_of_corroborated_quantities_is_corroborated_and_one_of_others_is_not():
    restating = ["Janet's ducks lay 16 eggs per day.", *RIGHT, "So she makes 18 dollars a day."]
    verdict = verify_chain(request(restating), translator=Formaliser([PROGRAM] * 3))
    assert verdict.overall is Overall.VERIFIED, [v.error_message for v in verdict.step_verdicts]
    assert kinds(verdict) == ["corroborated"] * 4
    assert "every number it states (16)" in verdict.step_verdicts[0].evidence.note
    # another number, a negation, no number, and a quantity of the problem stated as its answer
    for wrong in ("So she makes 20 dollars a day.", "She does not sell 9 eggs.", "She sells the rest.",
                  "So she makes 9 dollars a day."):
        verdict = verify_chain(request([*RIGHT, wrong]), translator=Formaliser([PROGRAM] * 3))
        assert verdict.overall is not Overall.VERIFIED and verdict.step_verdicts[-1].status is not StepStatus.VERIFIED


def test_a_restated_number_must_count_what_it_counts_in_the_question_or_the_formalisation():
    # the question's 3 is eaten "for breakfast", and no formalisation names it: "sells 3 eggs" is another claim
    verdict = verify_chain(request(["Janet sells 3 eggs a day.", *RIGHT]), translator=Formaliser([PROGRAM] * 3))
    assert kinds(verdict)[0] != "corroborated"
    # a value only the formalisations reach, stated with no relation, is no restatement of the question's
    verdict = verify_chain(request(["Janet sells 9 eggs a day.", *RIGHT]), translator=Formaliser([PROGRAM] * 3))
    assert kinds(verdict)[0] != "corroborated"
    verdict = verify_chain(request(["Janet's ducks lay 16 eggs per day.", *RIGHT]), translator=Formaliser([PROGRAM] * 3))
    assert kinds(verdict)[0] == "corroborated"


# ---- bare arithmetic in a word problem: never proven by the rules, corroborated by an independent model -----------
BARE = ["16 - 3 - 4 = 9", "9 * 2 = 18"]
ADDED = ["16 + 3 + 4 = 23", "23 * 2 = 46"]  # the wrong operation: true arithmetic, another problem


def test_bare_arithmetic_in_a_word_problem_is_relations_until_corroborated():
    alone = verify_chain(request(BARE))
    assert alone.overall is Overall.PARTIAL and alone.assurance is Assurance.ARITHMETIC
    assert kinds(alone) == ["relations", "relations"]
    assert "word problem" in alone.step_verdicts[0].evidence.note
    corroborated = verify_chain(request(BARE), translator=Formaliser([PROGRAM] * 3))
    assert corroborated.overall is Overall.VERIFIED and corroborated.assurance is Assurance.CORROBORATED
    assert kinds(corroborated) == ["corroborated", "corroborated"]


def test_a_wrong_operation_is_never_proven_and_not_corroborated_by_the_right_model():
    alone = verify_chain(request(ADDED, answer="46"))
    assert alone.overall is Overall.PARTIAL and alone.assurance is Assurance.ARITHMETIC
    modelled = verify_chain(request(ADDED, answer="46"), translator=Formaliser([PROGRAM] * 3))
    assert modelled.overall is Overall.PARTIAL and kinds(modelled) == ["relations", "relations"]
    assert modelled.step_verdicts[-1].details["question_model"]["agrees"] is False


def test_a_trailing_check_leaves_the_answer_unread_and_nothing_is_corroborated_on_it():
    checked = [*BARE, "Check: 18 / 2 = 9"]
    verdict = verify_chain(request(checked, answer="9"), translator=Formaliser([PROGRAM] * 3))
    last = verdict.step_verdicts[-1]
    assert last.status is StepStatus.UNSUPPORTED and "re-derives a value known before it" in last.error_message
    assert verdict.overall is not Overall.VERIFIED


@pytest.mark.skipif(coq_checker.unavailable_reason() is not None, reason="needs coqc and the sandbox")
def test_at_formal_a_word_problems_theorems_are_relations_and_corroboration_still_lifts_them():
    formal = request(BARE).model_copy(update={"proof_level": ProofLevel.FORMAL, "prover": Prover.COQ})
    alone = verify_chain(formal)
    assert alone.overall is Overall.PARTIAL and kinds(alone) == ["relations", "relations"]
    corroborated = verify_chain(formal, translator=Formaliser([PROGRAM] * 3))
    assert corroborated.overall is Overall.VERIFIED and corroborated.assurance is Assurance.CORROBORATED
    wrong = request(ADDED, answer="46").model_copy(update={"proof_level": ProofLevel.FORMAL, "prover": Prover.COQ})
    assert verify_chain(wrong, translator=Formaliser([PROGRAM] * 3)).overall is Overall.PARTIAL
