"""The sympy aligner (verify/math/align.py): honest maths chains verified with evidence, supplied
artifacts held to the step's text, bindings and givens, the claimed answer."""

import pytest

from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.math_quick import MathTranslator
from reasonforge.types import Assurance, CheckLimits, ErrorKind, Formaliser, Overall, StepStatus, VerifyRequest

GSM = ["Natalia sold 48/2 = <<48/2=24>>24 clips in May.",
       "Natalia sold 48+24 = <<48+24=72>>72 clips altogether in April and May.", "#### 72"]
GSM_QUERY = "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. " \
            "How many clips did Natalia sell altogether in April and May?"


def request(*steps, query="", answer="", translations=None):
    body = {"domain": "mathematics", "proof_level": "quick", "original_query": query, "claimed_answer": answer,
            "reasoning_chain": [s if isinstance(s, dict) else {"step_id": i + 1, "content": s}
                                for i, s in enumerate(steps)]}
    if translations is not None:
        body["translations"] = [{"step_id": sid, "language": "sympy", "formal_representation": art}
                                for sid, art in translations]
    return VerifyRequest.model_validate(body)


def verify(req):
    translator = None if req.translations else MathTranslator()
    return verify_chain(req, translator=translator, limits=CheckLimits(timeout_s=10))


def statuses(verdict):
    return [v.status for v in verdict.step_verdicts]


# ---- honest chains stay verified, with evidence ------------------------------------------------------------------
def test_an_honest_gsm8k_chain_is_verified_with_relations_evidence():
    verdict = verify(request(*GSM, query=GSM_QUERY, answer="72"))
    assert all(v.verified for v in verdict.step_verdicts), [(v.step_id, v.error_message) for v in verdict.step_verdicts]
    # Only the arithmetic inside the prose was checked: every step verified, the chain is not VERIFIED.
    assert verdict.overall is Overall.PARTIAL and verdict.assurance is Assurance.ARITHMETIC
    first, _, last = verdict.step_verdicts
    assert first.evidence.kind == "relations" and first.evidence.aligned_claim == "48/2 = 24"
    assert "the step also says" in first.evidence.note
    assert first.evidence.aligned_claim == "48/2 = 24"
    assert last.evidence.aligned_claim == "72 = 72"  # the answer line against the last computed value
    assert "claimed answer 72 against the final value 72" in last.evidence.note


def test_a_step_whose_relations_are_all_it_says_is_verified_on_its_claim():
    verdict = verify(request("Let x = 3 and y = 4", "By the Pythagorean theorem, x² + y² = z²", "So z² = 9 + 16 = 25",
                             "Therefore z = 5", query="Find the hypotenuse of a right triangle with legs 3 and 4."))
    assert verdict.overall is Overall.VERIFIED and verdict.assurance is Assurance.PROVEN
    assert {v.evidence.kind for v in verdict.step_verdicts} == {"claim"}


def test_a_claim_hidden_in_a_pretend_citation_keeps_the_chain_from_verified():
    # A citation names a known fact; one that carries the step's own claim is prose the arithmetic does not prove.
    hidden = verify(request("By the Janet sells nine eggs rule, 16 - 3 - 4 = 9",
                            query="Janet has 16 eggs; she eats 3 and bakes with 4."))
    (step,) = hidden.step_verdicts
    assert step.verified and step.evidence.kind == "relations"
    assert hidden.overall is Overall.PARTIAL and hidden.assurance is Assurance.ARITHMETIC
    cited = verify(request("By the distributive law, 2*(3 + 4) = 2*3 + 2*4 = 14"))
    assert cited.overall is Overall.VERIFIED and cited.step_verdicts[0].evidence.kind == "claim"


def test_an_equivalent_supplied_artifact_is_verified_as_the_artifact_s():
    req = request("So 3 × 3 = 9.", translations=[(1, "claim 9 = 3*3")])
    (step,) = verify(req).step_verdicts
    assert step.status is StepStatus.VERIFIED
    assert step.evidence.formaliser == Formaliser.ARTIFACT.value
    assert step.evidence.aligned_claim == "3*3 = 9"


def test_a_supplied_artifact_written_like_the_reader_s_is_the_reader_s_claim():
    # the subnet's miners send exactly these lines (tests/subnet/subnet_support.py)
    req = request("Let x = 3", "So x + 2 = 5", query="Let x be 3. What is x + 2?", answer="5",
                  translations=[(1, "define x = 3"), (2, "let x = 3\nclaim x + 2 = 5")])
    verdict = verify(req)
    assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.error_message) for v in verdict.step_verdicts]
    assert {v.evidence.formaliser for v in verdict.step_verdicts} == {"offline_reader"}
    assert verdict.step_verdicts[0].evidence.note == "definitions (fresh names, not derived): x = 3"


def test_a_case_analysis_over_the_asked_name_stays_verified():
    req = request(r"If \(b = 0\), then \(13 + 20 \cdot 0 = 13\).", r"If \(b = 1\), then \(13 + 20 \cdot 1 = 33\).",
                  query="Find b.")
    assert verify(req).overall is Overall.VERIFIED


CRANES = ("The first crane is 228 feet tall and finishes a 200 foot building; the third crane is 147 feet tall and "
          "finishes a 140 foot building. How many percent taller than its building is each crane?")


def test_a_hypothesis_is_checked_not_taken_as_a_definition():
    good = verify(request("The first crane is 14 percent taller because if 200 + 200x = 228 then x=.14", query=CRANES))
    assert statuses(good) == [StepStatus.VERIFIED]
    bad = verify(request("The third crane is 5 percent taller because if 140 + 140x = 147 then x = .5", query=CRANES))
    assert statuses(bad) == [StepStatus.FAILED] and "x = 1/20" in bad.step_verdicts[0].error_message


# ---- supplied artifacts are held to the text --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "artifact", "kind", "words"),
    [
        ("So 3 × 3 = 10.", "claim 3 * 3 = 9", ErrorKind.UNALIGNED, "`claim 3*3 = 9` is not what the step states"),
        ("So 2 + 2 = 5.", "claim x = x", ErrorKind.UNALIGNED, "claim 2 + 2 = 5"),
        ("So 2 + 2 = 5.", "fact 2 + 2 = 5\nclaim 2 + 2 = 5", ErrorKind.UNALIGNED, "`fact 2 + 2 = 5`"),
        ("So 10/3 = 333/100.", "claim 10/3 = 3.33", ErrorKind.UNALIGNED, "3.33"),  # a decimal gains an allowance
        ("So 7/2 = 3.", "claim 7/2 ~= 3", ErrorKind.UNALIGNED, "~="),
        ("So x^2 = 4.", "assume x > 0\nclaim x^2 = 4", ErrorKind.UNGROUNDED_PREMISE, "assume x > 0"),
        ("Clearly it follows.", "claim 1 + 1 = 2", ErrorKind.UNREADABLE_CLAIM, "no relation the reader can read"),
    ],
)
def test_a_supplied_artifact_that_is_not_the_step_is_unsupported(text, artifact, kind, words):
    (step,) = verify(request(text, translations=[(1, artifact)])).step_verdicts
    assert step.status is StepStatus.UNSUPPORTED, step
    assert step.error_kind is kind and words in step.error_message


def test_an_unaligned_artifact_s_failure_is_not_the_step_s():
    (step,) = verify(request("So 2 + 2 = 4.", translations=[(1, "claim 2 + 2 = 5")])).step_verdicts
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.UNALIGNED
    assert step.details["checker_status"] == "failed"


def test_an_aligned_supplied_artifact_fails_a_false_step():
    (step,) = verify(request("So 3 × 3 = 10.", translations=[(1, "claim 3*3 = 10")])).step_verdicts
    assert step.status is StepStatus.FAILED and step.error_message.startswith("3*3 = 10 is false: 3*3 = 9 (at ")


def test_a_premise_left_out_or_moved_is_unaligned():
    steps = ("So c^2 = 3^2 + 4^2.", "Therefore c = 9.")
    honest = verify(request(*steps))
    assert statuses(honest) == [StepStatus.VERIFIED, StepStatus.FAILED]
    for artifact in ("claim c = 9", "claim c = 9\nfact c^2 = 3^2 + 4^2", "fact c^2 = 3^2 + 4^2\ndefine c = 9"):
        verdict = verify(request(*steps, translations=[(1, "claim c^2 = 3^2 + 4^2"), (2, artifact)]))
        assert verdict.step_verdicts[1].status is StepStatus.UNSUPPORTED, artifact
        assert verdict.step_verdicts[1].error_kind is ErrorKind.UNALIGNED


