"""MBPP (sanitized): reference code + each `test_list` assert as its own pytest test → VERIFIED (target ≥ 98 %);
for each task, 5 mutants of the reference code → not VERIFIED (target ≥ 90 %). See `_code.py` for the procedure.

Artifact = `test_imports`, the reference `code`, then `def test_case_<k>(): <assert>` per test_list entry.

Usage: python benchmarks/mbpp.py [--data FILE] [--limit N] [--ids 559,721] [--level quick|standard|formal]
       [--mutants 5] [--max-mutants 10] [--threshold T] [--weak-suites] [--rows FILE] [--seed S] [--json]
"""

from __future__ import annotations

import sys
from typing import Any

from _code import REPO, Task, main, weaken

DEFAULT_DATA = [REPO / "data" / "mbpp-sanitized" / "sanitized-mbpp.slice.jsonl"]


def to_task(row: dict[str, Any], weak: str | None = None) -> Task:
    """The task's artifact; with `weak` (a `_code.WEAK_KINDS` kind), its tests weakened that way."""
    imports = "".join(f"{line}\n" for line in row.get("test_imports", []))
    tests = "".join(f"\n\ndef test_case_{k}():\n    {line.strip()}\n" for k, line in enumerate(row["test_list"], start=1))
    if weak is not None:
        tests = "\n\n" + weaken(tests, weak).replace("\ndef ", "\n\n\ndef ") + "\n"
    return Task(id=f"MBPP/{row['task_id']}", artifact=f"{imports}{row['code'].rstrip()}\n{tests}")


if __name__ == "__main__":
    sys.exit(main("MBPP", DEFAULT_DATA, to_task))
