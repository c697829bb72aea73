"""verified-math through the real `verifiers` package: its own loader finds the environment by id, and its own
scoring (Task.score on a Trace) gives the reward `reasonforge.rewards.score` gives."""

import asyncio

import pytest
from gold import gold_rows

from reasonforge.errors import InputError
from reasonforge.rewards import score
from reasonforge.rewards.verifiers_env import ENV_NAME, SYSTEM_PROMPT, load_rows

vf = pytest.importorskip("verifiers.v1", reason="verifiers is not installed (pip install -e '.[test]')")


def trace_for(task, content):
    nodes = [vf.MessageNode(message=vf.SystemMessage(content=task.data.system_prompt)),
             vf.MessageNode(parent=0, message=vf.UserMessage(content=task.data.prompt)),
             vf.MessageNode(parent=1, sampled=True, message=vf.AssistantMessage(content=content))]
    return vf.Trace(task=vf.TraceTask(type=type(task).__name__, data=task.data), agent=vf.AgentInfo(config=vf.AgentConfig()),
                    nodes=nodes, is_completed=True, ok=True)


def test_verifiers_own_loader_finds_the_environment_by_id():
    environment = vf.load_environment(vf.resolve_env_config({"taskset": {"id": ENV_NAME, "max_items": 7}}))
    tasks = list(environment.taskset)
    assert len(tasks) == 7 and len({t.key for t in tasks}) == 7
    assert vf.task_type(ENV_NAME).__name__ == "MathTask" and vf.default_harness_id(ENV_NAME) == ENV_NAME
    assert tasks[0].data.system_prompt == SYSTEM_PROMPT and tasks[0].data.answer == "72"
    assert "####" not in tasks[0].data.prompt and "72" not in tasks[0].data.prompt  # the gold answer stays hidden


def test_a_grpo_group_is_scored_by_verifiers_as_our_scorer_scores_it():
    environment = vf.load_environment(vf.resolve_env_config({"taskset": {"id": ENV_NAME, "max_items": 10}}))
    rows = gold_rows(10)
    for task, row in zip(environment.taskset, rows, strict=True):
        trace = trace_for(task, row["completion"])
        asyncio.run(task.score(trace))
        expected = score(row["question"], row["completion"], task.data.answer)
        assert trace.reward == pytest.approx(expected.reward)
        assert (trace.reward == 0.0) is row["wrong"]
        assert trace.metrics["answer_matches_reference"] == float(not row["wrong"])


def test_a_bad_data_file_is_refused_naming_the_line(tmp_path):
    data = tmp_path / "bad.jsonl"
    data.write_text('{"question": "q", "answer": "#### 1"}\n{"question": 5}\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        load_rows(data)
    assert load_rows(data, max_items=1) == [("q", "1")]