# ---- bindings: asked for, determined, givens --------------------------------------------------------------------
def test_a_binding_of_the_asked_quantity_is_a_claim_to_check():
    query = "A right triangle has legs 3 and 4. What is the hypotenuse?"
    verdict = verify(request("The legs are 3 and 4.", "Therefore the hypotenuse c = 9.", query=query))
    last = verdict.step_verdicts[1]
    assert last.status is StepStatus.UNSUPPORTED
    assert last.error_message.startswith("c = 9 cannot be checked: c is what the question asks for")
    for step in ("c = 9.", "Let c = 9."):
        (only,) = verify(request(step, query="Legs 3 and 4. Find c.")).step_verdicts
        assert only.status is StepStatus.UNSUPPORTED, step


def test_a_binding_of_a_determined_name_is_checked():
    # named without a binder word, the value is a claim about the c an earlier step determined
    verdict = verify(request("So c^2 = 3^2 + 4^2 = 25.", "So c = 9.", query="What is the length of the hypotenuse?"))
    assert statuses(verdict) == [StepStatus.VERIFIED, StepStatus.FAILED]
    assert verdict.step_verdicts[1].error_message.startswith("c = 9 is false: the known equations give c = 5 (at ")
    # "Let c = 9", "where b = 4": a binder word may give the letter a new meaning (the quadratic formula's a, b, c
    # for a second equation): which c the step speaks of is not read, so nothing is refuted (olympiadbench-192)
    let = verify(request("So c^2 = 3^2 + 4^2 = 25.", "Let c = 9.", query="What is the length of the hypotenuse?"))
    assert statuses(let) == [StepStatus.VERIFIED, StepStatus.UNSUPPORTED]
    assert "may be a new meaning of the letter" in let.step_verdicts[1].error_message
    # where the question names c, the relation that introduces it is not checked either: it defines the answer
    named = verify(request("So c^2 = 3^2 + 4^2 = 25.", query="What is the length c?"))
    assert named.step_verdicts[0].status is StepStatus.UNSUPPORTED
    assert "c is what the question asks for" in named.step_verdicts[0].error_message


def test_a_given_cannot_be_rebound():
    for text in ("Let y = 5. Then 2y = 10.", "y is 5, so 2y = 10."):
        (step,) = verify(request(text, query="Given y = 2, find 2y.")).step_verdicts
        assert step.status is StepStatus.FAILED, text
        assert step.error_kind is ErrorKind.BINDING
        assert step.error_message == "y is a given of the question (y = 2); this step rebinds it: y = 5"
    # a hypothesis against the given asserts an implication (true: vacuously, and under y = 5): never refuted, and
    # not checked either
    for text in ("If y = 5, then 2y = 10.", "Suppose y = 5. Then 2y = 10.", "If y = 5, then 2 + 2 = 5."):
        (step,) = verify(request(text, query="Given y = 2, find 2y.")).step_verdicts
        assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.UNDECIDED, text
        assert "supposes another value (y = 5)" in step.error_message
    # a value only named (no verb binds it) is checked as a claim: false under the given, and so is 2y = 10
    (named,) = verify(request("y = 5, so 2y = 10.", query="Given y = 2, find 2y.")).step_verdicts
    assert named.status is StepStatus.FAILED and named.error_message.startswith("y = 5 is false: y = 2")
    (only,) = verify(request("y = 5.", query="Given y = 2, find 2y.")).step_verdicts
    assert only.status is StepStatus.UNSUPPORTED
    assert only.error_message == ("y is a given of the question (y = 2), and this step names another value (y = 5), "
                                  "but the step only names the value: no word of it asserts y = 5")
    (same,) = verify(request("Let y = 2. Then 2y = 4.", query="Given y = 2, find 2y.", answer="4")).step_verdicts
    assert same.status is StepStatus.VERIFIED  # restating a given is no rebinding


def test_a_concluded_value_with_nothing_behind_it_is_unsupported():
    verdict = verify(request("So 3 + 4 = 7.", "Therefore c = 9."))
    assert verdict.step_verdicts[1].status is StepStatus.UNSUPPORTED
    assert "nothing before this step determines c" in verdict.step_verdicts[1].error_message


def test_a_last_step_that_only_defines_concludes_nothing():
    verdict = verify(request("So 2 + 3 = 5.", "Let w = 5."))
    assert statuses(verdict) == [StepStatus.VERIFIED, StepStatus.UNSUPPORTED]
    assert "derives nothing" in verdict.step_verdicts[1].error_message
    assert verify(request("Let w = 5.", "So w + 1 = 6.")).overall is Overall.VERIFIED


# ---- the claimed answer -----------------------------------------------------------------------------------------
PYTHAGORAS = [{"step_id": 1, "content": "Let x = 3 and let y = 4"},
              {"step_id": 2, "content": "By Pythagorean theorem, x² + y² = z²", "dependencies": [1]},
              {"step_id": 3, "content": "So z² = 9 + 16 = 25"},
              {"step_id": 4, "content": "Therefore z = 5"}]
HYPOTENUSE = "Find the hypotenuse of a right triangle with legs 3 and 4"


@pytest.mark.parametrize("answer", ["z = 5", "5", "5.0", r"\boxed{5}"])
def test_a_claimed_answer_that_is_the_final_value_keeps_the_chain_verified(answer):
    verdict = verify(request(*PYTHAGORAS, query=HYPOTENUSE, answer=answer))
    assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.error_message) for v in verdict.step_verdicts]
    assert "against the final value z = 5 (step 4)" in verdict.step_verdicts[-1].details["answer"]


@pytest.mark.parametrize(("answer", "message"), [
    ("6", "the claimed answer 6 is not the chain's final value: z = 5 (step 4)"),
    ("z = 6", "the claimed answer z = 6 is not the chain's final value: z = 5 (step 4)"),
    ("y = 5", "the claimed answer y = 5 is not the chain's final value: y = 4 (step 1)"),
])
def test_a_claimed_answer_that_is_not_the_final_value_fails_the_last_step(answer, message):
    verdict = verify(request(*PYTHAGORAS, query=HYPOTENUSE, answer=answer))
    last = verdict.step_verdicts[-1]
    assert last.status is StepStatus.FAILED and last.error_kind is ErrorKind.ANSWER_MISMATCH
    assert last.error_message == message
    assert statuses(verdict)[:3] == [StepStatus.VERIFIED] * 3


def test_a_claimed_answer_that_cannot_be_compared_leaves_the_last_step_unsupported():
    for answer, words in (("five-ish", "cannot be read"), ("q = 5", "states no value of q")):
        last = verify(request(*PYTHAGORAS, query=HYPOTENUSE, answer=answer)).step_verdicts[-1]
        assert last.status is StepStatus.UNSUPPORTED and last.error_kind is ErrorKind.UNREADABLE_CLAIM
        assert words in last.error_message


def test_a_gsm8k_answer_mismatch_fails_the_answer_line():
    verdict = verify(request(*GSM, query=GSM_QUERY, answer="70"))
    assert statuses(verdict) == [StepStatus.VERIFIED, StepStatus.VERIFIED, StepStatus.FAILED]
    assert verdict.step_verdicts[2].error_message == \
        "the claimed answer 70 is not the chain's final value: 72 (the answer line of step 3)"


def test_a_mismatch_fails_a_last_step_whose_value_comes_from_its_ancestors():
    verdict = verify(request("Three packs hold 3 × 12 = 36 pencils.", "Let w = 2 so Tom has them all.", answer="35"))
    assert statuses(verdict) == [StepStatus.VERIFIED, StepStatus.FAILED]
    last = verdict.step_verdicts[1]
    assert last.error_kind is ErrorKind.ANSWER_MISMATCH and "3*12 = 36 (step 1)" in last.error_message


def test_a_claimed_conclusion_value_must_be_one_the_step_derives():
    def last(conclusion):
        step = {"step_id": 1, "content": "So 2 + 2 = 4.", "claimed_conclusion": conclusion}
        return verify(request(step)).step_verdicts[0]

    assert last("4").status is StepStatus.VERIFIED
    other = last("5")
    assert other.status is StepStatus.UNSUPPORTED and other.error_kind is ErrorKind.UNALIGNED
    prose = last("the triangle is obtuse")
    assert prose.status is StepStatus.UNSUPPORTED and prose.error_kind is ErrorKind.UNREADABLE_CLAIM
    assert last("2 + 2 = 5").status is StepStatus.FAILED  # a relation there is a claim the artifact checks


