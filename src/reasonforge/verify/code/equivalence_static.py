"""Static pre-filter for equivalent mutants: a canonical AST after constant folding and numeric identities.

Two sources with the same canonical form compute the same thing, so `generate_mutants` skips a mutant
whose canonical form equals the original's (or an earlier mutant's), as it already skips textual
duplicates. Folding covers constant-only arithmetic (`60 * 6` → 360; bounded, so `10 ** 10 ** 10` is
left alone) and the identities `x + 0`, `x - 0`, `0 + x`, `x | 0`, `x ^ 0`, `x << 0`, `x >> 0`, `x * 1`,
`1 * x`, `x ** 1` → `x`. The identities hold for the numbers such code computes with (the original only
writes `x ** 1` for numeric `x`); they are the cheap cases, the differential run handles the rest.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

__all__ = ["canonical"]

_FOLD = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
         ast.Mod: operator.mod, ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
         ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
         ast.Div: operator.truediv}
_RIGHT_ZERO = (ast.Add, ast.Sub, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)
_MAX_BITS = 256


def canonical(source: str) -> str:
    """`ast.dump` of `source` after folding (raises SyntaxError like `ast.parse`)."""
    return ast.dump(_Folder().visit(ast.parse(source)), annotate_fields=False)


def _number(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _is(node: ast.AST, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


class _Folder(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        left, right, op = node.left, node.right, node.op
        a, b = _number(left), _number(right)
        if a is not None and b is not None and type(op) in _FOLD:
            value = _safe_fold(type(op), a, b)
            if value is not None:
                return ast.Constant(value)
        if _is(right, 0) and isinstance(op, _RIGHT_ZERO):
            return left
        if (_is(right, 1) and isinstance(op, ast.Mult | ast.Pow)) or (_is(left, 1) and isinstance(op, ast.Mult)):
            return left if _is(right, 1) else right
        if _is(left, 0) and isinstance(op, ast.Add):
            return right
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        value = _number(node.operand)
        if value is not None and isinstance(node.op, ast.USub | ast.UAdd):
            return ast.Constant(-value if isinstance(node.op, ast.USub) else +value)
        return node


def _safe_fold(op: type[ast.operator], a: Any, b: Any) -> Any:
    """The folded value, or None when it would be huge, raise, or is not worth the risk."""
    if any(isinstance(v, int) and abs(v).bit_length() > _MAX_BITS for v in (a, b)):
        return None
    if op is ast.Pow and (not isinstance(b, int) or not 0 <= b <= 64):
        return None
    if op in (ast.LShift, ast.RShift) and not (isinstance(b, int) and 0 <= b <= 64):
        return None
    try:
        return _FOLD[op](a, b)
    except (ArithmeticError, TypeError, ValueError):
        return None
