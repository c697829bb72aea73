"""Import lint: every `reasonforge.*` import goes from a room to a room it may import (DESIGN.md §2).

A room is a top-level module or package of src/reasonforge (`verify/`, `types.py`); `cli.py`, the
package's own `__init__.py` and `__main__.py` (`python -m reasonforge`) form the room `cli`. Every import is checked, at module level or inside a
function, `import x` or `from x import y` (`from reasonforge import sdk` imports the room `sdk`; a name
that is not a submodule, `from reasonforge import verify_chain`, imports the top package, room `cli`).
Inside a room anything goes, except in the rooms of SIBLINGS: there a subpackage (`verify/coq/`) may
import among its sibling subpackages only the ones listed, and never the room's face (its `__init__`,
which imports every sibling). Imports by string (`importlib.import_module`, the registry's plug-ins) are
not seen.

    python scripts/check_imports.py [--root src/reasonforge]

prints one line per violation, `file:line room → room not allowed`, and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Room → the rooms it may import (besides itself). Mirrors DESIGN.md §2; change both together.
RULES: dict[str, tuple[str, ...]] = {
    "types": ("boundary",),
    "errors": (),
    "boundary": ("errors",),
    "lazy": (),
    "atomic_file": (),
    "cli_errors": ("errors", "boundary"),
    "cli_progress": (),
    "registry": ("types", "errors"),
    "chain": ("types", "errors", "boundary"),
    "lang": ("errors",),
    "verify": ("types", "errors", "registry", "chain", "lang"),
    "translate": ("types", "errors", "boundary", "registry", "atomic_file", "chain", "lang", "verify"),
    "pipeline": ("types", "errors", "boundary", "registry", "atomic_file", "chain", "lang", "verify", "translate"),
    "consensus": ("types", "errors", "chain"),
    "rewards": ("types", "errors", "lazy", "chain", "lang", "verify", "translate", "pipeline"),
    "incentive": ("errors",),
    "certificate": ("types", "errors", "boundary", "cli_errors", "chain"),
    "forecast": ("types", "errors", "boundary", "lazy", "atomic_file", "cli_errors", "verify", "certificate"),
    "report": ("types", "errors", "boundary", "chain", "certificate"),
    "bench": ("types", "errors", "boundary", "registry", "chain", "lang", "verify", "translate", "pipeline", "lazy",
              "cli_errors"),
    "subnet": ("types", "errors", "boundary", "registry", "lazy", "atomic_file", "cli_errors", "chain", "lang",
               "verify", "translate", "pipeline", "consensus", "bench", "forecast", "incentive", "certificate"),
    "service": ("types", "errors", "boundary", "registry", "lazy", "atomic_file", "cli_errors", "chain", "lang",
                "verify", "translate", "pipeline", "consensus", "bench", "forecast", "incentive", "certificate", "report"),
    "sdk": ("types", "errors", "boundary", "chain"),
    "config_file": ("errors", "boundary", "service"),
    "cli": ("types", "errors", "boundary", "registry", "lazy", "atomic_file", "cli_errors", "chain", "lang",
            "verify", "translate", "pipeline", "consensus", "bench", "forecast", "incentive", "certificate", "subnet",
            "service", "sdk", "report", "config_file", "cli_progress", "rewards"),
}

# Room → the subpackages its subpackages may import among their siblings: checkers share only the sandbox.
SIBLINGS: dict[str, tuple[str, ...]] = {
    "verify": ("sandbox",),
}

PACKAGE = "reasonforge"
TOP_ROOM = "cli"  # reasonforge/__init__.py and reasonforge/cli.py
DEFAULT_ROOT = Path(__file__).resolve().parent.parent / "src" / PACKAGE


@dataclass(frozen=True)
class Place:
    """Where a module sits: its room and, inside a room with SIBLINGS rules, its subpackage ("" if none)."""

    room: str
    sub: str = ""

    def __str__(self) -> str:
        return f"{self.room}.{self.sub}" if self.sub else self.room


@dataclass(frozen=True)
class Violation:
    """One import a room may not make (no target: the file itself breaks the table)."""

    file: str
    line: int
    source: Place | None
    target: Place | None
    why: str = "not allowed"

    def __str__(self) -> str:
        arrow = f"{self.source} → {self.target} " if self.source and self.target else ""
        return f"{self.file}:{self.line} {arrow}{self.why}"


def place_of(parts: tuple[str, ...], root: Path) -> Place:
    """The place of module `reasonforge.<parts>` (a module that does not exist is named by its first part)."""
    if not parts or parts[0] in ("__init__", "__main__", "cli"):
        return Place(TOP_ROOM)
    room = parts[0]
    sub = parts[1] if room in SIBLINGS and len(parts) > 1 and (root / room / parts[1]).is_dir() else ""
    return Place(room, sub)


def module_parts(path: Path, root: Path) -> tuple[str, ...]:
    """`verify/coq/checker.py` → ("verify", "coq", "checker"); a package's `__init__` is the package."""
    parts = path.relative_to(root).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts


def _is_module(parts: tuple[str, ...], root: Path) -> bool:
    base = root.joinpath(*parts)
    return base.is_dir() or base.with_suffix(".py").is_file()


def imported_modules(tree: ast.AST, here: tuple[str, ...], is_package: bool,
                     root: Path) -> Iterator[tuple[int, tuple[str, ...]]]:
    """(line, parts after `reasonforge`) for every import of ours in `tree`; `here` is the importing module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                dotted = alias.name.split(".")
                if dotted[0] == PACKAGE:
                    yield node.lineno, tuple(dotted[1:])
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing module's package
                package = here if is_package else here[:-1]
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                module = (*base, *(node.module.split(".") if node.module else ()))
            elif node.module and node.module.split(".")[0] == PACKAGE:
                module = tuple(node.module.split(".")[1:])
            else:
                continue
            for alias in node.names:
                # `from reasonforge.verify import sandbox` imports the subpackage, not only the face
                sub = (*module, alias.name)
                yield node.lineno, sub if alias.name != "*" and _is_module(sub, root) else module


def check_file(path: Path, root: Path) -> list[Violation]:
    """The violations in one module of the tree under `root`."""
    shown = path.relative_to(root.parent.parent) if root.parent.parent in path.parents else path
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        return [Violation(str(shown), exc.lineno or 0, None, None, f"syntax error: {exc.msg}")]
    here = module_parts(path, root)
    source = place_of(here, root)
    if source.room not in RULES:
        return [Violation(str(shown), 1, source, None, f"room {source.room} is missing from the rule table")]
    violations = []
    for line, parts in imported_modules(tree, here, path.name == "__init__.py", root):
        target = place_of(parts, root)
        if target.room == source.room:
            if source.sub and target.sub != source.sub and target.sub not in SIBLINGS[source.room]:
                why = "(the face imports every sibling) not allowed" if not target.sub else "not allowed"
                violations.append(Violation(str(shown), line, source, target, why))
        elif target.room not in RULES:
            violations.append(Violation(str(shown), line, source, target, "not allowed (no such room)"))
        elif target.room not in RULES[source.room]:
            violations.append(Violation(str(shown), line, source, target))
    return sorted(violations, key=lambda v: v.line)  # ast.walk reaches nested imports after top-level ones


def check_tree(root: Path) -> list[Violation]:
    """Every violation under the package directory `root`, in file and line order."""
    found: list[Violation] = []
    for path in sorted(root.rglob("*.py")):
        found.extend(check_file(path, root))
    return found


def main(argv: list[str] | None = None) -> int:
    """Check the tree; 0 when every import is allowed, 1 otherwise."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="the reasonforge package directory")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if not (root / "__init__.py").is_file():
        print(f"{root}: not a package directory", file=sys.stderr)
        return 2
    violations = check_tree(root)
    for violation in violations:
        print(violation)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