def test_an_answer_line_is_checked_against_a_computed_value_only():
    assert verify(request("x = 5.", "#### 5")).step_verdicts[1].status is StepStatus.UNSUPPORTED
    assert verify(request("So x = 3 + 2 = 5.", "#### 5")).overall is Overall.VERIFIED


def test_values_listed_for_a_determined_name_are_checked_against_its_equation():
    wrong = verify(request("So x^2 - 5x + 6 = 0.", "So x = 2 or x = 7.")).step_verdicts[1]
    assert wrong.status is StepStatus.FAILED and wrong.error_kind is ErrorKind.ARITHMETIC
    assert wrong.error_message.startswith("x = 7 is not a solution of x^2 - 5*x + 6 = 0")
    # a wrong root of the question's own equation, and one the step factors out before listing the values
    assert verify(request("So $x = 2$ or $x = 4$.", query="Solve x^2 - 5x + 6 = 0.")).step_verdicts[0].status \
        is StepStatus.FAILED
    assert verify(request("Factoring, (x - 2)(x - 4) = 0, so x = 2 or x = 4.", query="Solve for x.")) \
        .step_verdicts[0].status is StepStatus.UNSUPPORTED  # x is fresh here: the values are cases of a new name
    # right roots: not demoted to claims, and not verified either (is the list complete? which one holds?)
    right = verify(request("So x^2 - 5x + 6 = 0.", "So x = 2 or x = 3.")).step_verdicts[1]
    assert right.status is StepStatus.UNSUPPORTED and "which of them x takes is not checked" in right.error_message
    # candidates, tests and rejected values are not what the step concludes: never refuted
    for hedged in ("We test x = 1 or x = 4.", "So the candidates are x = 1 and x = 4.",
                   "So x = 2 or x = 4, but x = 4 is extraneous.", "The roots could be x = 1 or x = 4."):
        assert verify(request("So x^2 - 5x + 6 = 0.", hedged)).step_verdicts[1].status is not StepStatus.FAILED, hedged


def test_a_value_the_text_only_names_is_verified_when_it_holds_and_never_failed():
    query = "Let $K$ be the real root of the equation $x^{3}-8 x^{2}-8 x-9=0$. Compute $K$."  # olympiadbench-553
    tried = verify(request("One might notice that x = -1 could be a root.", query=query)).step_verdicts[0]
    assert tried.status is StepStatus.UNSUPPORTED and "only names the value" in tried.error_message
    solved = verify(request("So 10x = 150.", "x = 15."))
    assert statuses(solved) == [StepStatus.VERIFIED, StepStatus.VERIFIED]


def test_a_question_s_scenarios_are_not_givens():
    query = "An expression a + bx has the value 15 when x = 2 and the value 3 when x = 5. Calculate a + b."
    (step,) = verify(request("When x = 2 we get a + 2b = 15.", query=query)).step_verdicts
    assert step.status is not StepStatus.FAILED


def test_a_binding_that_cannot_be_decided_still_checks_the_claims_under_it():
    wrong = verify(request("So x + y = 10.", "Let x = 3. Then y = 8."))
    assert statuses(wrong) == [StepStatus.VERIFIED, StepStatus.FAILED]
    assert wrong.step_verdicts[1].error_message.endswith("under this step's own binding x = 3 (at \"y = 8\", characters 17–21 of the step)")
    right = verify(request("So x + y = 10.", "Let x = 3. Then y = 7."))
    assert statuses(right) == [StepStatus.VERIFIED, StepStatus.UNSUPPORTED]  # x = 3 itself is not checked


# ---- problem grounding: every operand of a word problem's arithmetic comes from somewhere -------------------------
JANET = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder for $2 per egg. How much does she make every day?")


def test_an_operand_the_question_never_states_leaves_the_step_unsupported_naming_it():
    verdict = verify(request("16 - 3 - 5 = 8", "8 * 2 = 16", query=JANET, answer="16"))
    first = verdict.step_verdicts[0]
    assert first.status is StepStatus.UNSUPPORTED and first.error_kind == ErrorKind.UNGROUNDED_OPERAND
    assert first.error_message.startswith("5 in 16 - 3 - 5 = 8") and "16 (eggs per day)" in first.error_message
    assert verdict.overall is not Overall.VERIFIED


def test_stated_quantities_results_and_unit_constants_ground_a_chain():
    weekly = JANET.replace("every day?", "every week?")
    verdict = verify(request("16 - 3 - 4 = 9", "9 * 2 = 18", "In a week: 18 * 7 = 126", query=weekly, answer="126"))
    assert statuses(verdict) == [StepStatus.VERIFIED] * 3, verdict.step_verdicts  # 7: days and weeks
    # a unit constant needs every unit it converts between: the question speaks of days only, so 7 is invented
    daily = verify(request("16 - 3 - 4 = 9", "9 * 2 = 18", "In a week: 18 * 7 = 126", query=JANET, answer="126"))
    assert daily.step_verdicts[2].error_kind is ErrorKind.UNGROUNDED_OPERAND


def test_a_number_told_in_an_ancestors_prose_never_makes_the_chain_verified():
    # Trying to smuggle the 5 in through an earlier step's prose: that step asserts it unchecked.
    verdict = verify(request("She also has 5 eggs from yesterday.", "16 - 3 - 4 + 5 = 14", query=JANET))
    assert verdict.step_verdicts[0].status is not StepStatus.VERIFIED
    assert verdict.overall is not Overall.VERIFIED


def test_a_question_with_relations_is_not_a_word_problem():
    verdict = verify(request("So 2*x = 10 - 3 + 1", "x = 4", query="If 2x + 3 = 11, find x."))
    assert all(v.error_kind != ErrorKind.UNGROUNDED_OPERAND for v in verdict.step_verdicts)


def test_a_latex_answer_the_reader_cannot_compare_is_checked_by_math_verify():
    right = verify(request("So 1 + 1 = 2", answer="\\sqrt[3]{8}"))
    assert right.overall is Overall.VERIFIED, right.step_verdicts
    assert "math-verify" in right.step_verdicts[0].details["answer"]
    assert verify(request("So 1/4 + 1/4 = 1/2", answer="\\dfrac{1}{2}")).overall is Overall.VERIFIED  # the reader's
    wrong = verify(request("So 1/4 + 1/4 = 1/2", answer="\\dfrac{1}{3}"))
    assert wrong.step_verdicts[0].status is StepStatus.FAILED
    assert wrong.step_verdicts[0].error_kind == ErrorKind.ANSWER_MISMATCH


# ---- grounding is a rule over the derivation ------------------------------------------------------------------------
def test_an_invented_number_is_not_laundered_through_a_result_or_a_name():
    for steps in (["4 + 1 = 5", "16 - 3 - 5 = 8", "8 * 2 = 16"], ["Let m = 5", "16 - 3 - m = 8", "8 * 2 = 16"],
                  ["Let e = 16", "e - 3 - 5 = 8", "8 * 2 = 16"], ["x = 16 - 3 - 5 = 8", "8 * 2 = 16"]):
        verdict = verify(request(*steps, query=JANET, answer="16"))
        assert verdict.overall is not Overall.VERIFIED, steps
        kinds = [v.error_kind for v in verdict.step_verdicts]
        assert ErrorKind.UNGROUNDED_OPERAND in kinds and StepStatus.FAILED not in statuses(verdict), steps
    named = verify(request("x = 16 - 3 - 4 = 9", "2x = 18", query=JANET + " Let x be the eggs she sells.", answer="18"))
    assert statuses(named) == [StepStatus.VERIFIED, StepStatus.VERIFIED], named.step_verdicts


def test_a_question_that_binds_its_numbers_or_names_its_unknown_is_still_a_story():
    binds = JANET.replace("lay 16 eggs", "lay e = 16 eggs")
    for query in (binds, JANET + " Let x be the dollars she makes. Find x."):
        (first, _) = verify(request("16 - 3 - 5 = 8", "8 * 2 = 16", query=query)).step_verdicts
        assert first.error_kind is ErrorKind.UNGROUNDED_OPERAND, query


# ---- readings are total or refuse ------------------------------------------------------------------------------------
def test_prose_in_any_script_or_an_operator_word_is_never_the_step_s_claim():
    from reasonforge.lang.math.text import extract
    from reasonforge.verify.math.align import prose_beyond_relations

    for text, words in (("Так 3 + 3 = 6.", "Так"), ("所以 3 + 3 = 6", "所以"), ("Thus 7 = 7, the double", "double"),
                        ("So 3 = 3 plus change", "plus change")):
        assert prose_beyond_relations(text, extract(text).relations) == words, text
    assert prose_beyond_relations("So 3 + 3 = 6.", extract("So 3 + 3 = 6.").relations) == ""


