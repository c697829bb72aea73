"""calibrated-forecasting through the real `verifiers` package: its own loader finds the environment by id,
and its own scoring machinery (Task.score on a Trace) gives the numbers `reasonforge forecast score` gives."""

import asyncio
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reasonforge.forecast.env import SYSTEM_PROMPT, default_data, default_rubric, format_prompt, load_environment
from reasonforge.forecast.report import Prediction, score_predictions

vf = pytest.importorskip("verifiers.v1", reason="verifiers is not installed (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]
ENV_ID = "calibrated-forecasting"

# Replies a model could send, honest and adversarial. Each must score exactly as our own scorer scores it.
REPLIES = {
    "good": "The deadline passed quietly.\nPROBABILITY: 0.1",
    "confident": "PROBABILITY: 0.97",
    "percent": "Leaning yes.\nPROBABILITY: 62%",
    "unparseable": "I would say about 70 percent.",
    "ambiguous_1.7": "PROBABILITY: 1.7",
    "two_lines": "PROBABILITY: 0.99\nOn reflection, no.\nPROBABILITY: 0.2",
    "hidden_in_reasoning": "Step 1: market says PROBABILITY: 0.9 maybe. Final answer below.\nprobability: 0.35",
    "trailing_text": "PROBABILITY: 0.4 (roughly)",
    # Stripping the reply would turn this rejected line into a valid 0.3; verifiers' `last_reply` strips.
    "form_feed": "PROBABILITY: 0.3\x0c",
    "empty": "",
}


def env_config(**taskset):
    """The env config verifiers builds for `--env.taskset.id calibrated-forecasting` plus taskset fields."""
    return vf.resolve_env_config({"taskset": {"id": ENV_ID, **taskset}})


def trace_for(task, content, *, reasoning=None, prompt_supplied=None, recorded_data=None):
    """A finished single-turn trace: system + user prompt, then one sampled assistant message."""
    nodes = [vf.MessageNode(message=vf.SystemMessage(content=task.data.system_prompt)),
             vf.MessageNode(parent=0, message=vf.UserMessage(content=task.data.prompt))]
    if prompt_supplied is not None:  # an assistant turn written into the prompt, never sampled from the model
        nodes.append(vf.MessageNode(parent=len(nodes) - 1, message=vf.AssistantMessage(content=prompt_supplied)))
    nodes.append(vf.MessageNode(parent=len(nodes) - 1, sampled=True,
                                message=vf.AssistantMessage(content=content, reasoning_content=reasoning)))
    data = recorded_data if recorded_data is not None else task.data
    return vf.Trace(task=vf.TraceTask(type=type(task).__name__, data=data), agent=vf.AgentInfo(config=vf.AgentConfig()),
                    nodes=nodes, is_completed=True, ok=True)


def scored(task, content, **kwargs):
    """Score through verifiers' own Task.score and return the trace."""
    trace = trace_for(task, content, **kwargs)
    asyncio.run(task.score(trace))
    return trace


def ours(item, reply):
    """What `reasonforge forecast score` reports for this one item (means over one row are the row's values)."""
    metrics = score_predictions([item], [Prediction(id=item.id, reply=reply)], resamples=10).report.all.metrics
    return {name: metrics[name].value for name in ("brier_reward", "log_reward", "format_ok", "confidence",
                                                   "brier_reward_vs_market")}


@pytest.fixture(scope="module")
def tasks():
    environment = vf.load_environment(env_config(filters={"max_items": 12}))
    return list(environment.taskset)


def test_verifiers_own_loader_finds_the_environment_by_id():
    environment = vf.load_environment(env_config())
    assert isinstance(environment, vf.Env)
    assert isinstance(environment.taskset, vf.Taskset)
    assert issubclass(vf.environment_class(ENV_ID), vf.SingleAgentEnv)
    assert vf.task_type(ENV_ID).__name__ == "ForecastTask" and issubclass(vf.task_type(ENV_ID), vf.Task)
    items = load_environment().items
    loaded = list(environment.taskset)
    assert [t.data.item for t in loaded] == items and len(items) == 240
    assert [t.data.idx for t in loaded] == list(range(240))
    assert len({t.key for t in loaded}) == 240  # keys must be unique within a taskset


def test_default_harness_is_chat_only():
    assert vf.default_harness_id(ENV_ID) == ENV_ID
    (config,) = env_config().agent_harnesses().values()
    harness = vf.load_harness(config)
    assert type(harness).__name__ == "ForecastHarness" and isinstance(harness, vf.Harness)
    assert not harness.EXECUTES_CODE and not harness.NEEDS_CONTAINER


def test_hub_style_id_resolves_to_the_same_module():
    assert vf.import_taskset("reasonforge/calibrated-forecasting@0.1.0") is vf.import_taskset(ENV_ID)


def test_prompt_is_the_question_and_cutoff_never_the_price_or_outcome(tasks):
    for task in tasks:
        assert task.data.system_prompt == SYSTEM_PROMPT
        assert task.data.prompt == format_prompt(task.data.item)
        item = task.data.item
        hidden = item.model_copy(update={"outcome": 1 - item.outcome, "market_price": 1 - item.market_price,
                                         "resolved_at": item.cutoff})
        assert format_prompt(hidden) == task.data.prompt  # nothing the reward depends on reaches the model


def test_taskset_config_applies_our_filters():
    environment = vf.load_environment(env_config(filters={"exclude_near_certain": 0.05, "max_items": 7}))
    assert [t.data.item for t in environment.taskset] == load_environment(exclude_near_certain=0.05, max_items=7).items


def test_bad_taskset_config_is_refused_by_name():
    with pytest.raises(ValueError, match="exclude_near_certain"):
        env_config(filters={"exclude_near_certain": 0.7})
    with pytest.raises(ValueError, match="nonsense"):
        env_config(filters={"nonsense": 1})


def test_taskset_reads_a_given_data_file(tmp_path):
    with default_data() as path:
        rows = path.read_text(encoding="utf-8").splitlines()[:3]
    data = tmp_path / "three.jsonl"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    environment = vf.load_environment(env_config(data=str(data)))
    assert [t.data.item for t in environment.taskset] == load_environment(data=data).items
    assert len(list(environment.taskset)) == 3


@pytest.mark.parametrize("kind", sorted(REPLIES))
def test_verifiers_scores_equal_our_scorer(tasks, kind):
    reply = REPLIES[kind]
    for task in tasks[:4]:
        item = task.data.item
        trace = scored(task, reply)
        expected = ours(item, reply)
        assert trace.rewards["brier_reward"].score == pytest.approx(expected["brier_reward"], abs=1e-12)
        assert trace.reward == pytest.approx(expected["brier_reward"], abs=1e-12)
        assert trace.metrics["log_reward"] == pytest.approx(expected["log_reward"], abs=1e-12)
        assert trace.metrics["format_ok"] == expected["format_ok"]
        assert trace.metrics["market_skill"] == pytest.approx(expected["brier_reward_vs_market"], abs=1e-12)
        if expected["format_ok"]:
            assert trace.metrics["confidence"] == pytest.approx(expected["confidence"], abs=1e-12)
        # and the in-repo rubric (what the runner records) agrees on every name
        rubric = default_rubric().score(reply, item)
        assert trace.reward == rubric["reward"]
        assert {name: trace.metrics[name] for name in ("log_reward", "market_skill", "format_ok", "confidence")} == {
            name: rubric[name] for name in ("log_reward", "market_skill", "format_ok", "confidence")}


def test_only_brier_reward_carries_weight(tasks):
    trace = scored(tasks[0], "PROBABILITY: 0.5")
    assert set(trace.rewards) == {"brier_reward"} and trace.rewards["brier_reward"].weight == 1.0
    assert set(trace.metrics) == {"log_reward", "market_skill", "format_ok", "confidence"}
    assert trace.reward == 0.75


def test_known_values(tasks):
    task = next(t for t in tasks if t.data.item.outcome == 0)
    assert scored(task, REPLIES["good"]).reward == pytest.approx(1 - 0.1 ** 2)
    assert scored(task, REPLIES["confident"]).reward == pytest.approx(1 - 0.97 ** 2)
    for kind in ("unparseable", "ambiguous_1.7", "trailing_text", "form_feed", "empty"):
        trace = scored(task, REPLIES[kind])
        assert (trace.reward, trace.metrics["format_ok"]) == (0.0, 0.0), kind
    assert scored(task, REPLIES["two_lines"]).reward == pytest.approx(1 - 0.2 ** 2)  # the last line counts
    assert scored(task, REPLIES["hidden_in_reasoning"]).reward == pytest.approx(1 - 0.35 ** 2)


def test_probability_only_in_reasoning_content_earns_nothing(tasks):
    task = tasks[0]
    outcome = task.data.item.outcome
    trace = scored(task, "I cannot decide.", reasoning=f"PROBABILITY: {outcome}")
    assert (trace.reward, trace.metrics["format_ok"]) == (0.0, 0.0)


def test_prompt_supplied_assistant_turn_is_not_the_models_reply(tasks):
    task = tasks[0]
    perfect = f"PROBABILITY: {task.data.item.outcome}"
    trace = scored(task, "no idea", prompt_supplied=perfect)
    assert trace.reward == 0.0


def test_reward_reads_the_tasks_outcome_not_the_trace_record(tasks):
    task = tasks[0]
    item = task.data.item
    flipped = task.data.model_copy(update={"item": item.model_copy(update={"outcome": 1 - item.outcome})})
    wrong_for_real_outcome = f"PROBABILITY: {1 - item.outcome}"
    trace = scored(task, wrong_for_real_outcome, recorded_data=flipped)
    assert trace.reward == 0.0  # scored against the taskset's item, not what the trace claims


def test_mean_reward_equals_the_cli_score(tasks, tmp_path):
    """Across items and reply kinds, the mean verifiers reward is `reasonforge forecast score`'s brier_reward."""
    kinds = sorted(REPLIES)
    replies = {task.data.item.id: REPLIES[kinds[i % len(kinds)]] for i, task in enumerate(tasks)}
    rewards = [scored(task, replies[task.data.item.id]).reward for task in tasks]
    with default_data() as path:
        rows = [line for line in path.read_text(encoding="utf-8").splitlines()]
    data = tmp_path / "data.jsonl"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"id": k, "reply": v}) + "\n" for k, v in replies.items()))
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "forecast", "score", str(predictions),
                          "--data", str(data), "--max-items", str(len(tasks)), "--json", "--resamples", "10"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["n_missing"] == 0 and report["n_extra"] == 0
    assert sum(rewards) / len(rewards) == pytest.approx(report["report"]["all"]["metrics"]["brier_reward"]["value"],
                                                        abs=1e-12)


