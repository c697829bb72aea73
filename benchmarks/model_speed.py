"""How fast the in-process model verifies here: now, against every step asked with no prompt cache, in one run.

For each local model asked (default: every installed one), printed as one JSON object with `--json`:
- `rates`: prompt tokens per second (a long prompt, nothing cached) and generated tokens per second (64 tokens,
  greedy, no grammar): what the hardware gives;
- `ensemble`: a fixed slice of 4-step GSM8K-style solutions (ProcessBench's gsm8k slice: the first `--solutions`
  rows with four steps) verified end to end with `--translator ensemble` (the rules check first and the model is
  asked only for the steps they left open; the model also writes 3 programs and 3 problem models of the question),
  prompt cache on: seconds per solution (mean; the first solution is also shown on its own, as a one-off CLI run
  sees it, nothing cached yet), the model's calls, repairs included, and the verdicts;
- `every_step`: the same slice with the model asked for every step, as the ensemble did before it let the rules
  settle what they decide (and as it still does where `--agree 2` asks two translations to prove each step): its
  model calls;
- `before` and `after`: model requests asked again, in the same order, of a fresh backend: `before` those of
  `every_step` with the prompt cache off (every reply reads its whole prompt, every sample again), `after` those
  of `ensemble` with the cache on. Replaying recorded requests makes runs comparable: a small model's replies,
  and so its repairs, change with the numerics of how its prompt was batched, and one repair more on one side
  would decide the ratio. Per run: seconds per solution, per translated step (a step translation's request) and on
  the question's formalisations per solution, tokens read (from nothing) and written;
- `speedup`: before / after, per solution and per translated step; `cache_speedup`: `every_step`'s requests with
  the cache off against the same requests with it on (the prompt cache alone).

    python benchmarks/model_speed.py                                  # 0.5B, 3 solutions
    python benchmarks/model_speed.py --models qwen2.5-coder-0.5b qwen2.5-coder-1.5b --solutions 5 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.defaults import default_translator
from reasonforge.translate.engine import TranslationEngine
from reasonforge.translate.ensemble import Ensemble
from reasonforge.translate.llm import ChatMessage, ChatReply, ChatRequest, ModelError, only_reply
from reasonforge.translate.local_model import LOCAL_MODELS, LocalModelBackend, installed_model, local_settings
from reasonforge.translate.question import PROBLEM_SYSTEM, QUESTION_SYSTEM
from reasonforge.types import CheckLimits, Domain, ProofLevel, ReasoningStep, VerifyRequest

from _common import REPO, display_path, read_rows

DEFAULT_DATA = REPO / "data" / "processbench" / "gsm8k.slice.jsonl"
STEPS = 4


class TimedBackend:
    """The local backend, with every call kept: its request, attempts, kind (question programs or a step),
    seconds and tokens."""

    def __init__(self, backend: LocalModelBackend) -> None:
        self.backend, self.spec, self.settings = backend, backend.spec, backend.settings
        self.calls: list[dict[str, Any]] = []

    async def complete(self, request: ChatRequest) -> ChatReply:
        return only_reply(await self.complete_samples(request, [request.attempt]))

    async def complete_samples(self, request: ChatRequest, attempts: Sequence[int]) -> list[ChatReply | ModelError]:
        started = time.perf_counter()
        replies = await self.backend.complete_samples(request, attempts)
        done = [r for r in replies if isinstance(r, ChatReply)]
        self.calls.append({"request": request, "attempts": list(attempts),
                           "kind": "question" if request.system in (QUESTION_SYSTEM, PROBLEM_SYSTEM) else "step",
                           "seconds": time.perf_counter() - started,
                           "read": sum(r.usage.input_tokens - r.usage.cached_tokens for r in done),
                           "written": sum(r.usage.output_tokens for r in done)})
        return replies


def solutions(data: Path, count: int) -> list[VerifyRequest]:
    """The first `count` rows with four steps, as quick-level maths chains."""
    rows = [r for r in read_rows(data) if len(r.get("steps") or ()) == STEPS][:count]
    if len(rows) < count:
        raise SystemExit(f"error: {display_path(data)} has {len(rows)} solutions of {STEPS} steps; asked for {count}")
    return [VerifyRequest(original_query=r["problem"], domain=Domain.MATHEMATICS, proof_level=ProofLevel.QUICK,
                          reasoning_chain=[ReasoningStep(step_id=i, content=text)
                                           for i, text in enumerate(r["steps"], start=1)]) for r in rows]


def rates(name: str) -> dict[str, float]:
    """Prompt and generated tokens per second of model `name`: a long prompt read from nothing, then a reply
    written after it (its prompt cached)."""
    backend = LocalModelBackend(local_settings(name, max_tokens=64))
    text = " ".join(f"item {i} costs {i * 3} dollars;" for i in range(120))
    ask = ChatRequest(system="You are terse.", messages=[ChatMessage(role="user", content=text)], max_tokens=1)
    asyncio.run(backend.complete(ChatRequest(system="-", messages=[ChatMessage(role="user", content="-")],
                                             max_tokens=1)))  # loads the model
    read = asyncio.run(backend.complete(ask))
    count = ask.model_copy(update={"messages": [*ask.messages, ChatMessage(role="assistant", content="ok"),
                                                ChatMessage(role="user", content="Count from 1 to 100.")],
                                   "max_tokens": 64})
    asyncio.run(backend.complete(count.model_copy(update={"max_tokens": 1})))  # its prompt, cached
    written = asyncio.run(backend.complete(count))
    return {"prompt_tokens_per_s": round(read.usage.input_tokens / (read.elapsed_ms / 1000), 1),
            "generated_tokens_per_s": round(written.usage.output_tokens / (written.elapsed_ms / 1000), 1)}


def ensemble(name: str, requests: list[VerifyRequest], timeout: float, *, every_step: bool = False
             ) -> tuple[dict[str, Any], list[list[Any]]]:
    """The slice verified end to end with the rules and model `name` (prompt cache on), and each solution's model
    calls; `every_step`: the model asked for every step (two proofs required, so no step is settled by the rules
    alone: the requests the ensemble made before it let the rules settle steps)."""
    timed = TimedBackend(LocalModelBackend(local_settings(name)))
    engine = TranslationEngine(timed, strict=True)
    seconds: list[float] = []
    verdicts: list[list[str]] = []
    calls: list[list[Any]] = []
    for request in requests:
        translator = Ensemble([default_translator(request.domain, level=request.proof_level), engine],
                              min_agree=2 if every_step else 1)
        made = len(timed.calls)
        started = time.perf_counter()
        verdict = verify_chain(request, translator=translator, limits=CheckLimits(timeout_s=timeout))
        seconds.append(time.perf_counter() - started)
        verdicts.append([s.status.value for s in verdict.step_verdicts])
        calls.append(timed.calls[made:])
    return {"seconds_per_solution": round(statistics.mean(seconds), 2), "first_solution_seconds": round(seconds[0], 2),
            "model_calls": len(timed.calls), "step_calls": sum(c["kind"] == "step" for c in timed.calls),
            "verdicts": verdicts}, calls


def replay(name: str, calls: list[list[Any]], *, cache: bool) -> dict[str, Any]:
    """The recorded requests asked again, in order, of a fresh backend with the prompt cache `cache`."""
    timed = TimedBackend(LocalModelBackend(local_settings(name, prompt_cache=cache)))
    per_solution: list[float] = []
    for solution in calls:
        made = len(timed.calls)
        for call in solution:
            asyncio.run(timed.complete_samples(call["request"], call["attempts"]))
        per_solution.append(sum(c["seconds"] for c in timed.calls[made:]))
    steps = [c for c in timed.calls if c["kind"] == "step"]
    questions = [c for c in timed.calls if c["kind"] == "question"]
    return {
        "prompt_cache": cache,
        "seconds_per_solution": round(statistics.mean(per_solution), 2),
        "first_solution_seconds": round(per_solution[0], 2),
        # None when no step went to the model (in maths the ensemble asks only for the question's formalisations)
        "seconds_per_translated_step": round(sum(c["seconds"] for c in steps) / len(steps), 2) if steps else None,
        "question_seconds_per_solution": round(sum(c["seconds"] for c in questions) / len(calls), 2),
        "tokens_read": sum(c["read"] for c in timed.calls),
        "tokens_written": sum(c["written"] for c in timed.calls),
    }


def _ratio(before: float | None, after: float | None) -> float | None:
    return round(before / after, 2) if before and after else None


def measure(name: str, requests: list[VerifyRequest], timeout: float) -> dict[str, Any]:
    """Rates, the slice end to end (as now, and asking every step), then the requests before (every step, cache
    off) and after (as now, cache on), and the ratios."""
    end_to_end, calls = ensemble(name, requests, timeout)
    every, every_calls = ensemble(name, requests, timeout, every_step=True)
    before = replay(name, every_calls, cache=False)
    cached = replay(name, every_calls, cache=True)
    after = replay(name, calls, cache=True)
    return {"model": name, "rates": rates(name), "ensemble": end_to_end,
            "every_step": {k: every[k] for k in ("model_calls", "step_calls")},
            "before": before, "after": after,
            "speedup": {"per_solution": round(before["seconds_per_solution"] / after["seconds_per_solution"], 2),
                        "per_translated_step": _ratio(before["seconds_per_translated_step"],
                                                      after["seconds_per_translated_step"])},
            "cache_speedup": round(before["seconds_per_solution"] / cached["seconds_per_solution"], 2)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=sorted(LOCAL_MODELS), default=None,
                        help="local models to measure (default: every installed one)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="ProcessBench-style JSONL (problem, steps)")
    parser.add_argument("--solutions", type=int, default=3, help=f"how many {STEPS}-step solutions (the first ones)")
    parser.add_argument("--timeout", type=float, default=10.0, help="per step check, seconds")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    if args.solutions < 1:
        parser.error("--solutions must be at least 1")
    names = args.models or [n for n in LOCAL_MODELS if installed_model(n) is not None]
    missing = [n for n in names if installed_model(n) is None]
    if not names or missing:
        print(f"error: not installed: {', '.join(missing) or 'any local model'}; run `make model` "
              f"(LOCAL_MODEL=qwen2.5-coder-1.5b for the larger one)", file=sys.stderr)
        return 2
    requests = solutions(args.data, args.solutions)
    results = [measure(name, requests, args.timeout) for name in names]
    report = {"data": display_path(args.data), "solutions": len(requests), "steps_per_solution": STEPS,
              "models": results}
    if args.json:
        print(json.dumps(report))
        return 0
    for r in results:
        e = r["ensemble"]
        print(f"{r['model']}: prompt {r['rates']['prompt_tokens_per_s']} tok/s, generated "
              f"{r['rates']['generated_tokens_per_s']} tok/s")
        print(f"  --translator ensemble: {e['seconds_per_solution']} s/solution (first {e['first_solution_seconds']} s), "
              f"{e['model_calls']} model calls ({e['step_calls']} for steps; asking every step: "
              f"{r['every_step']['model_calls']}, {r['every_step']['step_calls']} for steps)")
        for label, run_ in (("before (every step, cache off)", r["before"]), ("after (cache on)", r["after"])):
            print(f"  {label}: {run_['seconds_per_solution']} s/solution (first {run_['first_solution_seconds']} s), "
                  f"{run_['seconds_per_translated_step'] or 'no'} s/translated step, question "
                  f"{run_['question_seconds_per_solution']} s, read {run_['tokens_read']} / wrote "
                  f"{run_['tokens_written']} tokens")
        per_step = r["speedup"]["per_translated_step"]
        print(f"  speedup: {r['speedup']['per_solution']}x per solution, "
              f"{f'{per_step}x per translated step' if per_step else 'no step translated after'} "
              f"(the prompt cache alone: {r['cache_speedup']}x per solution)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