def test_a_false_relation_in_prose_the_reader_does_not_know_is_not_refuted():
    for text in ("Students often write 2 + 2 = 5 on the board.", "Es ist falsch, dass 2 + 2 = 5."):
        (step,) = verify(request(text)).step_verdicts
        assert step.status is StepStatus.UNSUPPORTED, text
    (read,) = verify(request("So 2 + 2 = 5.")).step_verdicts
    assert read.status is StepStatus.FAILED  # every word of its sentence is read: refuted
    # the question's own words and the nouns numbers count are read too
    (story,) = verify(request("She sells 16 - 3 - 4 = 8 eggs.", query=JANET)).step_verdicts
    assert story.status is StepStatus.FAILED
    (annotated,) = verify(request("Students often write 16 - 3 = <<16-3=13>>14.")).step_verdicts
    assert annotated.status is StepStatus.FAILED  # a calculator's record is asserted whatever the prose says


def test_the_names_of_mathematical_objects_leave_a_false_relation_read_whole():
    # ProcessBench's labelled first errors (math-244, gsm8k-34), refuted at the false relation: "numerators",
    # "fraction", "earnings" and "individuals" name what is counted, they cannot put the relation in doubt
    fraction = ("Fifth, simplify the expression. Multiply the numerators together and the denominators together: "
                "\\[\\frac{3 \\times 11}{13 \\times 51} = \\frac{33}{663}\\] Simplify the fraction by dividing both "
                "numerator and denominator by their greatest common divisor, which is 33: "
                "\\[\\frac{33 \\div 33}{663 \\div 33} = \\frac{1}{21}\\]")
    earnings = ("Finally, we add up the monthly earnings of all three individuals to find the total amount of money "
                "they have together: Total amount = 5000 + 10000 + 30000 = \\boxed{43000}.")
    query = ("Valerie earns $5000 per month, 1/2 of what her brother earns. If their mother earns twice their combined "
             "salary, what's the total amount of money they all have together?")
    for text, asked in ((fraction, ""), (earnings, query)):
        (step,) = verify(request(text, query=asked)).step_verdicts
        assert step.status is StepStatus.FAILED, (text, step.error_message)
    # math-462's labelled first error: "rationalize" says what is done to the fraction, not whether it holds
    rationalize = ("So, we multiply both the numerator and the denominator by $\\sqrt{5}$ to rationalize the "
                   "denominator: $\\frac{6\\sqrt{2} \\cdot \\sqrt{5}}{\\sqrt{10} \\cdot \\sqrt{5}} = "
                   "\\frac{6\\sqrt{10}}{10}$.")
    asked = "Simplify $\\frac{\\sqrt{72}}{\\sqrt{10}}$. Your answer should have an integer denominator."
    for question in (asked, "Simplify the fraction."):  # a maths command in another region is no prose either
        (step,) = verify(request(rationalize, query=question)).step_verdicts
        assert step.status is StepStatus.FAILED, step.error_message
    # words that can put a relation in doubt stay unread: nothing is refuted on them
    for text in ("Roughly, 5^8 = 10^8.", "We choose 2 + 2 = 5.", "The combination works: 2 + 4 > 6.",
                 "A common mistake is to write the fraction 1/3 = 0.5.", "Average students get 2 + 2 = 5.",
                 "The smallest multiple would be 2 + 2 = 5 if we miscounted.",
                 "The greatest common divisor is wrongly taken as 12 / 4 = 4."):
        (step,) = verify(request(text)).step_verdicts
        assert step.status is StepStatus.UNSUPPORTED, text
    # capitals are a point's name only where each letter is a point the text names on its own
    (shout,) = verify(request("So 2 + 2 = 5 is NOT what we get.")).step_verdicts
    assert shout.status is StepStatus.UNSUPPORTED, shout.error_message
    # olympiadbench-228: the inequality the step sets out to solve is the question's own condition, never refuted
    goal = ("To determine all values of \\( x \\) for which \\( 0 < \\frac{x^2 - 11}{x + 1} < 7 \\), we will solve this "
            "inequality step by step. First, we need to find the critical points where the numerator or denominator "
            "equals zero. The numerator \\( x^2 - 11 = 0 \\) when \\( x = \\pm \\sqrt{11} \\), and the denominator "
            "\\( x + 1 = 0 \\) when \\( x = -1 \\).")
    (step,) = verify(request(goal, query="Determine all values of $x$ for which $0<\\frac{x^{2}-11}{x+1}<7$.")).step_verdicts
    assert step.status is not StepStatus.FAILED, step.error_message


def test_words_that_announce_a_computation_or_name_a_point_leave_a_false_relation_read_whole():
    # ProcessBench's labelled first errors (omnimath-145, omnimath-729, math-342), each refuted at its false relation
    factors = ("First, let's start by breaking down 636405 into smaller factors. 636405 = 5 × 127281. Now, let's "
               "break down 127281 further: 127281 = 9 × 14109.")
    angle = ("The angle between \\(F\\) and \\(G\\) as seen from \\(E\\) is a sum. Therefore, we have: \\[ \\angle FEG = "
             "60^\\circ + 72^\\circ + 60^\\circ - 360^\\circ = 192^\\circ - 360^\\circ = 48^\\circ. \\]")
    clock = ("Thus, at 2:48, the hour hand has rotated \\((2 + \\frac{48}{60}) \\cdot 30^\\circ = 108^\\circ\\) from the "
             "top of the clock.")
    for text in (factors, angle, clock):
        (step,) = verify(request(text)).step_verdicts
        assert step.status is StepStatus.FAILED, (text, step.error_message)


def test_a_relation_true_under_another_reading_the_text_offers_is_never_refuted():
    # found by a red-team pass: each was refuted as decimal arithmetic
    for text, query in (("In binary, 5 = 101.", ""), ("25 = 16 + 8 + 1 = 11001.", "Convert 25 to binary."),
                        ("Reading 123 in reverse order gives 321, so in reverse order 123 = 321.", ""),
                        ("Moving the hour hand 3 hours forward, 11 + 3 = 2 o'clock.", ""),
                        ("She works 9-5 = 8 hours a day.", ""), ("The numbers 1-50 = 50 - 10 = 40 numbers.", "")):
        (step,) = verify(request(text, query=query)).step_verdicts
        assert step.status is StepStatus.UNSUPPORTED, (text, step.error_message)
    # numerals whose bases are written are a conversion to check (math-315's labelled first error)
    (conversion,) = verify(request("Reading the remainders in reverse order, we find that $441_{10} = 1202_7$.",
                                   query="Convert $441_{10}$ to base $7$.")).step_verdicts
    assert conversion.status is StepStatus.FAILED, conversion.error_message


def test_a_step_refuted_on_the_relation_read_whole_says_that_relation():
    # olympiadbench-147, its labelled first error: "x = 1" is false, but its sentence ("Upon inspection … by
    # synthetic division") is not read; the factorisation's sentence is, so the step is refuted on the factorisation
    # and the message and place are the factorisation's, never the relation whose prose went unread
    question = ("If $x$ and $y$ are real numbers, determine all solutions $(x, y)$ of the system of equations "
                "$$\\begin{aligned} & x^{2}-x y+8=0 \\\\ & x^{2}-8 x+y=0 \\end{aligned}$$")
    steps = (("To find the solutions \\((x, y)\\) of the given system of equations, we can start by examining the two "
             "equations: First, \\(x^{2} - xy + 8 = 0\\) and Second, \\(x^{2} - 8x + y = 0\\). First, let's "
             "rearrange equation (2) to isolate \\(y\\): \\(y = 8x - x^{2}\\)."),
             ("Now, substitute this expression for \\(y\\) into equation (1): \\(x^{2} - x(8x - x^{2}) + 8 = 0\\). "
             "Expand and simplify the equation: \\(x^{2} - 8x^{2} + x^{3} + 8 = 0\\). Combine like terms: "
             "\\(x^{3} - 7x^{2} + 8 = 0\\)."),
             ("Notice that this is a cubic equation in \\(x\\). We can try to factor it or find rational roots using the "
             "Rational Root Theorem. Upon inspection, we can see that \\(x = 1\\) is a solution to the equation (by "
             "synthetic division or direct substitution). Therefore, we can factor out \\((x - 1)\\) from the cubic "
             "polynomial: \\(x^{3} - 7x^{2} + 8 = (x - 1)(x^{2} - 6x - 8) = 0\\)."))
    third = verify(request(*steps, query=question)).step_verdicts[2]
    assert third.status is StepStatus.FAILED
    assert third.error_message.startswith("x^3 - 7*x^2 + 8 = (x - 1)*(x^2 - 6*x - 8) is false")
    assert 'at "x^{3} - 7x^{2} + 8 = (x - 1)(x^{2} - 6x - 8)"' in third.error_message


