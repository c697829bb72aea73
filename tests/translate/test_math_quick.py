"""MathTranslator end to end through verify_chain: artifacts per step, the cascade, hostile steps."""


import pytest

from reasonforge.lang.math.reading import read_question
from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.math_quick import MathTranslator
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    Overall,
    ReasoningStep,
    StepStatus,
    VerifyRequest,
)
from reasonforge.verify.math import plan_step, read_step
from reasonforge.verify.math.relations import parse_artifact

QUERY = "Find the hypotenuse of a right triangle with legs 3 and 4"


def chain(*steps, query=QUERY, answer=""):
    return VerifyRequest.model_validate({
        "original_query": query, "claimed_answer": answer, "domain": "mathematics", "proof_level": "quick",
        "reasoning_chain": [step if isinstance(step, dict) else {"step_id": i + 1, "content": step}
                            for i, step in enumerate(steps)],
    })


def pythagoras(step3="So z² = 9 + 16 = 25"):
    return chain(
        {"step_id": 1, "content": "Let x = 3 and y = 4"},
        {"step_id": 2, "content": "By Pythagorean theorem, x² + y² = z²", "dependencies": [1]},
        {"step_id": 3, "content": step3},
        {"step_id": 4, "content": "Therefore z = 5", "claimed_conclusion": "z = 5"},
        answer="z = 5",
    )


def verify(request, timeout=10.0):
    return verify_chain(request, translator=MathTranslator(), limits=CheckLimits(timeout_s=timeout))


def test_design_pythagoras_chain_is_verified():
    verdict = verify(pythagoras())
    assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.status, v.error_message) for v in verdict.step_verdicts]
    step1, step2, _, step4 = verdict.step_verdicts
    assert step1.details["kind"] == "definition" and step2.details["kind"] == "definition"
    assert step4.translator_spec.name == "math-rules"
    assert step4.checker_spec.name == "sympy-relations"
    # step 4 is checked alone: its artifact carries what it uses
    artifact = step4.formal_representation
    assert "let x = 3\nlet y = 4" in artifact and "fact x^2 + y^2 = z^2" in artifact
    assert "assume z >= 0" in artifact and "claim z = 5" in artifact
    parse_artifact(artifact)


def test_slip_at_step_3_fails_there_and_invalidates_dependants():
    verdict = verify(pythagoras("So z² = 9 + 16 = 24"))
    statuses = [v.status for v in verdict.step_verdicts]
    assert statuses == [StepStatus.VERIFIED, StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.INVALIDATED]
    assert verdict.overall is Overall.PARTIAL
    report = verdict.failure_report
    assert report.failed_step_id == 3 and report.cascade_impact == [4] and report.last_valid_step == 2
    assert report.verification_error.startswith("9 + 16 = 24 is false: 9 + 16 = 25 (at ")
    assert report.suggested_fix and "recompute" in report.suggested_fix


def test_without_a_length_word_the_sign_is_left_open():
    verdict = verify(pythagoras().model_copy(update={"original_query": "Solve for z"}))
    last = verdict.step_verdicts[-1]
    assert last.status is StepStatus.UNSUPPORTED and "z = -5" in last.error_message


def test_givens_from_the_query_and_steps_without_relations():
    request = chain("The price doubles, so p = 2*12 = 24.", "Nothing to compute here.",
                    query="A ticket costs q = 12 dollars. What does it cost after it doubles?")
    translations = MathTranslator().translate_chain(request, {1: (), 2: (1,)})
    assert translations[0].language is ArtifactLanguage.SYMPY
    assert "# givens (from the query)" in translations[0].formal_representation
    assert translations[1].formal_representation == "" and translations[1].translation_confidence == 0
    assert 'no checkable relation in "Nothing to compute here."' in translations[1].notes
    verdict = verify(request)
    assert [v.status for v in verdict.step_verdicts] == [StepStatus.VERIFIED, StepStatus.UNSUPPORTED]


