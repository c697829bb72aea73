"""Mutant judging: each mutant's run under the artifact's tests, and which survivors count against them.

`run_mutants` runs the original and its mutants (`mutants.py`) alike, each in its own sandbox; `judge_survivors` gives the
survivors their differential run (`equivalence.py`: likely equivalent, or distinguished by an input)
and classifies every mutant as loud or quiet for the value check; `untested_functions` names the
functions the tests never reach. The pytest checker (`pytest_checker.py`) turns these into its verdict;
`judge_mutants` serves callers that only need mutants shown to change behaviour (the code benchmarks).
Code runs through `harness_run.py`, which imports nothing from here.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Sequence
from typing import Any

from reasonforge.types import CheckLimits
from reasonforge.verify.code.equivalence import Judgement, RecordedCall, differential
from reasonforge.verify.code.harness_run import (
    TestRunResult,
    expected_tests,
    recordable_functions,
    run_harness,
    run_tests,
    run_variants,
    uses_hypothesis,
)
from reasonforge.verify.code.mutants import Mutant, implementation_nodes
from reasonforge.verify.code.step_checks import StepPlan

__all__ = ["judge_mutants", "judge_survivors", "run_mutants", "survivor_entry", "untested_functions"]


def run_mutants(artifact: str, mutants: Sequence[Mutant], *, options: str, examples: int, run_timeout_s: float,
                memory_mb: int, expected: set[tuple[str | None, str]], plan: StepPlan | None,
                workers: int) -> tuple[TestRunResult, list[TestRunResult]]:
    """The original's run and each mutant's (in `mutants` order), all run exactly alike (`run_variants`: own
    sandbox, same path, command line, options and limits, random order), so that a test cannot pass on the
    original and fail on the mutants by telling the runs apart. Mutants are written as `ast.unparse` writes
    them, so the original runs in that form too: its text, comments and line numbers cannot mark it."""
    results = run_variants([ast.unparse(ast.parse(artifact)), *(m.source for m in mutants)], options=options, run_timeout_s=run_timeout_s,
                           memory_mb=memory_mb, expected=expected, examples=examples, plan=plan, workers=workers)
    return results[0], results[1:]


def judge_survivors(artifact: str, survivors: list[Mutant], dead: list[Mutant], calls: list[RecordedCall], *,
                    seed: int, memory_mb: int, equivalence: bool, value_check: bool,
                    ) -> tuple[dict[int, Judgement], dict[int, bool | None], dict[str, Any]]:
    """Differential run on the surviving mutants, and loudness of every mutant (see `verify/code/equivalence.py`):
    (judgement per survivor, loudness per mutant, facts for the checker's details). With no survivor there
    is nothing to judge, and the value check holds whatever the loudness; with `equivalence` off every
    survivor stays undecided."""
    facts: dict[str, Any] = {"recorded_calls": len(calls)}
    skipped = {m.id: Judgement(mutant=m.id, status="undecided", reason="equivalence not judged") for m in survivors}
    if not survivors or not (equivalence or value_check):
        facts["equivalence_inputs"] = 0
        return skipped, {}, facts
    started = time.perf_counter()
    judged, loud, run_facts = differential(artifact, survivors, calls, run=run_harness, seed=seed, memory_mb=memory_mb,
                                           preimport=_preimports(artifact), killed=dead if value_check else (),
                                           judge=equivalence)
    facts["equivalence_ms"] = round((time.perf_counter() - started) * 1000, 1)
    facts["equivalence_inputs"] = int(run_facts.get("kept") or 0) if equivalence else 0
    if "note" in run_facts:
        facts["equivalence_note"] = run_facts["note"]
    return (judged if equivalence else skipped), loud, facts


def untested_functions(tree: ast.Module, counted: Sequence[Mutant], judged: dict[int, Judgement]) -> list[tuple[str, int]]:
    """(name, mutants) of each implementation function whose every counted mutant survived and was shown
    never to execute (`Judgement.unreached`): code the tests do not run at all. Doubt (an unjudged or
    unwatched mutant) clears the function."""
    out: list[tuple[str, int]] = []
    for func in implementation_nodes(tree):
        inside = [m for m in counted if func.lineno <= m.line <= (func.end_lineno or func.lineno)]
        if inside and all(m.id in judged and judged[m.id].unreached for m in inside):
            out.append((func.name, len(inside)))
    return out


def survivor_entry(m: Mutant, judged: Judgement) -> dict[str, Any]:
    """A surviving mutant as the checker's details list it, with its evidence or why it is undecided."""
    entry: dict[str, Any] = {"id": m.id, "operator": m.operator, "change": m.description}
    if judged.status == "distinguished":
        entry["distinguished_by"] = judged.evidence
    else:
        entry["undecided"] = judged.reason
    return entry


def _preimports(source: str) -> list[str]:
    """Heavy test libraries the artifact imports: the differential run imports them once, before its forks."""
    names = ["pytest"] if "pytest" in source else []
    return names + (["hypothesis"] if uses_hypothesis(source) else [])


def judge_mutants(artifact: str, mutants: Sequence[Mutant], *, limits: CheckLimits, seed: int = 0,
                  examples: int = 30, per_call_s: float = 0.1) -> tuple[dict[int, Judgement], TestRunResult]:
    """Record the artifact's test calls and judge each mutant by the differential run (keyed by
    `Mutant.id`). For callers that need mutants shown to change behaviour, e.g. the code benchmarks.
    `per_call_s` is the differential run's base time limit for one call."""
    tree = ast.parse(artifact)
    run = run_tests(artifact, examples=examples, wall_s=limits.timeout_s, memory_mb=limits.memory_mb,
                    expected=expected_tests(tree), record=recordable_functions(tree))
    if run.status != "passed":
        return {m.id: Judgement(mutant=m.id, status="undecided", reason="the tests do not pass") for m in mutants}, run
    judged, _, _ = differential(artifact, mutants, run.calls, run=run_harness, seed=seed, memory_mb=limits.memory_mb,
                                preimport=_preimports(artifact), per_call_s=per_call_s)
    return judged, run
