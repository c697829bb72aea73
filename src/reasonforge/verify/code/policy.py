"""What an artifact may not do to the harness's property profile, read from its AST before anything runs.

The harness runs every hypothesis test with its own profile (harness/rf_child_pytest.py replaces each
test's `@settings`, `@seed` and `@reproduce_failure`, and checks hypothesis's run statistics), so per-test
settings are allowed and simply do not apply. What is refused, with a message that says why: setting
up profiles (`settings.register_profile` / `load_profile`, assigning `settings.default`), importing
hypothesis internals (`hypothesis.core`, `hypothesis.internal`, `hypothesis.statistics`, ...), writing to
or deleting attributes of anything imported from hypothesis (monkeypatching it), and naming hypothesis's
private attributes (`_hypothesis_...`). Code that gets around this by building names at run time is
explicit tampering in the published artifact; the run statistics check still fails a property whose
generated examples did not run.
"""

from __future__ import annotations

import ast

__all__ = ["hypothesis_tampering"]

PUBLIC_SUBMODULES = {"strategies", "extra", "stateful"}
INTERNAL_MODULES = {"core", "internal", "statistics", "_settings", "control", "reporting", "configuration", "database",
                    "utils", "vendor", "entry_points", "provisional", "version"}
PROFILE_CALLS = {"register_profile", "load_profile", "get_profile"}


def hypothesis_tampering(tree: ast.Module) -> str | None:
    """Why the artifact may not run (it configures or patches hypothesis), or None."""
    roots = _hypothesis_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            problem = _private_import(node)
            if problem:
                return problem
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_hypothesis"):
                return f"line {node.lineno}: the artifact touches hypothesis's private attribute {node.attr}"
            if node.attr in PROFILE_CALLS and _root(node.value) in roots:
                return (f"line {node.lineno}: the artifact sets up a hypothesis profile ({node.attr}); the harness "
                        "runs every property with its own profile: remove it")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "_hypothesis" in node.value:
            return f"line {node.lineno}: the artifact names hypothesis's private attributes ({node.value[:60]!r})"
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Attribute | ast.Subscript) and _root(sub.value) in roots:
                        return (f"line {node.lineno}: the artifact modifies hypothesis ({ast.unparse(sub)[:60]}); "
                                "properties run under the harness's own profile and may not change it")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in {"setattr", "delattr"} and node.args and _root(node.args[0]) in roots):
            return (f"line {node.lineno}: the artifact modifies hypothesis ({node.func.id} on "
                    f"{ast.unparse(node.args[0])[:40]}); properties run under the harness's own profile")
    return None


def _private_import(node: ast.Import | ast.ImportFrom) -> str | None:
    modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    if isinstance(node, ast.ImportFrom) and node.module == "hypothesis":
        modules += [f"hypothesis.{a.name}" for a in node.names if a.name in INTERNAL_MODULES or a.name.startswith("_")]
    for module in modules:
        parts = module.split(".")
        internal = parts[0] in ("_hypothesis_pytestplugin", "_hypothesis_globals", "_hypothesis_ftz_detector") or (
            parts[0] == "hypothesis" and len(parts) > 1 and parts[1] not in PUBLIC_SUBMODULES)
        if internal:
            return (f"line {node.lineno}: the artifact imports {module}, a hypothesis internal; use `hypothesis` "
                    "and `hypothesis.strategies`")
    return None


def _hypothesis_names(tree: ast.Module) -> set[str]:
    """Names bound to hypothesis or anything imported from it."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] == "hypothesis")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "hypothesis":
            names.update(a.asname or a.name for a in node.names)
    return names


def _root(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None