def test_gsm8k_answer_line_is_checked_against_the_last_computed_value():
    natalia = "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May."
    good = verify(chain("Natalia sold 48/2 = <<48/2=24>>24 clips in May.",
                        "She sold 48+24 = <<48+24=72>>72 clips altogether.", "#### 72", query=natalia))
    # Every step verified; the prose around the arithmetic is not proven, so the chain is PARTIAL.
    assert all(v.verified for v in good.step_verdicts) and good.overall is Overall.PARTIAL
    cents = verify(chain("The can costs 12/48 = $<<12/48=0.25>>0.25.", "#### 25",
                         query="48 cans cost $12. How many cents does a can cost?"))
    assert all(v.verified for v in cents.step_verdicts)  # the answer in cents, which the question asks for
    # in cents where the question asks dollars, or rounded (up for buses, down for full boxes: the question
    # decides which), the answer is left unchecked
    for query, computed, answer in (("48 cans cost $12. How much does a can cost?", "12/48 = <<12/48=0.25>>0.25",
                                     "#### 25"),
                                    ("50 students share 768 pages.", "768/50 = <<768/50=15.36>>15.36", "#### 15")):
        unchecked = verify(chain(f"Each gets {computed}.", answer, query=query))
        assert unchecked.step_verdicts[1].status is StepStatus.UNSUPPORTED, query
    # an answer that is not the last computed value is no evidence of an error: left unchecked
    other = verify(chain("She sold 48+24 = <<48+24=72>>72 clips altogether.", "#### 70", query=natalia))
    assert other.step_verdicts[1].status is StepStatus.UNSUPPORTED
    assert "70 is not the last computed value" in other.step_verdicts[1].error_message


def test_a_sentence_that_only_states_the_boxed_answer_is_an_answer_line():
    marbles = "Sean has 56 marbles. Cal has twice as many. How many do they have together?"
    steps = ("Cal has 56 * 2 = 112 marbles.", "Together they have 56 + 112 = 168 marbles.")

    def last(sentence):
        return verify(chain(*steps, sentence, query=marbles)).step_verdicts[-1]

    for sentence in ("Therefore, the combined number of marbles Sean and Cal have is \\boxed{168}.",
                     "So they have $\\boxed{168}$ marbles.", "Thus, the final answer is \\(\\boxed{168}\\)."):
        assert last(sentence).status is StepStatus.VERIFIED, sentence
    # another value is no evidence of an error (it may be one computed earlier): unchecked, never refuted
    earlier = last("Therefore, Cal has \\boxed{112} marbles.")
    assert earlier.status is StepStatus.UNSUPPORTED and "112 is not the last computed value" in earlier.error_message
    # a sentence that says more than "the answer is N" is no answer line: a bound, a negation, another number
    for sentence in ("So they have at least \\boxed{168} marbles.", "The answer is not \\boxed{168}.",
                     "After 2 days they have \\boxed{168} marbles.", "So x = \\boxed{168}.",
                     "They have \\boxed{168} or \\boxed{170} marbles.", "The answer is - \\boxed{168}.",
                     "They have \\boxed{168} marbles left after losing ten.", "The answer isnt \\boxed{168}.",
                     "Instead of \\boxed{168}, the answer is different.", "So they have a quarter of \\boxed{168}.",
                     "They have \\boxed{168} pairs of marbles.", "They have \\boxed{168} cents."):
        assert last(sentence).status is StepStatus.UNSUPPORTED, sentence
    # an answer said of someone the question tells of but does not ask about is not the asked quantity
    told = "Sean has 56 marbles. Cal has twice as many as Sean. How many marbles does Cal have?"
    said_of = [verify(chain("Cal has 56 * 2 = 112 marbles.", f"{who} \\boxed{{112}} marbles.", query=told))
               .step_verdicts[-1] for who in ("So Cal has", "Sean has")]
    assert [v.status for v in said_of] == [StepStatus.VERIFIED, StepStatus.UNSUPPORTED]
    assert "it speaks of Sean, whom the question does not ask about" in said_of[1].error_message
    # in words, the answer is the value itself in the unit it was computed in: no cents reading, no rounding
    pens = "Two pens cost 22.8 dollars. How much is a pen?"
    for sentence, status in (("So a pen costs \\boxed{11.4} dollars.", StepStatus.VERIFIED),
                             ("So a pen costs \\boxed{1140} dollars.", StepStatus.UNSUPPORTED),
                             ("So a pen costs exactly \\boxed{11} dollars.", StepStatus.UNSUPPORTED),
                             ("So a pen costs \\boxed{11.4} hours.", StepStatus.UNSUPPORTED),
                             ("#### 1140", StepStatus.UNSUPPORTED)):  # cents only where the question asks them
        answered = verify(chain("A pen costs 22.8 / 2 = 11.4 dollars.", sentence, query=pens)).step_verdicts[-1]
        assert answered.status is status, sentence