def test_givens_that_contradict_each_other_prove_nothing_about_their_names():
    verdict = verify(request("x + 1 = 100", "x + 1 = 4", "2 + 2 = 4", query="Let x = 3. Let x = 4."))
    first, second, third = verdict.step_verdicts
    assert first.status is second.status is StepStatus.UNSUPPORTED
    assert first.error_kind is ErrorKind.VACUOUS and "contradict each other (x = 3; x = 4)" in first.error_message
    assert third.status is StepStatus.VERIFIED  # closed arithmetic rests on no given


# ---- assumptions: conditional evidence ------------------------------------------------------------------------------
def test_a_premise_the_step_assumes_makes_its_evidence_conditional():
    verdict = verify(request("Assume x > 0. Then x = 2.", query="Solve x^2 = 4."))
    (step,) = verdict.step_verdicts
    assert step.status is StepStatus.VERIFIED and step.evidence.kind == "conditional"
    assert step.evidence.assumptions == ["x > 0"] and not step.evidence.full
    assert verdict.overall is not Overall.VERIFIED and verdict.assurance is Assurance.CONDITIONAL
    # given by the question, or the antecedent of an implication the step asserts: no assumption
    given = verify(request("Since x > 0, x = 2.", query="Given x > 0 and x^2 = 4, find x."))
    assert given.step_verdicts[0].evidence.kind == "claim"
    implication = verify(request("If K^2 = 1, then K^4 = 1."))
    assert implication.step_verdicts[0].evidence.kind == "claim"
    # a property of a name only this step introduces qualifies its definition
    fresh = verify(request("Let n = 2k where k is an integer.", "So n + n = 4k."))
    assert all(v.evidence is None or v.evidence.kind != "conditional" for v in fresh.step_verdicts)


def test_an_assumption_the_givens_contradict_fails_the_step_unless_it_is_supposed_for_a_reductio():
    (step,) = verify(request("Assume x > 0. Then x^2 = 9.", query="Let x = -3. Find x^2.")).step_verdicts
    assert step.status is StepStatus.FAILED and step.error_kind is ErrorKind.CONTRADICTION
    assert step.error_message == "the step assumes x > 0, which the question's givens contradict"
    (parity,) = verify(request("Suppose n is even. Then n + 1 = 4.", query="Let n = 3.")).step_verdicts
    assert parity.status is StepStatus.FAILED and parity.error_kind is ErrorKind.CONTRADICTION
    (reductio,) = verify(request("Suppose, for contradiction, that x > 0. Then x^2 = 9.",
                                 query="Let x = -3. Find x^2.")).step_verdicts
    assert reductio.status is not StepStatus.FAILED


# ---- word problems: the rules alone never prove a step; the answer is the unknown the question asks for -----------
DUCKS = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")


@pytest.mark.parametrize("steps", [("16 - 3 - 4 = 9", "9 * 2 = 18"), ("16 + 3 + 4 = 23", "23 * 2 = 46")])
def test_a_word_problems_bare_arithmetic_is_relations_never_claim(steps):
    verdict = verify(request(*steps, query=DUCKS, answer=steps[-1].split("= ")[-1]))
    assert all(v.verified for v in verdict.step_verdicts)
    assert {v.evidence.kind for v in verdict.step_verdicts} == {"relations"}
    assert "word problem" in verdict.step_verdicts[0].evidence.note
    assert verdict.overall is Overall.PARTIAL and verdict.assurance is Assurance.ARITHMETIC


def test_a_stray_relation_or_a_named_unknown_does_not_turn_the_word_problem_rule_off():
    for query in (DUCKS + " Let d = 2.", DUCKS.replace("How much in dollars", "How many dollars x")):
        verdict = verify(request("16 + 3 + 4 = 23", "23 * 2 = 46", query=query))
        assert verdict.assurance is not Assurance.PROVEN and verdict.overall is not Overall.VERIFIED, query


def test_a_question_in_numbers_alone_is_no_word_problem():
    for query, steps, answer in (("What is 2 + 3?", ["2 + 3 = 5"], "5"), ("Find x if x + 2 = 7.", ["x = 7 - 2 = 5"], "5"),
                                 (HYPOTENUSE, [s["content"] for s in PYTHAGORAS], "z = 5")):
        verdict = verify(request(*steps, query=query, answer=answer))
        assert verdict.overall is Overall.VERIFIED and verdict.assurance is Assurance.PROVEN, query


def test_an_answer_that_is_not_the_questions_own_value_fails_the_last_step():
    wrong_op = verify(request("2 * 3 = 6", query="What is 2 + 3?", answer="6")).step_verdicts[0]
    assert wrong_op.status is StepStatus.FAILED and wrong_op.error_kind is ErrorKind.ANSWER_MISMATCH
    assert "2 + 3 is 5" in wrong_op.error_message
    legs = verify(request("Let x = 3 and y = 4", "By Pythagorean theorem, x + y = z", "So z = 3 + 4 = 7",
                          query=HYPOTENUSE, answer="z = 7")).step_verdicts[-1]
    assert legs.status is StepStatus.FAILED and "hypotenuse of a right triangle with legs 3 and 4 is 5" in \
        legs.error_message


@pytest.mark.parametrize(("steps", "answer"), [
    (("x = 7 - 2 = 5", "Check: 5 + 2 = 7"), "7"), (("x = 7 - 2 = 5", "5 + 2 = 7"), "7"),
    (("x = 7 - 2 = 5, so x + 2 = 7",), "7"),
])
def test_a_trailing_check_is_not_the_unknown_the_question_asks_for(steps, answer):
    last = verify(request(*steps, query="Find x if x + 2 = 7.", answer=answer)).step_verdicts[-1]
    assert last.status is StepStatus.FAILED and last.error_kind is ErrorKind.ANSWER_MISMATCH
    assert "x = 7 - 2 (step 1)" in last.error_message


@pytest.mark.parametrize("answer", ["$7$, not $5$", "the answer 5 is false", "\\neg 5", "It is not $5$", "5 or 6",
                                    "\\pm 5", "5 cents", "5 m"])
def test_an_answer_that_negates_or_states_more_is_unread_never_equal(answer):
    (step,) = verify(request("2 + 3 = 5", query="Ann has $2 and Bob has $3. How many dollars do they have?",
                             answer=answer)).step_verdicts
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.UNREADABLE_CLAIM, step.error_message


def test_a_refutation_says_where_in_the_step_the_false_relation_stands():
    text = "First 2 + 2 = 4, then $3 \\times 4 = 13$ and so on."
    failed = verify(request(text)).step_verdicts[0]
    assert failed.status is StepStatus.FAILED
    assert failed.error_message.endswith('(at "3 \\times 4 = 13", characters 24–38 of the step)')
    assert text[23:38] == "3 \\times 4 = 13"


def test_a_binder_that_gives_a_given_letter_a_new_meaning_is_unread_never_a_contradiction():
    query = "If $k=-0.7$, determine all solutions to the equation $\\sin 2x = \\frac{\\sqrt{3}}{2}$."  # olympiadbench-888
    general = ("The solutions are: \\[ 2x = \\frac{\\pi}{3} + 2k\\pi \\quad \\text{or} \\quad 2x = \\frac{2\\pi}{3} + "
               "2k\\pi \\quad \\text{for} \\quad k \\in \\mathbb{Z}. \\]")
    (step,) = verify(request(general, query=query)).step_verdicts
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is not ErrorKind.CONTRADICTION
    assert 'one side of an "or"' in step.error_message  # `\\quad \\text{or} \\quad` asserts neither side
    one = "The solutions are: \\[ 2x = \\frac{\\pi}{3} + 2k\\pi \\quad \\text{for} \\quad k \\in \\mathbb{Z}. \\]"
    (step,) = verify(request(one, query=query)).step_verdicts
    assert step.status is StepStatus.UNSUPPORTED and "gives k a new meaning" in step.error_message
    # asserting a property the given value lacks is still a contradiction
    (claim,) = verify(request("Since k is an integer, 2k = 2.", query=query)).step_verdicts
    assert claim.status is StepStatus.FAILED and claim.error_kind is ErrorKind.CONTRADICTION


