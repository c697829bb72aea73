"""What counts as evidence that code computes what it is shown to: the rules on examples and on the author's tests.

An example is evidence only when two things hold.

The examples can tell computing code from a trivial answer (`trivial_answer`). For each function, its
examples (call → expected value, both read exactly) must rule out every function that computes nothing: a
constant, an argument returned as it came, an argument's first or last item. One example never can (a
constant gives it); `median([5]) → 5` cannot (the first item gives it), nor `my_abs(-3) → -3, my_abs(4) → 4`
(the argument gives both).

The artifact computes them. Read from the AST (`static_shortcut`): a function that never reads its
parameters, or that holds one of its examples' inputs as a literal (compares its input with it, keys a
table by it: a lookup of the examples), does not. Observed in the sandbox (`perturbed_calls`): the verifier
also sends each example's call on inputs it perturbed (of the same types: items negated, shifted, reordered,
changed, dropped or repeated; values moved between a dict's keys; never an empty or zero value where the
example had a full one), and a function whose every perturbed call gives exactly what the example gave does
not depend on its input (`len(xs) and 3`, a constant behind a condition). The step-check child cannot tell
a perturbed call from an example's; the verifier compares.

The author's tests (`author_tests_shortfall`) count, as the author's own evidence, only when some test asserts
a value: not a test that asserts nothing, only types (`isinstance`), `is not None`, the function against
itself (`f(5) == f(5)`), or only an exception; and when the cases it writes out (`f(literal) == literal`)
rule out the trivial answers as above, unless it also asserts values in forms the reader cannot list
(properties, loops, a helper that receives the function), which are taken as they stand.
"""

from __future__ import annotations

import ast
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reasonforge.verify.code.values import same_value

__all__ = ["Case", "author_tests_shortfall", "literal_call", "perturbed_calls", "static_shortcut", "trivial_answer"]

PROBES_PER_CALL = 10
_TRIVIAL: tuple[Any, ...] = (None, True, False, 0, 1, -1, "", (), [], {})  # base cases real code compares with
_TYPE_ONLY = frozenset({"isinstance", "issubclass", "callable", "hasattr", "type", "id"})
_VALUE_ASSERTS = frozenset({"assertEqual", "assertEquals", "assertNotEqual", "assertAlmostEqual", "assertIn",
                            "assertNotIn", "assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual",
                            "assertTrue", "assertFalse", "assertCountEqual", "assertListEqual", "assertDictEqual",
                            "assertSetEqual", "assertTupleEqual", "assertSequenceEqual", "assertMultiLineEqual"})


@dataclass(frozen=True)
class Case:
    """One call written out with its expected value: `function(*args, **kwargs) → expected`."""

    function: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()
    expected: Any = None
    sources: tuple[str, ...] = field(default=(), compare=False)


_UNREAD = object()


def _literal(node: ast.AST, env: dict[str, Any] | None = None) -> Any:
    if env and isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNREAD


def literal_call(node: ast.AST, names: Iterable[str], env: dict[str, Any] | None = None
                 ) -> tuple[str, tuple[Any, ...], tuple[tuple[str, Any], ...]] | None:
    """(function, args, kwargs) when `node` calls one of `names` with arguments written as literals (or names
    `env` gives literal values); None otherwise."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in set(names)):
        return None
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    args = tuple(_literal(a, env) for a in node.args)
    kwargs = tuple((str(k.arg), _literal(k.value, env)) for k in node.keywords)
    if any(a is _UNREAD for a in args) or any(v is _UNREAD for _, v in kwargs):
        return None
    return node.func.id, args, kwargs


# ------------------------------------------------------------------------------ trivial answers


def trivial_answer(cases: Sequence[Case]) -> str | None:
    """A function computing nothing that gives every case (all of one function), described; None when the
    cases rule them all out."""
    if not cases:
        return "nothing (no example)"
    first = cases[0].expected
    if all(same_value(c.expected, first) for c in cases):
        one = " (one example is all there is)" if len(cases) == 1 else ""
        return f"a function returning {_short(first)} whatever its input{one}"
    width = min(len(c.args) for c in cases)
    for i in range(width):
        if all(same_value(c.expected, c.args[i]) for c in cases):
            return f"a function returning its argument{f' {i + 1}' if width > 1 else ''} unchanged"
        for at, word in ((0, "first"), (-1, "last")):
            if all(_item(c.args[i], at, c.expected) for c in cases):
                return f"a function returning the {word} item of its argument{f' {i + 1}' if width > 1 else ''}"
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _item(arg: Any, at: int, expected: Any) -> bool:
    return type(arg) in (list, tuple, str) and len(arg) > 0 and same_value(arg[at], expected)


# ------------------------------------------------------------------------------- the artifact's code


def static_shortcut(tree: ast.Module, name: str, cases: Sequence[Case]) -> str | None:
    """Why the artifact's `name` can give its examples without computing them (it never reads its parameters,
    or it holds one of the examples as a literal: compares its input with it, keys a table by it, lists it
    with its answer), or None."""
    fn = _function_node(tree, name)
    if fn is not None:
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        if fn.args.vararg:
            params.append(fn.args.vararg.arg)
        if fn.args.kwarg:
            params.append(fn.args.kwarg.arg)
        body = fn.body if isinstance(fn.body, list) else [fn.body]
        read = {n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if params and not read & set(params):
            return (f"{name} never reads its parameter{'s' if len(params) > 1 else ''} {', '.join(params)}: a "
                    "function that ignores its input can match the examples without computing anything")
    shown = [x for case in cases for x in (*case.args, *(v for _, v in case.kwargs))
             if not any(same_value(x, t) for t in _TRIVIAL)]
    # a container written out in the code is a lookup wherever it stands, and so is its text (`str(xs) ==
    # "[3, 1, 2]"`); a number or a string may be a constant the code needs (`n == 2` in a primality test), so
    # it counts where the input is compared with it, or where it stands beside the example's answer (a table)
    containers: list[Any] = [x for x in shown if isinstance(x, list | tuple | dict | set | frozenset)]
    texts = [t for x in containers for t in (repr(x), str(x))]
    answers = [(case.args[0], case.expected) for case in cases if len(case.args) == 1 and not case.kwargs]
    containers += texts  # the input's text held as a key or an item is the same lookup
    for node in _implementation(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                value = _literal(side)
                if value is not _UNREAD and (any(_same_input(value, x) for x in shown) or value in texts):
                    return (f"{name} compares its input with the example's own input {ast.unparse(side)[:60]}: "
                            "a lookup of the examples is not an implementation of the step")
        elif isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict) and _holds_an_example(node, containers, answers):
            return (f"the artifact holds an example of the step, {ast.unparse(node)[:60]}, as a literal: a "
                    "lookup of the examples is not an implementation of the step")
    return None


def _holds_an_example(node: ast.AST, containers: list[Any], answers: list[tuple[Any, Any]]) -> bool:
    """Does this literal display hold an example's input (a container), or an input beside its answer (a dict
    entry, a pair)?"""
    value = _literal(node)
    held = [value] if value is not _UNREAD else []
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        held += [v for v in (_literal(e) for e in node.elts) if v is not _UNREAD]
    if isinstance(node, ast.Dict):
        pairs = [(_literal(k), _literal(v)) for k, v in zip(node.keys, node.values, strict=True) if k is not None]
        held += [k for k, _ in pairs if k is not _UNREAD]
        if any(same_value(k, i) and same_value(v, a) for k, v in pairs for i, a in answers
               if not any(same_value(i, t) for t in _TRIVIAL)):
            return True
    if isinstance(value, list | tuple) and len(value) == 2 and any(
            same_value(value[0], i) and same_value(value[1], a) for i, a in answers
            if not any(same_value(i, t) for t in _TRIVIAL)):
        return True
    return any(_same_input(v, x) for v in held for x in containers)


def _same_input(value: Any, shown: Any) -> bool:
    """The literal is the example's input, as written or as a tuple or list of the same items."""
    if same_value(value, shown):
        return True
    if isinstance(value, list | tuple) and isinstance(shown, list | tuple):
        return same_value(list(value), list(shown))
    return False


def _function_node(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda) and \
                any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
    return None


def _implementation(tree: ast.Module) -> Iterable[ast.AST]:
    """Every node of the artifact outside its tests."""
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and \
                stmt.name.lower().startswith("test"):
            continue
        yield from ast.walk(stmt)


# ------------------------------------------------------------------------------------ perturbations