def test_case_analysis_does_not_leak_into_later_steps():
    verdict = verify(chain(r"If \(b = 0\), then \(13 + 20 \cdot 0 = 13\).",
                           r"If \(b = 1\), then \(13 + 20 \cdot 1 = 33\).", query="Find b."))
    assert verdict.overall is Overall.VERIFIED


@pytest.mark.parametrize(
    ("content", "status", "words"),
    [
        (r"Then \(\frac{1}{2 = \sqrt{", StepStatus.UNSUPPORTED, "no checkable relation"),
        ("So " + "9" * 10_000 + " + 1 = 1" + "0" * 10_000, StepStatus.VERIFIED, ""),
        ("So x = x + 1", StepStatus.FAILED, "can never hold"),
        ("Let x = x + 1", StepStatus.ERROR, "x itself"),
        ("So 1/0 = 5", StepStatus.FAILED, "division by zero"),
        ("So w > 3", StepStatus.UNSUPPORTED, "nothing above it determines w"),
        ("So 2^2^2^2^2^2 = 4", StepStatus.ERROR, "not evaluated"),
        ("So 10^10^10 = 5", StepStatus.ERROR, "not evaluated"),
    ],
)
def test_hostile_steps_get_a_clear_status_and_message(content, status, words):
    verdict = verify(chain(content, query="Compute."))  # each check is bounded; pytest-timeout guards hangs
    (step,) = verdict.step_verdicts
    assert step.status is status, step
    assert words in (step.error_message or "")


def test_claimed_conclusion_is_checked_as_a_claim():
    request = chain("Let x = 3", {"step_id": 2, "content": "We are done.", "claimed_conclusion": "x = 4"},
                    query="Compute.")
    verdict = verify(request)
    assert verdict.step_verdicts[1].status is StepStatus.FAILED
    assert verdict.step_verdicts[1].error_message.startswith("x = 4 is false: x = 3 (at ")


def test_a_quantity_restated_in_other_units_is_checked_in_those_units():
    # GSM8K row 3377: x is in hours in step 2 and in minutes from step 3 on
    steps = ["So the time for running and weight lifting is x + 2x = 3x = 1 hour",
             "Thus 3x = 60 minutes", "Thus x = 60/3 = <<60/3=20>>20 minutes spent weight lifting."]
    # the question states the hour and the "twice" that step 1 uses: every operand is grounded
    query = ("Kyle spends 1 hour running and lifting weights, running twice as long as he lifts. How many minutes "
             "does he spend lifting weights?")
    verdict = verify(chain(*steps, query=query))
    assert [v.status for v in verdict.step_verdicts] == [StepStatus.VERIFIED] * 3, verdict.step_verdicts
    assert "fact 3*x = 1*60  # 3*x = 1 in hours, here in minutes" in verdict.step_verdicts[1].formal_representation
    wrong = verify(chain(steps[0], "Thus 3x = 50 minutes", query=query))
    assert wrong.step_verdicts[1].status is StepStatus.FAILED
    assert wrong.step_verdicts[1].error_message.startswith("3*x = 50 is false: the known equations give x = 20 (at ")


