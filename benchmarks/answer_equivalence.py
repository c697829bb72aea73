"""Final-answer equivalence on real model answers: our reader, `math-verify`, and the pipeline's policy.

Pairs come from ProcessBench, whose rows are several models' solutions to the same problem, each labelled by
whether its final answer is right: two right answers to one problem are equivalent, a right and a wrong one
are not. Each answer is the one the solution's last step states (`\\boxed{…}`, "The answer is …"). For each
comparer: the share of pairs it decides, its accuracy on those, and its two kinds of mistake — *false
equal* (it calls a wrong answer right: the mistake that lets a wrong answer through) and *false differ*.

    python benchmarks/answer_equivalence.py                              # the committed slices
    python benchmarks/answer_equivalence.py --data ../shared/data/processbench --json
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from reasonforge.chain import final_answer
from reasonforge.lang.math.answers import answers_match, math_verify_same, reader_same

from _common import REPO, display_path, read_rows, share

DEFAULT_DATA = REPO / "data" / "processbench"
_PAIRS_PER_PROBLEM = 6  # a problem with many solutions would otherwise dominate


class ComparerReport(BaseModel):
    """One comparer over the labelled pairs."""

    decided: int
    decided_share: float
    correct: int
    accuracy_decided: float
    false_equal: int  # said equivalent, labelled different
    false_differ: int  # said different, labelled equivalent
    ms_per_pair: float


class EquivalenceReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    data: list[str]
    pairs: int
    equivalent: int
    comparers: dict[str, ComparerReport]
    elapsed_s: float


def labelled_pairs(rows: list[dict]) -> list[tuple[str, str, bool]]:
    """(answer, answer, equivalent?) for solutions of the same problem, right against right and right against
    wrong; answers a solution does not state are left out."""
    by_problem: dict[str, list[tuple[str, bool]]] = {}
    for row in rows:
        answer = final_answer(row["steps"][-1]) if row.get("steps") else ""
        if answer:
            by_problem.setdefault(row["problem"], []).append((answer, bool(row["final_answer_correct"])))
    pairs: list[tuple[str, str, bool]] = []
    for answers in by_problem.values():
        right = [a for a, ok in answers if ok]
        wrong = [a for a, ok in answers if not ok]
        found = [(a, b, True) for a, b in itertools.combinations(right, 2)]
        found += [(a, b, False) for a in right for b in wrong]
        pairs.extend(found[:_PAIRS_PER_PROBLEM])
    return pairs


def _score(compare: Callable[[str, str], bool | None], pairs: list[tuple[str, str, bool]]) -> ComparerReport:
    started = time.perf_counter()
    decided = correct = false_equal = false_differ = 0
    for a, b, same in pairs:
        said = compare(a, b)
        if said is None:
            continue
        decided += 1
        correct += said == same
        false_equal += said and not same
        false_differ += same and not said
    elapsed = time.perf_counter() - started
    return ComparerReport(decided=decided, decided_share=share(decided, len(pairs)), correct=correct,
                          accuracy_decided=share(correct, decided), false_equal=false_equal,
                          false_differ=false_differ, ms_per_pair=round(1000 * elapsed / max(len(pairs), 1), 2))


def run_equivalence(data: Path = DEFAULT_DATA) -> EquivalenceReport:
    """Score the three comparers on the labelled pairs of every ProcessBench file under `data`."""
    started = time.perf_counter()
    files = sorted(data.glob("*.jsonl")) if data.is_dir() else [data]
    pairs = labelled_pairs([row for path in files for row in read_rows(path)])
    comparers = {"reader": reader_same, "math-verify": math_verify_same,
                 "reader, then math-verify": lambda a, b: answers_match(a, b)[0]}
    return EquivalenceReport(data=[display_path(p) for p in files], pairs=len(pairs),
                             equivalent=sum(same for _, _, same in pairs),
                             comparers={name: _score(f, pairs) for name, f in comparers.items()},
                             elapsed_s=round(time.perf_counter() - started, 1))


def render(report: EquivalenceReport) -> str:
    """The human-readable report."""
    out = [(f"answer equivalence: {', '.join(report.data)}; {report.pairs} labelled pairs, "
            f"{report.equivalent} equivalent"),
           f"  {'comparer':<26}{'decided':>9}{'accuracy':>10}{'false equal':>13}{'false differ':>14}{'ms/pair':>9}"]
    for name, c in report.comparers.items():
        out.append(f"  {name:<26}{c.decided_share:>9.2%}{c.accuracy_decided:>10.2%}{c.false_equal:>13}"
                   f"{c.false_differ:>14}{c.ms_per_pair:>9.2f}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a ProcessBench JSONL file or a folder")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"error: --data {args.data} does not exist; pass a ProcessBench JSONL file or folder", file=sys.stderr)
        return 2
    report = run_equivalence(args.data)
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