def test_a_supplied_case_line_the_text_does_not_open_is_unaligned_never_a_pass():
    # a `case` line would make the checker forget b + 6 = 1 before the false b + 7 = 3: not the step's plan
    artifact = "# step 1 (checked)\nclaim b + 6 = 1  # x\ncase\nclaim b + 7 = 3  # x\n"
    (step,) = verify(request("So b + 6 = 1 and b + 7 = 3.", translations=[(1, artifact)])).step_verdicts
    assert step.status is not StepStatus.VERIFIED and step.error_kind is ErrorKind.UNALIGNED, step.error_message


# ---- false arithmetic that models write, refuted where it stands (ProcessBench rows) ------------------------------
@pytest.mark.parametrize(("text", "query", "located"), [
    # gsm8k-7: words in brackets after a number label it
    ("First, subtract the rainbow cookies from the total: 7995 (total cookies) - 2595 (rainbow cookies) = 4500.",
     ("The Adams family made 7995 cookies: 2595 rainbow cookies, 3075 oatmeal cookies and the rest chocolate chip. "
     "How many chocolate chip cookies?"), "7995 (total cookies) - 2595 (rainbow cookies) = 4500"),
    # gsm8k-36: a display after a colon, governed by an irregular form of the question's verb
    ("Now we sum the number of people seen each day: \\[ 50 + 70 + 140 + 240 = 400 \\]",
     "Conor can see 50 people on Monday. How many people did Conor see at the beach that week?",
     "50 + 70 + 140 + 240 = 400"),
    # math-4: a noun of counting after the relation's sentence
    ("To find the total number of arrangements, we multiply: 6 * 518400 = 3104400.",
     "In how many ways can the delegates sit?", "6 * 518400 = 3104400"),
    # gsm8k-51: a name written with an accent in the step and without one in the question
    ("He has 4(40) - 13 = 157 Pokémon cards left.", ("Bill has 40 Pokemon cards in each of 4 boxes and gives 13 away. "
     "How many does he have left?"), "4(40) - 13 = 157"),
    # gsm8k-34: a bare \boxed{} outside maths delimiters is transparent
    ("Total amount = 5000 + 10000 + 30000 = \\boxed{43000}.", ("Three people earn 5000, 10000 and 30000 dollars a "
     "month. What is the total amount?"), "5000 + 10000 + 30000 = \\boxed{43000}"),
])
def test_false_arithmetic_as_models_write_it_is_refuted_where_it_stands(text, query, located):
    (step,) = verify(request(text, query=query)).step_verdicts
    assert step.status is StepStatus.FAILED, step.error_message
    assert f'(at "{located}"' in step.error_message


@pytest.mark.parametrize("text", [
    "The LCM of 4, 6 = 12.",  # a list before the relation may be its left side
    "So the area of 5 = 25.",  # the noun applies to the left side
    "5 (squared) + 1 = 26",  # an operator word in brackets is no label
    "Each child gets 10/3 (rounded) = 3 apples.",
])
def test_a_noun_or_bracket_that_may_change_a_side_leaves_it_unread(text):
    (step,) = verify(request(text, query="Compute it.")).step_verdicts
    assert step.status is not StepStatus.FAILED, step.error_message


@pytest.mark.parametrize("steps", [
    # the factors of a product that is 0: each holds for one listed value (olympiadbench-73)
    ("So (k + 1)(k + 9) = 0.", "This gives \\[ k + 1 = 0 \\Rightarrow k = -1 \\] \\[ k + 9 = 0 \\Rightarrow k = -9 \\]"),
    # values listed for one name, bound and claimed in one breath (olympiadbench-192)
    ("Solving x^2 + 4x - 5 = 0: \\[ x = \\frac{-4 + 6}{2} = 1 \\quad \\text{and} \\quad x = \\frac{-4 - 6}{2} = -5 \\]",
     "The first pair \\( x^2 + 5x + 6 = 0 \\) and \\( x^2 + 5x - 6 = 0 \\) both have integer solutions."),
])
def test_values_listed_for_one_name_are_alternatives_never_refuted_together(steps):
    verdict = verify(request(*steps, query="Find the integer roots."))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]


def test_a_letter_an_earlier_step_fixed_given_another_value_without_a_conclusion_word_is_not_refuted():
    # olympiadbench-823: "For a = 2: N = 21 × 2 = 42" after "N = 21 × 1 = 21": N is each case's number
    steps = ("For a = 1: \\[ N = 21 \\times 1 = 21 \\]", "For a = 2: \\[ N = 21 \\times 2 = 42 \\]")
    verdict = verify(request(*steps, query="Find the palindromes N = 21a."))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    # with a conclusion word the step says the value follows from the earlier one: refuted
    wrong = verify(request("So x = 1/4.", "Therefore x = 2^6.", query="Find x."))
    assert statuses(wrong)[1] is StepStatus.FAILED


def test_a_quotient_with_a_remainder_in_latex_is_the_whole_quotient():
    (step,) = verify(request("\\[ 63 \\div 14 = 4 \\quad \\text{remainder} \\quad 7 \\]", query="Divide 63 by 14.")
                     ).step_verdicts
    assert step.status is not StepStatus.FAILED, step.error_message


# ---- misreadings that must never refute (ProcessBench rows people judged correct) ------------------------------
def test_what_a_case_step_bound_stays_in_its_case():
    # math-597: each step is one case; b = 50 of the first is not the b of the second
    first = ("First, for b-a = 1 and b+a = 99: Adding these equations gives: 2b = 100, so b = 50. "
             "Subtracting gives 2a = 98, so a = 49.")
    second = "Second, for b-a = 3 and b+a = 33: Adding these equations gives: 2b = 36, so b = 18."
    honest = verify(request(first, second))
    assert StepStatus.FAILED not in statuses(honest), [v.error_message for v in honest.step_verdicts]
    slip = verify(request(first, second.replace("2b = 36, so b = 18", "2b = 37")))
    # never refuted on "b - a = 3" against the first case's b - a = 1 ("for b - a = 3" is the case's hypothesis,
    # and the first case passes nothing on), and never verified on a false 2b = 37
    second_step = slip.step_verdicts[1]
    assert second_step.status in (StepStatus.FAILED, StepStatus.UNSUPPORTED), second_step.error_message
    if second_step.status is StepStatus.FAILED:
        assert second_step.error_message.startswith("2*b = 37 is false"), second_step.error_message


def test_a_relation_derived_to_reject_a_case_is_not_asserted():
    # olympiadbench-977: the step derives 0 = -44 to throw the case a = -1 out
    steps = ("Solve a^2 - 1 = 0: a = 1 or a = -1.",
             "If a = -1: (-1)b + b = 44(-1), so 0 = -44. This is a contradiction, so there is no solution for a = -1.")
    verdict = verify(request(*steps))
    assert verdict.step_verdicts[1].status is not StepStatus.FAILED, verdict.step_verdicts[1].error_message
    plain = verify(request(steps[0], "If a = 2: 2b + b = 44 * 2, so 3b = 89."))
    assert plain.step_verdicts[1].status is StepStatus.FAILED


def test_a_letter_two_steps_give_different_values_refutes_nothing():
    # olympiadbench-997: each step computes its own k
    steps = ("6 = 3^1 * 2, so k = 1 and d(6) = 3^(-1) = 1/3.",
             "Next, 16 = 3^0 * 16. In this case, k = 0 and d(16) = 3^(-k) = 1.")
    verdict = verify(request(*steps))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    # a letter only one step gives a value still refutes
    wrong = verify(request("So k = 1.", "Then 3^k = 4."))
    assert statuses(wrong)[1] is StepStatus.FAILED


def test_the_first_relation_of_a_case_is_its_condition():
    # olympiadbench-989: the absolute value gives two cases, one of which the known equation excludes
    steps = ("Since this distance is equal to the radius r, we have |12r - 60|/13 = r.",
             "This gives us two cases to consider:\nFirst, 12r - 60 = 13r\nSecond, 12r - 60 = -13r")
    verdict = verify(request(*steps, query="A circle has radius r. Compute r."))
    assert verdict.step_verdicts[1].status is not StepStatus.FAILED, verdict.step_verdicts[1].error_message


def test_a_refutation_needing_only_the_assumed_nonnegativity_refutes_nothing():
    # math-741: the plan reads "distance" as x >= 0, but x is a coordinate, and the chain keeps x = -4
    query = "A point (x, y) with both coordinates negative is a distance of 15 units from the point (8, 3). Find x."
    steps = ("So (x - 8)^2 + 81 = 225.", "Therefore, x = -4.")
    verdict = verify(request(*steps, query=query))
    assert verdict.step_verdicts[1].status is StepStatus.UNSUPPORTED, verdict.step_verdicts[1].error_message
    assert "assumed premise" in verdict.step_verdicts[1].error_message
    # false whatever the sign: still refuted
    wrong = verify(request(steps[0], "Therefore, x = -5.", query=query))
    assert wrong.step_verdicts[1].status is StepStatus.FAILED