@pytest.mark.parametrize(
    ("query", "names", "words"),
    [
        ("Find c.", {"c"}, set()),
        ("Solve for x: 2x + 3 = 7", {"x"}, set()),
        ("What is the value of $x$?", {"x"}, set()),
        ("Find a and b such that a + b = 3", {"a", "b"}, set()),
        ("x = ?", {"x"}, set()),
        ("What is the length of the third side c?", {"c"}, {"length", "third", "side"}),
        ("A right triangle has legs 3 and 4. What is the hypotenuse?", set(), {"hypotenuse"}),
        ("How many clips did Natalia sell altogether in April and May?", set(), {"clips"}),
        ("Let x be 3. What is x + 2?", set(), set()),  # x + 2 is asked for, not x
        ("Find a number n.", set(), set()),
    ],
)
def test_read_question_finds_what_is_asked_for(query, names, words):
    question = read_question(query)
    assert question.asked_names == names
    assert question.asked_words == words | {"answer"}


def test_the_question_s_conditions_are_givens():
    question = read_question("Find x if 2x + 3 = 7, for y = 2.")
    assert [r.text for r in question.givens.claims] == ["2*x + 3 = 7"]
    assert [r.text for r in question.givens.bindings] == ["y = 2"]
    assert not question.givens.cases and not question.givens.assumptions


@pytest.mark.parametrize(
    ("query", "givens"),
    [
        ("Is x = 5? Find x + 1.", []),
        ("x = 5?", []),
        ("Could x = 5? Find 2x.", []),
        ("Does x = 5 hold? What is x + 1?", []),
        ("If y = 2, is x = 5? Find x + y.", ["y = 2"]),  # the condition is given, the asked relation is not
        ("What is x if 2x + 3 = 7?", ["2*x + 3 = 7"]),
        ("Given x = 3 and y = 4, what is x + y?", ["x = 3", "y = 4"]),
    ],
)
def test_a_question_s_interrogative_relations_are_never_givens(query, givens):
    assert [r.text for r in read_question(query).givens.relations] == givens


def test_givens_that_contradict_each_other_are_reported():
    for query, pair in (("Let x = 3. Let x = 4.", ("x = 3", "x = 4")), ("Let x = 3. x + 1 = 5.", ("x = 3", "x + 1 = 5")),
                        ("Let x = 3. Suppose x > 5.", ("x = 3", "x > 5"))):
        question = read_question(query)
        assert [(a.text, b.text) for a, b in question.conflicts] == [pair], query
        assert question.conflicting_names == {"x"} and "x" not in question.given_values
    for query in ("Let x = 3. x + 1 = 4.", "f gives 15 when x = 2 and 3 when x = 5."):  # consistent; scenarios
        assert read_question(query).conflicts == (), query


def plan(text, query="", ancestors=()):
    before = [(ReasoningStep(step_id=i + 1, content=t), read_step(ReasoningStep(step_id=i + 1, content=t)))
              for i, t in enumerate(ancestors)]
    return plan_step(ReasoningStep(step_id=len(ancestors) + 1, content=text), read_question(query), before)


