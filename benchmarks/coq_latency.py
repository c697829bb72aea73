"""Coq checker latency on the good suite: cold `coqc` per file vs the warm path (one `coqc` per chain).

    python benchmarks/coq_latency.py [--reps 1] [--limit N] [--json]

Three measurements, each on both modes, alternating so a busy machine weighs on both alike:
- one chain per good case (the case is the chain's only step): median wall-clock ms per step;
- the whole good suite as one chain of independent steps: ms per step;
- the Pythagoras chain of the examples (4 dependent steps sharing a Context): ms per step.
Ratios are cold ÷ warm (above 1: warm is faster). Everything runs sandboxed, as in production.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from reasonforge.types import ChainStep, CheckLimits, VerifyRequest
from reasonforge.verify.coq.checker import check_coq_chain, unavailable_reason

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "tests" / "verify" / "coq" / "data" / "suite.json"
MODES = ("per-file", "warm")


def _timed(steps: list[ChainStep], context: str, mode: str) -> tuple[float, dict]:
    started = time.perf_counter()
    out = check_coq_chain(steps, context=context, mode=mode, limits=CheckLimits(timeout_s=30))
    elapsed = (time.perf_counter() - started) * 1000
    bad = {sid: o.message for sid, o in out.items() if o.status.value != "verified"}
    if bad:
        raise SystemExit(f"a good case did not verify in {mode} mode: {bad}")
    return elapsed, out


def _pythagoras() -> tuple[list[ChainStep], str]:
    from reasonforge.chain import validate_request
    from reasonforge.translate.math_coq import CoqMathTranslator

    request = VerifyRequest.model_validate_json((ROOT / "examples" / "pythagoras-formal.json").read_text())
    graph = validate_request(request)
    ancestors = {sid: list(graph.ancestors(sid)) for sid in graph.order}
    translations = {t.step_id: t for t in CoqMathTranslator().translate_chain(request, ancestors)}
    steps = [ChainStep(step_id=s.step_id, content=s.content, artifact=translations[s.step_id].formal_representation,
                       dependencies=list(graph.dependencies[s.step_id]), ancestors=ancestors[s.step_id])
             for s in request.reasoning_chain]
    return steps, translations[0].formal_representation


def run(reps: int, limit: int | None) -> dict:
    """Measure both modes; returns the report (see the module docstring)."""
    cases = json.loads(SUITE.read_text())["good"][:limit]
    single: dict[str, list[float]] = {m: [] for m in MODES}
    compile_ms: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(reps):
        for case in cases:
            step = [ChainStep(step_id=1, content=case["content"], artifact=case["artifact"])]
            for mode in MODES:
                elapsed, out = _timed(step, "", mode)
                single[mode].append(elapsed)
                if out[1].details.get("compile_ms") is not None:
                    compile_ms[mode].append(out[1].details["compile_ms"])
    whole: dict[str, list[float]] = {m: [] for m in MODES}
    chain_steps = [ChainStep(step_id=i + 1, content=c["content"], artifact=c["artifact"]) for i, c in enumerate(cases)]
    pyth_steps, pyth_context = _pythagoras()
    pyth: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(reps):
        for mode in MODES:
            whole[mode].append(_timed(chain_steps, "", mode)[0] / len(chain_steps))
            pyth[mode].append(_timed(pyth_steps, pyth_context, mode)[0] / len(pyth_steps))

    def summary(samples: dict[str, list[float]]) -> dict:
        cold, warm = statistics.median(samples["per-file"]), statistics.median(samples["warm"])
        return {"cold_ms": round(cold, 1), "warm_ms": round(warm, 1), "ratio": round(cold / warm, 2)}

    return {
        "cases": len(cases), "reps": reps,
        "single_step_chain_median_ms_per_step": summary(single),
        "whole_suite_chain_ms_per_step": summary(whole),
        "pythagoras_chain_ms_per_step": summary(pyth),
        "median_compile_ms": {"cold_coqc_file": round(statistics.median(compile_ms["per-file"]), 1),
                              "warm_module": round(statistics.median(compile_ms["warm"]), 1)},
    }


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--limit", type=int, default=None, help="only the first N good cases")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    reason = unavailable_reason()
    if reason is not None:
        print(f"skipped: {reason}", file=sys.stderr)
        return 0
    report = run(args.reps, args.limit)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"Coq checker latency, {report['cases']} good cases, {report['reps']} rep(s); ratio = cold ÷ warm")
    for key in ("single_step_chain_median_ms_per_step", "whole_suite_chain_ms_per_step", "pythagoras_chain_ms_per_step"):
        r = report[key]
        print(f"  {key:40s} cold {r['cold_ms']:8.1f}  warm {r['warm_ms']:8.1f}  ratio {r['ratio']:5.2f}")
    c = report["median_compile_ms"]
    print(f"  median compile ms of a step: one cold coqc per file {c['cold_coqc_file']}, inside the warm process "
          f"{c['warm_module']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