def test_a_value_a_case_step_computed_is_not_derived_for_the_steps_after_it():
    # attempts to fake a pass now that case steps pass nothing on: the later value is a conclusion nothing determines
    for steps in (("If x = 2, then z = 2x = 4.", "So z = 7."), ("If x = 2, then z = 2x = 4.", "So z = 4.")):
        verdict = verify(request(*steps, query="Compute."))
        assert verdict.step_verdicts[1].status is StepStatus.UNSUPPORTED, steps
        assert verdict.overall is not Overall.VERIFIED


def test_equations_sympy_solves_only_in_part_decide_nothing():
    # sin x = 0 has more solutions than the x = 0 and x = pi SymPy lists: x < 4 is not proven by those two (it was
    # VERIFIED), and a relation false at both may hold at another (olympiadbench-276, `sin x = tan x`)
    fake = verify(request("We know \\( \\sin(x) = 0 \\).", "Then x < 4.", query="Find x."))
    assert fake.step_verdicts[1].status is StepStatus.UNSUPPORTED, fake.step_verdicts[1].error_message
    assert "non-algebraic" in fake.step_verdicts[1].error_message
    # |x - 1| = x - 1 holds on all of x >= 1 (math-627): it decides nothing either
    query = "Find the area of the region above the graph of y = |x - 1| + |x - 3| and below y = 8."
    interval = verify(request("We know \\( |x - 1| = x - 1 \\).", "So \\( |x - 3| = 3 - x \\).", query=query))
    assert interval.step_verdicts[1].status is StepStatus.UNSUPPORTED, interval.step_verdicts[1].error_message
    # an algebraic system still refutes and verifies
    wrong = verify(request("So x^2 - 5x + 6 = 0 and x > 2.5.", "Then x = 2.", query="Find x."))
    assert wrong.step_verdicts[1].status is StepStatus.FAILED
    right = verify(request("So x^2 - 5x + 6 = 0 and x > 2.5.", "Then x = 3.", query="Find x."))
    assert right.step_verdicts[1].status is StepStatus.VERIFIED


def test_a_complex_number_in_an_equation_is_not_refuted_for_being_complex():
    # olympiadbench-478: "where i = \sqrt{-1}" defines the imaginary unit; the check works in the reals
    verdict = verify(request("Here z = a + bi, where \\( i = \\sqrt{-1} \\).", query="Find z."))
    assert verdict.step_verdicts[0].status is not StepStatus.FAILED, verdict.step_verdicts[0].error_message
    assert "complex" in verdict.step_verdicts[0].error_message
    # an order between a non-real number and a real one means nothing: still refuted
    order = verify(request("So \\( 3 > \\sqrt{-7} \\).", query="Compute."))
    assert order.step_verdicts[0].status is StepStatus.FAILED, order.step_verdicts[0].error_message


def test_one_expression_given_several_values_lists_alternatives():
    # omnimath-798: the two factors of z^2 - 121 = 0, each an equation to solve, not two facts that both hold
    step = "Since z = y^2 + 3y, we need to solve two equations: First, y^2 + 3y = 11, and Second, y^2 + 3y = -11."
    verdict = verify(request("Let y be a positive number with y^4 + 6y^3 + 9y^2 = 121.", step, query="Find y."))
    assert verdict.step_verdicts[1].status is not StepStatus.FAILED, verdict.step_verdicts[1].error_message
    # one value for the expression is still a claim, and a false one is refuted
    wrong = verify(request("So x^2 - 5x + 6 = 0 and x > 2.5.", "Then x^2 + 1 = 5.", query="Find x."))
    assert wrong.step_verdicts[1].status is StepStatus.FAILED


def test_one_root_of_several_is_a_case_not_a_binding():
    # olympiadbench-909: "one solution x = 0" names one root; the others follow, so x is not 0 from here on
    steps = ("Substituting, \\( x^2 \\left( 1 + \\frac{x^2}{k^2} - \\frac{10}{k} \\right) = 0 \\).",
             ("This equation gives us one solution \\( x = 0 \\), and the other solutions come from "
             "\\[ x^2 = k(10 - k). \\]"),
             ("For \\( x^2 = k(10 - k) \\) to have real solutions, \\( 0 \\leq k \\leq 10 \\). Since \\( k \\) "
             "is a positive integer, we have \\( 1 \\leq k \\leq 9 \\)."))
    query = "For some positive integers $k$, the parabola $y=\\frac{x^{2}}{k}-5$ meets the circle $x^{2}+y^{2}=25$."
    verdict = verify(request(*steps, query=query))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]


def test_the_listing_rules_never_make_a_pass():
    # attempts to fake a pass through "one solution x = …" and expressions given several values
    query = "Solve x^2 - 5x + 6 = 0 for the larger root x."
    for steps, answer in ((("This gives us one solution x = 7.",), "7"),
                          (("This gives us one solution x = 7.", "So x + 1 = 8."), "8"),
                          (("We get x^2 = 5 and x^2 = 7.", "So x = 3."), "3"),
                          (("We get x - 1 = 2 and x - 1 = 5.",), "")):
        verdict = verify(request(*steps, query=query, answer=answer))
        assert verdict.overall is not Overall.VERIFIED, steps
        assert all(v.status is not StepStatus.VERIFIED for v in verdict.step_verdicts[:1]), steps


def test_a_listed_root_is_refuted_only_when_it_solves_none_of_the_cases():
    # math-621: "x^3 = 0 and x^2 - x - 72 = 0" are the two cases of x^3(x^2 - x - 72) = 0, not two facts
    steps = ("Factoring, \\[x^3(x^2 - x - 72) = 0.\\]",
             "This gives us two separate equations to solve: First, \\(x^3 = 0\\) and Second, \\(x^2 - x - 72 = 0\\).",
             "From the first equation, we get: \\[x = 0.\\]",
             "This gives us two solutions: \\[x = \\frac{1 + 17}{2} = 9,\\] \\[x = \\frac{1 - 17}{2} = -8.\\]")
    verdict = verify(request(*steps, query="Solve x^5 = x^4 + 72x^3."))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    # a root of neither case is still refuted, and one of a case is still not verified
    wrong = verify(request(*steps[:3], "This gives us two solutions: x = 9 or x = 5.", query="Solve x^5 = x^4 + 72x^3."))
    assert wrong.step_verdicts[3].status is StepStatus.FAILED
    assert wrong.step_verdicts[3].error_message.startswith("x = 5 is not a solution of")
    assert verify(request(*steps, query="Solve x^5 = x^4 + 72x^3.")).step_verdicts[3].status \
        is not StepStatus.VERIFIED


def test_an_order_after_the_values_listed_for_a_name_speaks_of_the_name_in_general():
    # math-803: the sign chart's inequality after the roots is about every x, not x at a root (where it is 0)
    steps = (("Next, we need to find the roots of the quadratic equation \\(x^2 - 8x + 13 = 0\\). Using the "
              "quadratic formula, we get:\n\\[ x = \\frac{8 \\pm \\sqrt{64 - 52}}{2} = \\frac{8 \\pm 2\\sqrt{3}}{2} "
              "= 4 \\pm \\sqrt{3} \\]"),
             ("So the roots are \\(x = 4 + \\sqrt{3}\\) and \\(x = 4 - \\sqrt{3}\\). The quadratic \\(x^2 - 8x + "
              "13\\) can be factored as \\((x - (4 + \\sqrt{3}))(x - (4 - \\sqrt{3}))\\). Therefore, the inequality "
              "becomes:\n\\[ \\frac{(x - (4 + \\sqrt{3}))(x - (4 - \\sqrt{3}))}{(x-1)(x-7)} < 0 \\]"))
    verdict = verify(request(*steps, query="Find all $x$ such that $\\frac{1}{x-1}-\\frac{1}{x-7}>1$."))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    # an order that fails at one listed value is not passed either
    for step in ("So x = 2 or x = 3, and x > 2.5.", "So x = 2 or x = 3. Then x > 2.5."):
        assert verify(request(step, query="Solve (x - 2)(x - 3) = 0.")).step_verdicts[0].status \
            is not StepStatus.VERIFIED, step


