"""Scoring completions: verified in a worker killed at its budget, over a pool for batches, from any thread."""

import threading
import time

from gold import gold_rows

from reasonforge.rewards import RewardInput, RewardOutcome, Scorer, gold_answer, score, score_many

NATALIA = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many "
           "clips did Natalia sell altogether in April and May?")
RIGHT = "Natalia sold 48/2 = 24 clips in May.\nNatalia sold 48+24 = 72 clips altogether in April and May.\n#### 72"


def test_a_right_completion_earns_its_verdict_and_a_wrong_answer_nothing():
    right = score(NATALIA, RIGHT, "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 72")  # a gold solution
    assert right.outcome is RewardOutcome.ARITHMETIC and right.reward == 0.75
    assert right.answer_matches_reference is True and right.step_rewards == [1.0, 1.0]
    wrong = score(NATALIA, RIGHT, "73")
    assert wrong.outcome is RewardOutcome.WRONG_ANSWER and wrong.reward == 0.0
    refuted = score(NATALIA, RIGHT.replace("48/2 = 24", "48/2 = 25"), "72")
    assert refuted.outcome is RewardOutcome.REFUTED and refuted.first_refuted_step == 1
    stated_wrong = score(NATALIA, RIGHT.replace("#### 72", "#### 73"), "73")  # its answer line is not its value
    assert stated_wrong.outcome is RewardOutcome.REFUTED


def test_nothing_to_verify_earns_the_invalid_reward():
    for completion in ("", "   \n"):
        assert score(NATALIA, completion, "72").outcome is RewardOutcome.INVALID
    assert score(NATALIA, "x" * 2_000_000, "72").outcome is RewardOutcome.INVALID  # over the request's size limit


def test_a_completion_past_its_budget_is_cut_off_and_said_so():
    started = time.monotonic()
    heavy = "Then (x + 1)^999 * (x - 1)^999 = (x^2 - 1)^999 + 1 is what we get."
    got = score("Simplify.", heavy, None, budget_s=0.3)
    assert got.outcome is RewardOutcome.TIMEOUT and got.reward == 0.0
    assert time.monotonic() - started < 30  # killed, not waited for


def test_the_gold_answer_is_what_a_gold_solution_states():
    assert gold_answer("She has 3 + 4 = 7.\n#### 7") == "7"
    assert gold_answer("so $\\boxed{\\frac{1}{2}}$.") == "\\frac{1}{2}"
    assert gold_answer(" 42 ") == "42"


def test_a_batch_over_a_pool_equals_one_by_one_and_keeps_order():
    rows = [RewardInput(**{k: r[k] for k in ("question", "completion", "reference")}) for r in gold_rows(10)]
    pooled = score_many(rows, jobs=2)
    alone = [score(r.question, r.completion, r.reference) for r in rows]
    assert [p.model_dump() for p in pooled] == [a.model_dump() for a in alone]
    assert [p.reward == 0.0 for p in pooled] == [r["wrong"] for r in gold_rows(10)]


def test_scoring_from_another_thread_is_bounded_too():
    got = []
    worker = threading.Thread(target=lambda: got.append(score(NATALIA, RIGHT, "72")))
    worker.start()
    worker.join(120)
    assert got and got[0].outcome is RewardOutcome.ARITHMETIC
    with Scorer(jobs=1) as scorer:
        assert scorer.score([RewardInput(question=NATALIA, completion=RIGHT, reference="72")])[0].reward == 0.75


def test_a_cached_second_pass_is_answered_without_verifying_again():
    rows = [RewardInput(**{k: r[k] for k in ("question", "completion", "reference")}) for r in gold_rows(4)]
    first = score_many(rows, jobs=1, cached=True)
    second = score_many(rows, jobs=1, cached=True)
    assert not any(r.cached for r in first) and all(r.cached for r in second)
    assert [r.model_copy(update={"cached": False}) for r in second] == first


def test_a_bare_or_unfounded_answer_never_earns_more_than_an_unproven_chain():
    # attempts to fake a higher reward than the reasoning earns: each answers 72 without checkable reasoning
    real = score(NATALIA, RIGHT, "72")
    for fake in ("#### 72", "The answer is 72.", "72 = 72\n#### 72", "1 + 71 = 72\n#### 72", "x = 72\n#### 72",
                 "\\boxed{72}", "48 + 24 = 72\n#### 72"):
        got = score(NATALIA, fake, "72")
        assert got.reward <= 0.5 < real.reward, (fake, got)
        assert got.outcome in (RewardOutcome.UNPROVEN, RewardOutcome.UNREAD_ANSWER), (fake, got)
