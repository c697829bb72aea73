"""What an artifact binds at module level, and how, read from its AST: where the reader may place a claim.

Whether the artifact defines a name an example or a claim calls is not decided here: any binding counts
(a def, a lambda, an alias, `from m import f as name`, `functools.partial`, a callable instance, a def
inside `if` or `try`, `globals()[...] =`, `setattr` on the module, a walrus, tuple unpacking, `exec`), so
the step-check child looks the name up in the module's namespace after import, in the sandbox, and reports
the names it does not find (`harness/rf_child_step.py`).

What the AST is for: placing a claim that names no function. `Bindings.candidates` are the module-level
names that may be the function a claim is about: defs that take one argument, and every other binding that
may hold a callable (a lambda, an alias, an import from a module, a call's result). A module that binds names
in ways the AST cannot list (`globals()`, `setattr` on a module, `exec`, `global` in a function) is
`dynamic`: an unnamed claim cannot be placed on it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

__all__ = ["Bindings", "module_bindings", "takes_one_argument"]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_DYNAMIC_CALLS = frozenset({"globals", "vars", "locals"})
_RUN_TIME_BINDERS = frozenset({"setattr", "exec"})
_WRAPPERS = frozenset({"partial", "partialmethod", "staticmethod", "classmethod", "wraps", "lru_cache", "cache",
                       "singledispatch", "reduce", "methodcaller", "attrgetter", "itemgetter", "compose"})


@dataclass
class Bindings:
    """The module-level bindings of an artifact (see the module doc)."""

    defs: dict[str, FunctionNode] = field(default_factory=dict)  # functions (not tests) defined at module level
    others: set[str] = field(default_factory=set)  # names bound otherwise that may hold a callable
    names: set[str] = field(default_factory=set)  # every name bound at module level, in any form
    dynamic: bool = False  # names bound at run time in ways the AST does not show

    def candidates(self) -> list[str]:
        """The names an unnamed one-argument claim could be about, sorted."""
        one = {name for name, f in self.defs.items() if takes_one_argument(f)}
        return sorted(one | (self.others - set(self.defs)))


def module_bindings(tree: ast.Module) -> Bindings:
    """The artifact's module-level bindings."""
    out = Bindings()
    for node in _module_level(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.names.add(node.name)
            if not node.name.lower().startswith("test"):
                out.defs.setdefault(node.name, node)
        elif isinstance(node, ast.ClassDef):
            out.names.add(node.name)
            if any(isinstance(n, ast.FunctionDef) and n.name in ("__new__", "__call__") for n in node.body) and \
                    not node.name.startswith("Test"):
                out.others.add(node.name)
        elif isinstance(node, ast.Import):
            out.names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            bound = {a.asname or a.name for a in node.names if a.name != "*"}
            out.names.update(bound)
            out.others.update(bound)
            out.dynamic |= any(a.name == "*" for a in node.names)
        else:
            for target, value in _assignments(node):
                out.names.add(target)
                if value is None or _may_be_callable(value):
                    out.others.add(target)
    out.others = {n for n in out.others if not n.lower().startswith("test")}
    out.dynamic |= _binds_at_run_time(tree)
    return out


def takes_one_argument(f: FunctionNode) -> bool:
    """Can `f` be called with exactly one positional argument?"""
    if isinstance(f, ast.AsyncFunctionDef):
        return False
    a = f.args
    positional = len(a.posonlyargs) + len(a.args)
    required = positional - len(a.defaults)
    kw_required = sum(1 for d in a.kw_defaults if d is None)
    return kw_required == 0 and required <= 1 and (positional >= 1 or a.vararg is not None)


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run in the module's own scope: the body and what `if`, `try`, `with`, `for` and
    `while` blocks at module level hold (their defs bind module names too)."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While):
            out.extend(_module_level(node.body + node.orelse))
        elif isinstance(node, ast.With | ast.AsyncWith):
            out.extend(_module_level(node.body))
        elif isinstance(node, ast.Try | ast.TryStar):
            handlers = [s for h in node.handlers for s in h.body]
            out.extend(_module_level(node.body + handlers + node.orelse + node.finalbody))
        elif isinstance(node, ast.Match):
            out.extend(_module_level([s for case in node.cases for s in case.body]))
    return out


def _assignments(node: ast.stmt) -> list[tuple[str, ast.expr | None]]:
    """(name, value or None when unknown) for each module-level name a simple statement binds, walrus
    included; a tuple unpacking pairs names with values where it can."""
    out: list[tuple[str, ast.expr | None]] = []
    if isinstance(node, ast.Assign):
        for target in node.targets:
            out.extend(_pair(target, node.value))
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        out.extend(_pair(node.target, node.value))
    elif isinstance(node, ast.For | ast.AsyncFor):
        out.extend(_pair(node.target, None))
    elif isinstance(node, ast.With | ast.AsyncWith):
        for item in node.items:
            if item.optional_vars is not None:
                out.extend(_pair(item.optional_vars, None))
    for sub in _walk_scope(node):
        if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
            out.append((sub.target.id, sub.value))
    return out


def _pair(target: ast.expr, value: ast.expr | None) -> list[tuple[str, ast.expr | None]]:
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple | ast.List):
        values = value.elts if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts) \
            else [None] * len(target.elts)
        return [pair for t, v in zip(target.elts, values, strict=True) for pair in _pair(t, v)]
    if isinstance(target, ast.Starred):
        return _pair(target.value, None)
    return []


def _walk_scope(node: ast.AST) -> list[ast.AST]:
    """`node` and what it holds, without entering another scope (a def, a lambda, a class)."""
    out: list[ast.AST] = []
    stack = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                stack.append(child)
    return out


def _may_be_callable(value: ast.expr) -> bool:
    """Could this value be a function? A lambda, an alias (a name, an attribute, an item), a partial or a
    wrapped function, an instance of a class (`Name()` with a capitalised name) can; data and the results
    of other calls (`re.compile(...)`, `int(...)`) are taken not to be."""
    if isinstance(value, ast.Lambda | ast.Name | ast.Attribute | ast.Subscript):
        return True
    if isinstance(value, ast.IfExp):
        return _may_be_callable(value.body) or _may_be_callable(value.orelse)
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in _WRAPPERS or name.lstrip("_")[:1].isupper()
    return False


def _binds_at_run_time(tree: ast.Module) -> bool:
    """Does the module bind names in ways its AST does not list: `globals()[...] =` (or `vars()`, `locals()`),
    `globals().update(...)`, `setattr(...)` or `exec(...)` at module level, `global` inside a function?"""
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _DYNAMIC_CALLS:
            return True
    for stmt in _module_level(tree.body):
        for node in _walk_scope(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _RUN_TIME_BINDERS:
                return True
    return False
