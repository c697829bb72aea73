"""HumanEval: canonical solution + the dataset's `check` as a pytest test → VERIFIED (target ≥ 98 %); for each
task, 5 mutants of the canonical solution → not VERIFIED (target ≥ 90 %). See `_code.py` for the procedure.

Artifact = prompt (signature + docstring) + canonical_solution, then
`def test_check():` holding the dataset's `test` code (so its `check` helper is part of the test, never
mutated) and `check(<entry_point>)`.

Usage: python benchmarks/humaneval.py [--data FILE] [--limit N] [--ids 12,32] [--level quick|standard|formal]
       [--mutants 5] [--max-mutants 10] [--threshold T] [--weak-suites] [--rows FILE] [--seed S] [--json]
"""

from __future__ import annotations

import sys
import textwrap
from typing import Any

from _code import REPO, Task, main, weaken

DEFAULT_DATA = [REPO / "data" / "humaneval" / "HumanEval.slice.jsonl"]


def to_task(row: dict[str, Any], weak: str | None = None) -> Task:
    """The task's artifact; with `weak` (a `_code.WEAK_KINDS` kind), its `check` weakened that way."""
    source = row["test"] if weak is None else weaken(row["test"], weak)
    test = textwrap.indent(source.strip("\n"), "    ")
    artifact = (f"{row['prompt']}{row['canonical_solution'].rstrip()}\n\n\n"
                f"def test_check():\n{test}\n    check({row['entry_point']})\n")
    return Task(id=row["task_id"], artifact=artifact)


if __name__ == "__main__":
    sys.exit(main("HumanEval", DEFAULT_DATA, to_task))
