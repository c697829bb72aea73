"""How deeply a syntax tree written by someone else may nest before the verifier reads it.

The verifier reads an artifact's tree (and the code of the step text and question) with recursive code:
`ast.unparse` (mutants, messages), `copy.deepcopy` (one copy per mutant), `ast.NodeTransformer` (constant
folding), `ast.dump`, `ast.literal_eval`. Each costs one to four Python frames per level of the tree, and CPython's
parser accepts trees deeper than that leaves room for under the interpreter's recursion limit: a chain of 500 `+`
parses, compiles and runs, and its `ast.unparse` raises RecursionError. So a tree is measured first, without
recursion, and one that nests deeper than `MAX_DEPTH` levels is not read at all; the checker says what nests and
how to write it instead. Code people write stays far below the bound: of the 21,015 modules in this project's
environment, 3 nest deeper than 100 levels, all of them generated tables.
"""

from __future__ import annotations

import ast

__all__ = ["MAX_DEPTH", "too_deep", "unparsable"]

MAX_DEPTH = 100


def too_deep(tree: ast.AST, what: str = "the artifact's code") -> str | None:
    """Why `tree` is not read (it nests deeper than `MAX_DEPTH` levels; `what` names it), or None."""
    stack: list[tuple[ast.AST, int, int | None]] = [(tree, 1, None)]
    while stack:
        node, depth, line = stack.pop()
        line = getattr(node, "lineno", line)
        if depth > MAX_DEPTH:
            where = f" (at line {line})" if line is not None else ""
            return (f"{what} nests more than {MAX_DEPTH} levels deep{where}, deeper than the checker reads a "
                    "syntax tree: write the expression in steps, naming intermediate values")
        stack.extend((child, depth + 1, line) for child in ast.iter_child_nodes(node))
    return None


def unparsable(exc: BaseException, what: str = "the artifact's code") -> str:
    """What to say of source whose parsing ran out of recursion or memory (`exc`): it nests too deeply."""
    return (f"{what} nests too deeply for Python's parser ({type(exc).__name__}): write the expression in steps, "
            "naming intermediate values")
