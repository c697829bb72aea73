"""AST mutants of a Python artifact's implementation (never of its tests).

Operators (one mutant per site and replacement):
- `cmp`: comparison flips `<`↔`<=`, `>`↔`>=`, `==`↔`!=`, `in`↔`not in`, `is`↔`is not`;
- `const`: off-by-one on integer constants (`n` → `n+1`, `n-1`);
- `slice`: off-by-one on non-constant slice bounds (`a[i:j]` → `a[i+1:j]`, `a[i:j-1]`, …);
- `arith`: arithmetic swaps (`+`↔`-`, `*`→`/`, `/`→`*`, `//`→`*`, `%`→`//`, `**`→`*`, `&`↔`|`, `<<`↔`>>`),
  also in augmented assignments;
- `bool`: negation of `if` / `while` / conditional-expression tests, `and`↔`or`;
- `return`: return-value replacement: an expression → the empty or zero value of its own type
  (`return x` → `return type(x)()`: 0, 0.0, '', [], (), {}, set(), False; a crash for types without
  one); literals: `True`↔`False`, a number → `0`, a non-empty string/list/dict literal → empty, an
  empty or zero one → `None`.

Implementation = every function or method whose name does not start with `test` and that carries no
hypothesis `@given`, inside classes not named `Test*`, plus the misnamed implementations
(`misnamed_implementations`: a `test*` function pytest could never run as a test, called by other code).
Mutants whose source equals the original (or another mutant) after `ast.unparse`, or after constant
folding and numeric identities (`equivalence_static.canonical`), are skipped as equivalent; mutants that
do not compile are skipped. Selection is deterministic: every site is enumerated in source order, then
`max_mutants` are drawn with `random.Random(seed)` and returned in source order (or in draw order).
"""

from __future__ import annotations

import ast
import copy
import difflib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from reasonforge.verify.code.equivalence_static import canonical

__all__ = ["Mutant", "generate_mutants", "implementation_nodes", "is_test_function", "misnamed_implementations"]

# Fixtures pytest itself provides (the sandbox loads no conftest and no fixture plugin beyond these).
_BUILTIN_FIXTURES = frozenset({
    "request", "tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory", "capsys", "capsysbinary", "capfd",
    "capfdbinary", "caplog", "monkeypatch", "pytestconfig", "record_property", "record_xml_attribute",
    "record_testsuite_property", "recwarn", "doctest_namespace", "subtests"})

_CMP_FLIP: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
_ARITH_SWAP: dict[type, type] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
    ast.LShift: ast.RShift, ast.RShift: ast.LShift,
}


@dataclass(frozen=True)
class Mutant:
    """One mutated module: `source` is the whole artifact with one change in the implementation."""

    id: int
    operator: str
    line: int
    before: str
    after: str
    source: str

    @property
    def description(self) -> str:
        """Short human-readable diff, e.g. `line 3: x < n → x <= n`."""
        return f"line {self.line}: {self.before} → {self.after}"

    def diff(self, original: str) -> str:
        """Unified diff (no context) against the unparsed original."""
        lines = difflib.unified_diff(original.splitlines(), self.source.splitlines(), lineterm="", n=0)
        return "\n".join(ln for ln in lines if not ln.startswith(("---", "+++")))


