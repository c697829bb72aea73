"""The reward behind each trainer's door, called with the exact argument shapes the trainer passes. TRL, veRL and
OpenRLHF need torch, too heavy for CI: their calling conventions are reproduced here from their documentation and
source (TRL `GRPOTrainer._calculate_rewards`, veRL `NaiveRewardManager` / `BatchRewardManager`, OpenRLHF
`--remote_rm_url` functions)."""

import asyncio
import inspect

from gold import gold_rows

from reasonforge.rewards import (
    openrlhf_reward_func,
    score,
    text_of,
    trl_reward,
    trl_reward_async,
    verl_compute_score,
    verl_compute_score_batch,
)

ROWS = gold_rows(10)
# what the scorer gives each row directly: every door must give the same
EXPECTED = [score(r["question"], r["completion"], r["reference"]).reward for r in ROWS]


def test_the_rows_are_rewarded_as_right_and_wrong():
    assert [e == 0.0 for e in EXPECTED] == [r["wrong"] for r in ROWS]


def test_trl_standard_format_with_dataset_columns_as_keyword_lists():
    reward = trl_reward(jobs=2)
    try:
        assert reward.__name__ == "reasonforge_reward"  # TRL logs each reward under its function's name
        assert not asyncio.iscoroutinefunction(reward)
        got = reward(prompts=[r["question"] for r in ROWS], completions=[r["completion"] for r in ROWS],
                     completion_ids=[[1, 2, 3]] * len(ROWS), answer=[r["reference"] for r in ROWS],
                     trainer_state=None)
    finally:
        reward.scorer.close()
    assert got == EXPECTED


def test_trl_conversational_format_and_the_async_door():
    prompts = [[{"role": "system", "content": "Solve it."}, {"role": "user", "content": r["question"]}]
               for r in ROWS[:5]]
    completions = [[{"role": "assistant", "content": r["completion"]}] for r in ROWS[:5]]
    reward = trl_reward_async(reference_column="solution", jobs=1)
    assert asyncio.iscoroutinefunction(reward)  # TRL gathers it with the other async rewards
    got = asyncio.run(reward(prompts=prompts, completions=completions, completion_ids=None,
                             solution=[r["reference"] for r in ROWS[:5]]))
    assert got == EXPECTED[:5]


def test_trl_without_a_reference_column_rewards_the_reasoning_alone():
    reward = trl_reward(jobs=1)
    assert reward(prompts=[ROWS[4]["question"]], completions=[ROWS[4]["completion"]]) == [0.0]  # refuted
    assert reward(prompts=[ROWS[0]["question"]], completions=[ROWS[0]["completion"]]) == [EXPECTED[0]]


def test_verl_compute_score_and_its_batch_form():
    params = list(inspect.signature(verl_compute_score).parameters)
    assert params[:4] == ["data_source", "solution_str", "ground_truth", "extra_info"]
    one = verl_compute_score(data_source="openai/gsm8k", solution_str=ROWS[0]["completion"], ground_truth="72",
                             extra_info={"split": "train", "index": 0, "question": ROWS[0]["question"]})
    assert one["score"] == EXPECTED[0] and one["answer_matches_reference"] == 1.0 and one["refuted"] == 0.0
    assert all(isinstance(v, float) for v in one.values())  # veRL averages every key into its logs
    batch = verl_compute_score_batch(data_sources=["openai/gsm8k"] * len(ROWS),
                                     solution_strs=[r["completion"] for r in ROWS],
                                     ground_truths=[r["reference"].removeprefix("#### ") for r in ROWS],
                                     extra_infos=[{"question": r["question"]} for r in ROWS], jobs=2)
    assert [b["score"] for b in batch] == EXPECTED


def test_openrlhf_reward_func_reads_the_response_after_the_prompt():
    prompts = [f"Question: {r['question']}\nAnswer:\n" for r in ROWS[:5]]
    queries = [p + r["completion"] for p, r in zip(prompts, ROWS[:5], strict=True)]
    got = openrlhf_reward_func(queries, prompts, [r["reference"] for r in ROWS[:5]], jobs=1)
    assert set(got) == {"rewards", "scores", "extra_logs"}
    assert list(got["rewards"]) == EXPECTED[:5] and list(got["scores"]) == EXPECTED[:5]
    assert list(got["extra_logs"]["refuted"]) == [0.0, 0.0, 0.0, 0.0, 1.0]


def test_text_of_reads_every_completion_shape_trainers_pass():
    assert text_of("plain") == "plain"
    assert text_of([{"role": "assistant", "content": "a"}, {"role": "user", "content": "b"}]) == "a"
    assert text_of([{"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}],
                   role="user") == "xy"
    assert text_of(None) == "" and text_of([]) == ""
