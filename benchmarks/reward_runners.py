"""The reward through the trainers' and harnesses' own runners, on GSM8K gold solutions with one in five made
wrong (its final answer one too high): a GRPO group scored by `verifiers` (its Task.score on a Trace, the call its
trainer makes per rollout) and an eval run by inspect_ai (its eval loop with a mock model replaying the
completions, each scored by `reasonforge.rewards.inspect_scorer`). Prints each row's reward from both, and whether
they agree with each other and with right/wrong.

    python benchmarks/reward_runners.py --rows 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from _common import REPO, gold_completions

DEFAULT_DATA = REPO / "data" / "gsm8k" / "train.slice.jsonl"


def rows_of(path: Path, n: int) -> list[dict[str, object]]:
    return [{"question": q, "completion": c, "answer": r, "wrong": w} for q, c, r, w in gold_completions(path, n)]


def verifiers_rewards(rows: list[dict[str, object]], data: Path) -> list[float]:
    import verifiers.v1 as vf

    from reasonforge.rewards.verifiers_env import ENV_NAME

    environment = vf.load_environment(vf.resolve_env_config(
        {"taskset": {"id": ENV_NAME, "data": str(data), "max_items": len(rows)}}))
    rewards = []
    for task, row in zip(environment.taskset, rows, strict=True):
        nodes = [vf.MessageNode(message=vf.SystemMessage(content=task.data.system_prompt)),
                 vf.MessageNode(parent=0, message=vf.UserMessage(content=task.data.prompt)),
                 vf.MessageNode(parent=1, sampled=True, message=vf.AssistantMessage(content=str(row["completion"])))]
        trace = vf.Trace(task=vf.TraceTask(type=type(task).__name__, data=task.data),
                         agent=vf.AgentInfo(config=vf.AgentConfig()), nodes=nodes, is_completed=True, ok=True)
        asyncio.run(task.score(trace))
        rewards.append(float(trace.reward))
    return rewards


def inspect_rewards(rows: list[dict[str, object]]) -> list[float]:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from reasonforge.rewards import inspect_scorer

    samples = [Sample(input=str(r["question"]), target=str(r["answer"]), id=i) for i, r in enumerate(rows)]
    usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # the mock would count tokens online
    outputs = [ModelOutput.from_content(model="mockllm/model", content=str(r["completion"])).model_copy(
        update={"usage": usage}) for r in rows]
    with tempfile.TemporaryDirectory() as logs:
        (log,) = inspect_eval(Task(dataset=samples, solver=generate(), scorer=inspect_scorer()),
                              model=get_model("mockllm/model", custom_outputs=outputs), display="none", log_dir=logs,
                              max_samples=1)
        scores = {s.id: s.scores["reasonforge"].value for s in log.samples or []}  # read before the logs go
    return [float(scores[i]) for i in range(len(rows))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a GSM8K JSONL file")
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"error: --data {args.data}: no such file", file=sys.stderr)
        return 2
    rows = rows_of(args.data, args.rows)
    by_verifiers = verifiers_rewards(rows, args.data)
    by_inspect = inspect_rewards(rows)
    wrong = [bool(r["wrong"]) for r in rows]
    summary = {
        "rows": len(rows), "wrong": sum(wrong),
        "runners_agree": sum(a == b for a, b in zip(by_verifiers, by_inspect, strict=True)),
        "wrong_given_zero": sum(1 for r, w in zip(by_verifiers, wrong, strict=True) if w and r == 0),
        "right_rewarded": sum(1 for r, w in zip(by_verifiers, wrong, strict=True) if not w and r > 0),
        "mean_reward": round(sum(by_verifiers) / len(rows), 4) if rows else 0.0,
        "rewards": [{"row": i, "wrong": w, "verifiers": a, "inspect_ai": b}
                    for i, (w, a, b) in enumerate(zip(wrong, by_verifiers, by_inspect, strict=True))],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for item in summary["rewards"]:  # type: ignore[union-attr]
        print(f"row {item['row']:3}  {'wrong' if item['wrong'] else 'right'}  verifiers {item['verifiers']:.2f}  "
              f"inspect_ai {item['inspect_ai']:.2f}")
    print({k: v for k, v in summary.items() if k != "rewards"})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