def perturbed_calls(case: Case, seed: str) -> list[str]:
    """Calls of `case.function` on its inputs perturbed (see the module doc), as sources: up to PROBES_PER_CALL,
    deterministic for `seed`, each argument perturbed in turn, the changes that move most first."""
    rng = random.Random(f"rf-probe:{seed}")
    per_argument: list[list[tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]]]] = []
    for i, arg in enumerate(case.args):
        per_argument.append([((*case.args[:i], v, *case.args[i + 1:]), case.kwargs) for v in _near(arg, rng)])
    for k, (key, arg) in enumerate(case.kwargs):
        per_argument.append([(case.args, (*case.kwargs[:k], (key, v), *case.kwargs[k + 1:])) for v in _near(arg, rng)])
    out: list[str] = []
    for round_ in range(max((len(v) for v in per_argument), default=0)):
        for variants in per_argument:
            if round_ < len(variants) and len(out) < PROBES_PER_CALL:
                args, kwargs = variants[round_]
                source = _source(case.function, args, kwargs)
                if source is not None and source not in out:
                    out.append(source)
    return out


def _source(name: str, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...]) -> str | None:
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs]
    source = f"{name}({', '.join(parts)})"
    try:
        ast.parse(source, mode="eval")
    except SyntaxError:
        return None
    return source


def _near(value: Any, rng: random.Random, depth: int = 0) -> list[Any]:
    """Values of the same type as `value`, none of them `value`, none empty or zero where it is not: the
    changes that move most first (reorderings, every number negated), then single items changed."""
    t = type(value)
    out: list[Any]
    if t is int:
        out = [-value, value + 1, value - 1, 2 * value, value + 7]
    elif t is float:
        out = [-value, value + 1.0, 2.0 * value, value / 2.0] if math.isfinite(value) else []
    elif t is str:
        out = _near_text(value, rng)
    elif t is list or t is tuple:
        out = [t(x) for x in _near_sequence(list(value), rng, depth)]
    elif t is dict and depth < 3:
        out = _near_mapping(value, rng, depth)
    elif (t is set or t is frozenset) and depth < 3 and value:
        item = min(value, key=repr)
        out = [t((value - {item}) | {v}) for v in _near(item, rng, depth + 1) if _hashable(v) and v not in value][:2]
        if len(value) > 1:
            out.append(t(value - {item}))
    else:
        out = []
    return [v for v in out if not same_value(v, value) and (bool(v) or not bool(value))]


def _near_text(s: str, rng: random.Random) -> list[str]:
    out = [s[::-1], s.swapcase()]
    words = s.split(" ")
    if len(words) > 1:  # `'three one five'`: words a function reads one by one, dropped (each still a word)
        out[1:1] = [" ".join(words[:-1]), " ".join(words[1:])]
    if s:
        out += [_shift_char(s, i) for i in sorted(rng.sample(range(len(s)), min(3, len(s))))]
        i = rng.randrange(len(s))
        out.append(s[:i + 1] + s[i] + s[i + 1:])
        if len(s) > 1:
            out.append(s[:i] + s[i + 1:])
    return out