def is_test_function(node: ast.AST) -> bool:
    """A test function pytest would collect, or a hypothesis property (`@given`)."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if node.name.startswith("test"):
        return True
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "given":
            return True
    return False


def misnamed_implementations(tree: ast.Module) -> set[str]:
    """Top-level functions named `test*` that are implementation, not tests (e.g. MBPP/801's
    `test_three_equal(x, y, z)`, called by the dataset's asserts).

    Rule: no decorator, a required parameter that no fixture supplies (neither pytest's own nor one the
    artifact defines), and a reference from code outside the function. Pytest would collect such a
    function and fail it at setup ("fixture 'x' not found"), so as a test it could only ever error: no
    passing test is lost by treating it as the implementation the other tests call. Tests that take
    fixtures, hypothesis properties and parametrized tests all keep being tests."""
    fixtures = set(_BUILTIN_FIXTURES)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(_is_fixture(d) for d in node.decorator_list):
            fixtures.add(node.name)
            fixtures.update(_fixture_names(node))
    out: set[str] = set()
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
                and not node.decorator_list):
            continue
        if any(p not in fixtures for p in _required_params(node.args)) and _referenced_outside(tree, node):
            out.add(node.name)
    return out


def _is_fixture(dec: ast.expr) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return (target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")) == "fixture"


def _fixture_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {kw.value.value for d in node.decorator_list if isinstance(d, ast.Call) for kw in d.keywords
            if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)}


def _required_params(args: ast.arguments) -> list[str]:
    positional = args.posonlyargs + args.args
    required = positional[: len(positional) - len(args.defaults)]
    required += [a for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    return [a.arg for a in required]


def _referenced_outside(tree: ast.Module, func: ast.AST) -> bool:
    own = {id(n) for n in ast.walk(func)}
    name = getattr(func, "name", "")
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and id(n) not in own
               for n in ast.walk(tree))


def implementation_nodes(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Top-level functions and methods (of non-`Test*` classes) that are neither tests nor test helpers.

    A test helper is a top-level function that contains an `assert` and is not referenced by any other
    non-test function (e.g. HumanEval's `check(candidate)`): mutating it would mutate the tests."""
    out: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    misnamed = misnamed_implementations(tree)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (not is_test_function(node)
                                                                        or node.name in misnamed):
            out.append(node)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("Test"):
            out.extend(n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                       and not is_test_function(n))
    top = {id(n) for n in tree.body}
    referenced: set[str] = set()
    for f in out:
        referenced.update(n.id for n in ast.walk(f) if isinstance(n, ast.Name) and n.id != f.name)
    return [f for f in out if not (id(f) in top and f.name not in referenced
                                   and any(isinstance(n, ast.Assert) for n in ast.walk(f)))]


# A site: (operator, node, apply) where apply mutates a deep copy's matching node in place and returns
# (before, after) text.
_Site = tuple[str, ast.AST, Callable[[ast.AST], tuple[str, str]]]


def _sites(func: ast.AST) -> Iterator[_Site]:
    skip: set[int] = set()
    for deco in getattr(func, "decorator_list", []):
        skip.update(id(n) for n in ast.walk(deco))
    args = getattr(func, "args", None)
    if args is not None:
        skip.update(id(n) for n in ast.walk(args))  # default values are part of the signature
    for node in ast.walk(func):
        if id(node) in skip:
            continue
        yield from _node_sites(node)


def _node_sites(node: ast.AST) -> Iterator[_Site]:
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _CMP_FLIP:
                yield ("cmp", node, _flip_cmp(i))
    elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _ARITH_SWAP:
        yield ("arith", node, _swap_arith)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        for delta in (1, -1):
            yield ("const", node, _shift_const(delta))
    elif isinstance(node, ast.Slice):
        for field in ("lower", "upper"):
            bound = getattr(node, field)
            if bound is not None and not (isinstance(bound, ast.Constant) and type(bound.value) is int):
                for delta in (1, -1):
                    yield ("slice", node, _shift_slice(field, delta))
    elif isinstance(node, ast.If | ast.While | ast.IfExp):
        yield ("bool", node, _negate_test)
    elif isinstance(node, ast.BoolOp):
        yield ("bool", node, _swap_boolop)
    elif isinstance(node, ast.Return) and node.value is not None:
        yield ("return", node, _replace_return)


def _flip_cmp(i: int) -> Callable[[ast.AST], tuple[str, str]]:
    def apply(node: ast.AST) -> tuple[str, str]:
        assert isinstance(node, ast.Compare)
        before = ast.unparse(node)
        node.ops[i] = _CMP_FLIP[type(node.ops[i])]()
        return before, ast.unparse(node)
    return apply


def _swap_arith(node: ast.AST) -> tuple[str, str]:
    assert isinstance(node, ast.BinOp | ast.AugAssign)
    before = ast.unparse(node)
    node.op = _ARITH_SWAP[type(node.op)]()
    return before, ast.unparse(node)


def _shift_const(delta: int) -> Callable[[ast.AST], tuple[str, str]]:
    def apply(node: ast.AST) -> tuple[str, str]:
        assert isinstance(node, ast.Constant) and isinstance(node.value, int)
        before = ast.unparse(node)
        node.value = node.value + delta
        return before, ast.unparse(node)
    return apply


def _shift_slice(field: str, delta: int) -> Callable[[ast.AST], tuple[str, str]]:
    def apply(node: ast.AST) -> tuple[str, str]:
        before = ast.unparse(node)
        bound = getattr(node, field)
        op = ast.Add() if delta > 0 else ast.Sub()
        setattr(node, field, ast.BinOp(left=bound, op=op, right=ast.Constant(1)))
        return before, ast.unparse(node)
    return apply


def _negate_test(node: ast.AST) -> tuple[str, str]:
    assert isinstance(node, ast.If | ast.While | ast.IfExp)
    before = ast.unparse(node.test)
    node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    return before, ast.unparse(node.test)


def _swap_boolop(node: ast.AST) -> tuple[str, str]:
    assert isinstance(node, ast.BoolOp)
    before = ast.unparse(node)
    node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    return before, ast.unparse(node)


def _replace_return(node: ast.AST) -> tuple[str, str]:
    assert isinstance(node, ast.Return) and node.value is not None
    before = ast.unparse(node)
    value = node.value
    new: ast.expr
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        new = ast.Constant(not value.value)
    elif isinstance(value, ast.Constant) and value.value is None or isinstance(value, ast.Constant) and isinstance(value.value, int | float) and value.value != 0:
        new = ast.Constant(0)
    elif isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value:
        new = ast.Constant("")
    elif isinstance(value, ast.List | ast.Tuple) and value.elts:
        new = ast.List(elts=[], ctx=ast.Load()) if isinstance(value, ast.List) else ast.Tuple(elts=[], ctx=ast.Load())
    elif isinstance(value, ast.Set):  # never empty: `{}` is a dict
        new = ast.Call(func=ast.Name("set", ast.Load()), args=[], keywords=[])
    elif isinstance(value, ast.Dict) and value.keys:
        new = ast.Dict(keys=[], values=[])
    elif isinstance(value, ast.Constant | ast.List | ast.Tuple | ast.Set | ast.Dict):
        new = ast.Constant(None)  # an empty or zero literal: None is the value left to try
    else:
        new = _empty_of_type(value)
    node.value = new
    return before, ast.unparse(node)


def _empty_of_type(value: ast.expr) -> ast.expr:
    """`type(value)()`: the empty or zero value of the result's own type (0, 0.0, '', [], (), {}, False),
    or a crash for a type without one. A wrong value of the right type, as mutation tools' "empty
    returns" do; `None` instead would be a different type, which a test that only checks types or
    `is not None` already catches."""
    return ast.Call(func=ast.Call(func=ast.Name("type", ast.Load()), args=[value], keywords=[]), args=[], keywords=[])


def generate_mutants(source: str, *, seed: int = 0, max_mutants: int = 20, draw_order: bool = False) -> list[Mutant]:
    """Deterministic, compilable, non-equivalent mutants of `source`'s implementation, in source order
    (in the seeded draw order with `draw_order`: the first k of a larger draw are then the draw of k).

    Raises SyntaxError if `source` itself does not parse."""
    tree = ast.parse(source)
    original = ast.unparse(tree)
    sites: list[tuple[int, int]] = []  # (function index, site index within the function)
    funcs = implementation_nodes(tree)
    per_func = [list(_sites(f)) for f in funcs]
    for fi, fsites in enumerate(per_func):
        sites.extend((fi, si) for si in range(len(fsites)))
    order = _spread_over_lines(sites, per_func, random.Random(seed))
    seen = {canonical(original)}
    chosen: list[tuple[int, Mutant]] = []
    for idx in order:
        if len(chosen) >= max_mutants:
            break
        fi, si = sites[idx]
        mutant = _build(tree, funcs, fi, si, per_func[fi][si][0])
        if mutant is None:
            continue
        form = canonical(mutant.source)
        if form in seen:
            continue
        seen.add(form)
        chosen.append((idx, mutant))
    if not draw_order:
        chosen.sort(key=lambda pair: (pair[1].line, pair[0]))
    return [Mutant(i, m.operator, m.line, m.before, m.after, m.source) for i, (_, m) in enumerate(chosen)]


def _spread_over_lines(sites: list[tuple[int, int]], per_func: list[list], rng: random.Random) -> list[int]:
    """Site indices in trial order: one per source line in shuffled line order, then a second round, ….

    Mutants on one line are largely redundant (a test that reaches the line kills most of them), and a
    plain uniform draw over-samples lines dense in constants (a literal list of 7 numbers offers 14
    mutants), so the score would measure one line instead of the function."""
    by_line: dict[int, list[int]] = {}
    for idx, (fi, si) in enumerate(sites):
        by_line.setdefault(getattr(per_func[fi][si][1], "lineno", 0), []).append(idx)
    lines = sorted(by_line)
    rng.shuffle(lines)
    for line in lines:
        rng.shuffle(by_line[line])
    order: list[int] = []
    for depth in range(max((len(v) for v in by_line.values()), default=0)):
        order.extend(by_line[line][depth] for line in lines if depth < len(by_line[line]))
    return order


def _build(tree: ast.Module, funcs: list, fi: int, si: int, operator: str) -> Mutant | None:
    clone = copy.deepcopy(tree)
    clone_funcs = implementation_nodes(clone)
    clone_sites = list(_sites(clone_funcs[fi]))
    op, node, apply = clone_sites[si]
    assert op == operator
    line = getattr(node, "lineno", 0)
    try:
        before, after = apply(node)
        ast.fix_missing_locations(clone)
        text = ast.unparse(clone)
        compile(text, "<mutant>", "exec")
    except (SyntaxError, ValueError, TypeError, RecursionError):
        return None
    if before == after:
        return None
    return Mutant(0, operator, line, _short(before), _short(after), text)


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
