"""The bound on how deeply an artifact's syntax tree may nest before the verifier's recursive readers see it."""

from __future__ import annotations

import ast
import copy
import sys

import pytest

from reasonforge.verify.code.nesting import MAX_DEPTH, too_deep


def nested(kind: str, n: int) -> str:
    """A function whose returned expression nests `n` levels deep in one of the ways the parser accepts."""
    expression = {
        "sum": "n + (" + " + ".join(["0"] * n) + ")",
        "unary": "-" * n + "n",
        "attribute": "n" + ".real" * n,
        "subscript": "n" + "[0]" * n,
        "lambda": "lambda: " * n + "n",
        "conditional": "n if n else " * n + "n",
        "not": "not " * n + "n",
    }[kind]
    return f"def double(n):\n    return {expression}\n"


@pytest.mark.parametrize("kind", ["sum", "unary", "attribute", "subscript", "lambda", "conditional", "not"])
def test_a_tree_deeper_than_the_readers_can_follow_is_not_read(kind):
    deep = ast.parse(nested(kind, 500))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default: another test in the process may have raised it
    try:
        with pytest.raises(RecursionError):  # what the checker did with it: ast.unparse, deepcopy of every mutant
            copy.deepcopy(deep)
    finally:
        sys.setrecursionlimit(limit)
    why = too_deep(deep)
    assert why is not None and f"more than {MAX_DEPTH} levels" in why and "at line 2" in why
    assert "naming intermediate values" in why


def test_code_people_write_is_read():
    shallow = ast.parse(nested("sum", 60))
    assert too_deep(shallow) is None
    ast.unparse(shallow)
    copy.deepcopy(shallow)


def test_the_measure_itself_does_not_recurse():
    # 2,000 levels: the parser's own limit is near; ast.unparse and copy.deepcopy fail far below it
    assert too_deep(ast.parse(nested("sum", 2000))) is not None