def _near_sequence(xs: list[Any], rng: random.Random, depth: int) -> list[list[Any]]:
    out = [xs[::-1], _map_numbers(xs, lambda x: -x)]
    if len(xs) > 1:  # a shorter sequence early: a function of its items' sizes (`max(len(x) for x in xs)`) sees it
        out.append(xs[:-1])
    try:
        out += [sorted(xs), sorted(xs, reverse=True)]
    except TypeError:
        pass
    out.append(_map_numbers(xs, lambda x: x + 1))
    if depth < 3 and xs:
        for i in sorted({0, len(xs) // 2, len(xs) - 1}):
            out += [xs[:i] + [v] + xs[i + 1:] for v in _near(xs[i], rng, depth + 1)[:2]]
        i = rng.randrange(len(xs))
        out.append(xs[:i + 1] + [xs[i]] + xs[i + 1:])
        if len(xs) > 1:
            out += [xs[1:], xs[:-1]]
    return out


def _near_mapping(d: dict[Any, Any], rng: random.Random, depth: int) -> list[dict[Any, Any]]:
    keys = list(d)
    out: list[dict[Any, Any]] = []
    if len(keys) > 1:
        values = [d[k] for k in keys]
        out.append(dict(zip(keys, values[1:] + values[:1], strict=True)))  # every value moved to another key
    for k in keys[:3]:
        out += [{**d, k: v} for v in _near(d[k], rng, depth + 1)[:2]]
    if keys:
        k = rng.choice(keys)
        fresh = [n for n in _near(k, rng, depth + 1) if _hashable(n) and n not in d]
        if fresh:
            out.append({(fresh[0] if key == k else key): v for key, v in d.items()})
        if len(keys) > 1:
            out.append({key: v for key, v in d.items() if key != k})
    return out


def _map_numbers(value: Any, f: Any) -> Any:
    t = type(value)
    if t is int or t is float:
        return f(value)
    if t is list or t is tuple:
        return t(_map_numbers(x, f) for x in value)
    return value


def _shift_char(s: str, i: int) -> str:
    c = s[i]
    shifted = "b" if c == "a" else "a" if c.isalpha() else chr(ord(c) + 1) if ord(c) < 0x10FFFF else c
    return s[:i] + shifted + s[i + 1:]


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


# -------------------------------------------------------------------------------- the author's tests


def author_tests_shortfall(tree: ast.Module, implementation: Iterable[str]) -> str | None:
    """Why the artifact's own tests are no evidence at all (see the module doc), or None when they are."""
    names = set(implementation)
    asserts = _test_assertions(tree)
    if not asserts:
        return "the author's tests assert nothing"
    cases: dict[str, list[Case]] = {}
    opaque = False
    for node in asserts:
        if not _asserts_a_value(node):
            continue
        case = _written_case(node, names)
        if case is None:
            opaque = True
        else:
            cases.setdefault(case.function, []).append(case)
    if opaque:
        return None
    if not cases:
        return "the author's tests assert no value (only types, `is not None`, a function against itself, or nothing)"
    reasons = {name: trivial_answer(_distinct(found)) for name, found in cases.items()}
    if any(reason is None for reason in reasons.values()):
        return None
    name, reason = next(iter(reasons.items()))
    return f"the author's tests of {name} cannot tell it from {reason}"


def _distinct(cases: list[Case]) -> list[Case]:
    out: list[Case] = []
    for case in cases:
        if not any(same_value((c.args, c.kwargs), (case.args, case.kwargs)) for c in out):
            out.append(case)
    return out


def _test_assertions(tree: ast.Module) -> list[ast.AST]:
    """The assert statements (and unittest assert calls) of the tests, and of top-level code."""
    out: list[ast.AST] = []
    roots: list[ast.AST] = []
    for stmt in tree.body:
        test = isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name.startswith("test")
        test_class = isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test")
        if test or test_class or not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            roots.append(stmt)
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, ast.Assert):
                out.append(node.test)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr.startswith("assert"):
                out.append(node)
    return out


def _asserts_a_value(node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.startswith("assert"):
        if node.func.attr not in _VALUE_ASSERTS or not node.args:
            return False
        if len(node.args) >= 2 and ast.dump(node.args[0]) == ast.dump(node.args[1]):
            return False
        return not (node.func.attr in ("assertTrue", "assertFalse") and not _asserts_a_value(node.args[0]))
    if isinstance(node, ast.Constant):
        return False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _asserts_a_value(node.operand)
    if isinstance(node, ast.BoolOp):
        return any(_asserts_a_value(v) for v in node.values)
    if isinstance(node, ast.Call):
        return not (isinstance(node.func, ast.Name) and node.func.id in _TYPE_ONLY)
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        if any(isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.func.id in _TYPE_ONLY for s in sides):
            return False
        if all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops) and \
                any(isinstance(s, ast.Constant) and s.value is None for s in sides):
            return False
        return len({ast.dump(s) for s in sides}) > 1
    return True


def _written_case(node: ast.AST, names: set[str]) -> Case | None:
    """`f(literals) == literal` (either way round) for an implementation function f, as a Case; a side holding
    exactly one such call inside (`repr(f(3)) == '9'`) counts as that call's case."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return None
    for call, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
        found = literal_call(call, names)
        expected = _literal(other)
        if expected is _UNREAD:
            continue
        if found is None:  # `repr(f(3)) == '9'`: the one call inside stands for the case
            inner = [c for c in (literal_call(n, names) for n in ast.walk(call)) if c is not None]
            found = inner[0] if len(inner) == 1 else None
        if found is not None:
            return Case(function=found[0], args=found[1], kwargs=found[2], expected=expected)
    return None
