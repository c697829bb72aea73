"""The reward as an inspect_ai scorer, run by inspect's own eval loop (its mock model replays the completions)."""

import pytest
from gold import gold_rows

from reasonforge.rewards import score

inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install -e '.[test]')")


def test_inspect_s_own_runner_scores_each_sample_by_the_reward(tmp_path):
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from reasonforge.rewards import inspect_scorer

    rows = gold_rows(10)
    samples = [Sample(input=r["question"], target=r["reference"], id=i) for i, r in enumerate(rows)]
    usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # else the mock counts tokens online
    outputs = [ModelOutput.from_content(model="mockllm/model", content=r["completion"]).model_copy(
        update={"usage": usage}) for r in rows]
    (log,) = inspect_eval(Task(dataset=samples, solver=generate(), scorer=inspect_scorer()),
                          model=get_model("mockllm/model", custom_outputs=outputs), display="none",
                          log_dir=str(tmp_path), max_samples=1)
    assert log.status == "success", log.error
    expected = [score(r["question"], r["completion"], r["reference"]).reward for r in rows]
    got = {s.id: s.scores["reasonforge"] for s in log.samples}
    assert [got[i].value for i in range(10)] == expected
    assert [got[i].metadata["answer_matches_reference"] for i in range(10)] == [not r["wrong"] for r in rows]
    assert got[4].metadata["outcome"] == "refuted" and got[0].answer == "72" and got[0].explanation
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(sum(expected) / 10)