def test_a_letter_of_the_question_given_a_new_meaning_with_let_refutes_nothing_through_it():
    # olympiadbench-714: x is the root variable of the question's x^2 - 180x + 8 = 0; "Let x = a + b" is a new x
    query = "The solutions to the equation $x^{2}-180 x+8=0$ are $r_{1}$ and $r_{2}$. Compute r_1 + r_2."
    steps = ("Since \\(ab = 2\\), we get: \\[ 180 = (a+b)((a+b)^2 - 6) \\]",
             "Let \\(x = a+b\\). Then the equation becomes: \\[ 180 = x(x^2 - 6) \\] \\[ x^3 - 6x - 180 = 0 \\]")
    verdict = verify(request(*steps, query=query))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    # renaming the question's letter passes nothing: the new value is not verified
    for step in ("Let x = 7. So x = 7.", "Let x = 7. Then x + 1 = 8."):
        verdict = verify(request(step, query="Solve x^2 - 5x + 6 = 0 for x.", answer="7"))
        assert verdict.overall is not Overall.VERIFIED and verdict.step_verdicts[0].status is not StepStatus.VERIFIED


def test_equations_in_one_name_that_share_no_root_are_cases_not_facts():
    # olympiadbench-464: the critical points' equations cannot all hold, so x = -1 is no fact for the next steps
    query = "Determine all values of $x$ for which $0<\\frac{x^{2}-11}{x+1}<7$."
    steps = (("We find the critical points where the expression equals zero or is undefined:\n- The numerator "
              "\\( x^2 - 11 = 0 \\) gives \\( x = \\pm \\sqrt{11} \\).\n- The denominator \\( x + 1 = 0 \\) gives "
              "\\( x = -1 \\)."),
             "First, in the interval \\( (-\\infty, -\\sqrt{11}) \\):\n- \\( x^2 - 11 > 0 \\) (since \\( x^2 > 11 \\))")
    verdict = verify(request(*steps, query=query))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    assert verdict.step_verdicts[0].status is not StepStatus.VERIFIED
    # equations that share a root stay facts: a wrong claim after them is still refuted
    assert statuses(verify(request("So x^2 - 4 = 0 and x + 2 = 0.", "So x + 5 = 4.")))[1] is StepStatus.FAILED


def test_an_item_of_an_enumeration_is_not_refuted_by_a_sibling_item():
    # olympiadbench-685: "First, (x+8)^2 = 0 ⟹ x = -8" and "Second, (x+8)^2 - 4 = 0" are the two factors' cases
    query = "Determine all real values of $x$ for which $(x+8)^{4}=(2 x+16)^{2}$."
    steps = ("This equation will be satisfied if either factor is zero. So, we set each factor equal to zero:",
             "First, \\((x+8)^2 = 0\\) \\[ x+8 = 0 \\implies x = -8 \\]",
             "Second, \\((x+8)^2 - 4 = 0\\) \\[ (x+8)^2 = 4 \\]")
    verdict = verify(request(*steps, query=query))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    # an item that is false whatever its sibling says is still refuted
    wrong = verify(request(*steps[:2], "Second, \\(2 + 2 = 5\\)", query=query))
    assert wrong.step_verdicts[2].status is StepStatus.FAILED
    # olympiadbench-989: cases named mid-sentence, the first one rejected
    steps = ("This gives us two cases to consider:\nFirst, \\(12r - 60 = 13r\\)\nSecond, \\(12r - 60 = -13r\\)",
             ("Solving the first case:\n\\[ 12r - 60 = 13r \\implies -60 = r \\implies r = -60, \\]\nwhich is not "
              "possible since \\(r\\) must be positive."),
             ("Solving the second case:\n\\[ 12r - 60 = -13r \\implies 25r = 60 \\implies r = \\frac{60}{25} = "
              "\\frac{12}{5}. \\]"))
    verdict = verify(request(*steps, query="A circle with radius $r$ is tangent to both legs. Compute $r$."))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    # olympiadbench-927, -653: a case that runs over several steps, and one opened by the value it supposes
    query = "A geometric sequence has first term $a$, ratio $r$ and 4 terms. Its sum is $6+6 \\sqrt{2}$. Find $a$."
    for second in (("**Case 2: \\(r = -\\sqrt{2}\\)**", "So \\[ 3a(1-\\sqrt{2}) = 6 + 6\\sqrt{2} \\]"),
                   ("For \\(r = -\\sqrt{2}\\): \\[ a(3 - 3\\sqrt{2}) = 6 + 6\\sqrt{2} \\]",)):
        steps = ("**Case 1: \\(r = \\sqrt{2}\\)** \\[ 3a(1+\\sqrt{2}) = 6 + 6\\sqrt{2} \\]",
                 "Dividing, \\[ a = \\frac{6 + 6\\sqrt{2}}{3(1+\\sqrt{2})} = 2 \\]", *second)
        verdict = verify(request(*steps, query=query))
        assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]


def test_a_claim_undefined_at_the_values_a_step_sets_a_name_to_is_about_the_name_in_general():
    # omnimath-697: the partial fractions hold for every n; the step set n = -1 and n = -4 only to find A and B
    steps = ("We decompose: \\[ \\frac{1}{(n+1)(n+4)} = \\frac{A}{n+1} + \\frac{B}{n+4}. \\] So \\[ 1 = A(n+4) + B(n+1). \\]",
             ("Setting \\(n = -1\\) yields \\(1 = 3A \\Rightarrow A = \\frac{1}{3}\\), and setting \\(n = -4\\) yields "
              "\\(1 = -3B \\Rightarrow B = -\\frac{1}{3}\\). Thus, \\[ \\frac{1}{(n+1)(n+4)} = \\frac{1}{3(n+1)} - "
              "\\frac{1}{3(n+4)}. \\]"))
    verdict = verify(request(*steps, query="Find the value of $\\frac{1}{3^{2}+1}+\\frac{1}{4^{2}+2}+\\cdots$."))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    assert verdict.step_verdicts[1].status is not StepStatus.VERIFIED


def test_claims_that_contradict_each_other_under_a_supposition_refute_the_supposition_not_the_step():
    # omnimath-983: under "p3 = p4 = … = 0" the three moment equations are inconsistent, as the step goes on to find
    step = ("To find the smallest possible value of \\(p_0\\), we will consider the possibility that \\(X\\) can only "
            "take on the values 0, 1, and 2. Let's assume \\(p_3 = p_4 = \\cdots = 0\\). Then the equations simplify "
            "to:\n\\[ p_1 + 2p_2 = 1, \\]\n\\[ p_1 + 4p_2 = 2, \\]\n\\[ p_1 + 8p_2 = 5. \\]")
    query = "X takes nonnegative integer values with E[X] = 1, E[X^2] = 2 and E[X^3] = 5. Find the least P(X=0)."
    verdict = verify(request(step, query=query))
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED, verdict.step_verdicts[0].error_message
    # the same equations asserted outright contradict each other: refuted
    plain = "So \\[ p_1 + 2p_2 = 1, \\]\n\\[ p_1 + 4p_2 = 2, \\]\n\\[ p_1 + 8p_2 = 5. \\]"
    assert verify(request(plain, query=query)).step_verdicts[0].status is StepStatus.FAILED
    # a supposition does not shield a claim that what came before refutes on its own
    steps = ("So p + q = 3 and p - q = 1.", "Let's assume r = 0. Then p + 2q = 4 and p = 7.")
    assert verify(request(*steps)).step_verdicts[1].status is StepStatus.FAILED


def test_a_function_the_chain_defines_is_never_read_as_a_product():
    # math-586: p(n) = n^2 - n + 41, so p(n+1) is p's value at n + 1, not p times n + 1
    query = ("Euler discovered that the polynomial $p(n) = n^2 - n + 41$ yields prime numbers for many small positive "
             "integer values of $n$. What is the smallest positive integer $n$ for which $p(n)$ and $p(n+1)$ share a "
             "common factor greater than $1$?")
    steps = (("First, let's express \\( p(n+1) \\):\n\\[ p(n+1) = (n+1)^2 - (n+1) + 41 = n^2 + 2n + 1 - n - 1 + 41 = "
              "n^2 + n + 41. \\]"),
             ("Now, we need to find the greatest common divisor of \\( p(n) \\) and \\( p(n+1) \\):\n\\[ \\gcd(p(n), "
              "p(n+1)) = \\gcd(n^2 - n + 41, n^2 + n + 41). \\]"))
    verdict = verify(request(*steps, query=query))
    assert StepStatus.FAILED not in statuses(verdict), [v.error_message for v in verdict.step_verdicts]
    assert all(v.status is not StepStatus.VERIFIED for v in verdict.step_verdicts)
    # where nothing defines a function, a letter before brackets is a factor, and a wrong product is refuted
    assert statuses(verify(request("So 1 = A(n+4) + B(n+1) and A = 1, B = 2, n = 0.", "So A(n+4) = 5.")))[1] \
        is StepStatus.FAILED