def test_bindings_of_names_that_are_not_fresh_are_claims():
    fresh = plan("Let x = 3.")
    assert fresh.own == ('define x = 3  # "x = 3"',) and not fresh.notes
    asked = plan("Let c = 9.", query="Find c.")
    assert asked.own == ('claim c = 9  # "c = 9"',)
    assert asked.notes == ("c is what the question asks for: `c = 9` is a claim to check, not a binding",)
    named = plan("Therefore the hypotenuse c = 9.", query="What is the hypotenuse?")
    assert named.asked == {"c"}
    determined = plan("Let c = 9.", ancestors=["So c^2 = 3^2 + 4^2."])
    assert determined.own[-1].startswith("claim c = 9") and "fact c^2 = 3^2 + 4^2" in determined.premises
    implicit = plan("x = 5. So x + 1 = 6.", ancestors=["So 2x = 6."])
    assert implicit.own[0].startswith("claim x = 5")
    given = plan("Let y = 5.", query="Given y = 2, find 2y.")
    assert given.own[0].startswith("claim y = 5") and "let y = 2" in given.premises
    assert [(r.relation.text, r.given.text) for r in given.rebound] == [("y = 5", "y = 2")]
    assert plan("Let y = 2.", query="Given y = 2, find 2y.").rebound == ()  # a restated given


def test_an_explicit_case_of_an_asked_or_determined_name_stays_a_case():
    asked = plan(r"If \(b = 0\), then \(13 + 20 \cdot 0 = 13\).", query="Find b.")
    assert asked.own[0].startswith("define b = 0")
    determined = plan("For x = 2, x^2 - 5x + 6 = 0.", ancestors=["So x^2 - 5x + 6 = 0."])
    assert determined.own[0].startswith("define x = 2")
    given = plan("If y = 5, then 3y = 15.", query="Given y = 2, compute 3y.")
    # a case of a given is a claim against it, but one the step supposes: never asserted, never a rebinding
    assert given.own[0].startswith("claim y = 5")
    assert [(r.relation.text, r.asserted, r.hypothesis) for r in given.rebound] == [("y = 5", False, True)]
    supposed = plan("Suppose y = 5. Then 3y = 15.", query="Given y = 2, compute 3y.")
    assert [(r.asserted, r.hypothesis) for r in supposed.rebound] == [(False, True)]
    let = plan("Let y = 5. Then 3y = 15.", query="Given y = 2, compute 3y.")
    assert [(r.asserted, r.hypothesis) for r in let.rebound] == [(True, False)]


@pytest.mark.parametrize(
    ("answer", "computed", "claim"),
    [
        ("72", "48+24 = 72", "claim 72 = 72"),
        ("15", "768/50 = 15.36", None),  # rounded: up, down or to the nearest, as the question wants
        ("15.4", "768/50 = 15.36", None),
        ("25", "12/48 = 0.25", None),  # in cents only where the question asks for cents
        ("71", "48+22 = 70", None),  # within the old ≈ allowance of a whole unit, but not the value
        ("16", "768/50 = 15.36", None),  # not 15.36 rounded
        ("26", "12/48 = 0.25", None),
    ],
)
def test_an_answer_line_is_the_last_value_exactly(answer, computed, claim):
    result = plan(f"#### {answer}", ancestors=[computed])
    lines = [line for line in result.own if line.startswith("claim")]
    if claim is None:
        assert not lines and "is not the last computed value" in result.notes[-1]
    else:
        assert lines[0].startswith(claim + "  #")


def test_an_answer_line_counts_a_determined_value_as_computed_and_a_fresh_one_not():
    solved = plan("#### 15", ancestors=["x+3x+6x=150", "10x=150", "x=15"])  # x = 15 was checked (solved)
    assert solved.own[0].startswith("claim 15 = 15") and solved.answer[0] == 3
    named = plan("#### 5", ancestors=["x = 5."])  # a fresh case names a value, it computes none
    assert not named.own and "computes none" in named.notes[-1]


def test_one_value_written_twice_is_not_a_list_of_alternatives():
    twice = plan("Solving the equation, X = 11 - 6, X = <<11-6=5>>5 squares.", ancestors=["So X + 6 = 11."])
    assert not twice.alternatives and [line.split("  #")[0] for line in twice.own][:2] == ["claim X = 11 - 6",
                                                                                         "claim X = 5"]
    listed = plan("So x = 2 or x = 7.", ancestors=["So x^2 - 5x + 6 = 0."])
    assert listed.alternatives == ("x",)