def test_packaged_default_data_is_the_repository_slice():
    with default_data() as path:
        packaged = path.read_bytes()
    assert packaged == (ROOT / "data" / "forecastbench" / "questions.slice.jsonl").read_bytes()
    assert hashlib.sha256(packaged).hexdigest() == "fa039dae76e8647862862bcbadfeb3c84bafbcfd697194093e14a6b13a07bcc2"


def test_convenience_loader_returns_a_verifiers_env():
    import calibrated_forecasting

    environment = calibrated_forecasting.load_environment(filters={"max_items": 3})
    assert isinstance(environment, vf.SingleAgentEnv)
    assert len(list(environment.taskset)) == 3


@pytest.mark.slow
def test_verifiers_cli_validates_the_taskset(tmp_path):
    """`vf-validate calibrated-forecasting` (verifiers' own CLI): with no reply at all every task scores 0."""
    vf_validate = Path(sys.executable).with_name("vf-validate")
    out = subprocess.run([str(vf_validate), ENV_ID, "--only-noop", "True", "--runtime.type", "subprocess",
                          "-o", str(tmp_path), "--rich", "False", "--select.limit", "3"],
                         capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    (results,) = tmp_path.glob("*/results.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(rows) == 3 and all(row["valid"] and row["rewards"] == {"brier_reward": 0.0} for row in rows)
