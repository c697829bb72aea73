"""Alignment and provenance for python artifacts: the checker's evidence, tied to the step it was reached for.

The python checker (verify/code/pytest_checker.py) reads the step text, the question and the written examples
with the offline reader (verify/code/step_checks.py), runs every example and claim it can read against the
artifact in a process of their own, in the original run and in every mutant's, and records `evidence`:
EXAMPLES (what was checked, and whose: the question's, an independent writer's, the author's) or
AUTHOR_TESTS (the artifact author's tests alone, when they assert values; never enough for VERIFIED), or
none, when nothing counts (`computing.py`'s rules: a single or trivial case, an assertion-free or type-only
test, an example answered without computing): then the step is unsupported, with the checker's reason.
This aligner accepts the evidence after checking it against the step: it reads the same texts again and
requires every check the reader finds to be among those the checker ran (a verdict reached without the
step's context, or on other texts, is not this step's), and a step whose text the reader cannot place on
the artifact is unsupported.

The artifact must also run the step's code: every name the step's code blocks bind at their top level (a function,
a class, a lambda assigned to a name, an import, a constant) must be bound last, at the artifact's top level, by
the step's own statement (the same syntax tree), and nothing else in the
artifact may rebind those names in the module's scope (an assignment, a walrus, a loop target, `global`) or reach
around the module's definitions (`globals()`, `getattr`/`setattr`, `exec`, `eval`, `sys.modules`, a function's
`__code__`, a star import, importing `builtins`, `importlib`, `sys`, `inspect`, `ctypes`, `gc` or `types`).
Otherwise a chain could bring, beside a step whose code is wrong, an artifact holding other code that the
question's examples pass: the verdict would be about code the step never wrote.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from reasonforge.registry import checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    EvidenceKind,
    StepContext,
    StepStatus,
    StepTranslation,
)
from reasonforge.verify.code.nesting import too_deep
from reasonforge.verify.code.step_checks import plan_step_checks
from reasonforge.verify.code.step_text import code_blocks

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# what can reach a module's names (or a function's code) around its top-level definitions
_REACHING = frozenset({"globals", "vars", "locals", "getattr", "setattr", "delattr", "exec", "eval", "compile",
                       "__import__", "__builtins__", "modules", "__code__", "__defaults__", "__kwdefaults__",
                       "__globals__", "__dict__", "__closure__", "__wrapped__", "__setattr__", "__getattribute__"})
_REACHING_MODULES = frozenset({"builtins", "importlib", "sys", "inspect", "ctypes", "gc", "types"})

CODE_EVIDENCE = (EvidenceKind.EXAMPLES, EvidenceKind.AUTHOR_TESTS)


@checkers.aligner(ArtifactLanguage.PYTHON)
def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The outcome once tied to the step (or downgraded); evidence is recorded on a verified outcome."""
    if outcome.status is StepStatus.FAILED and (unwritten := _no_code_written(context)) is not None:
        # a refutation of code nobody in the chain wrote is a refutation of the artifact, not of the step
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, f"{outcome.message}; but {unwritten}")
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    evidence = outcome.evidence
    if evidence is None:  # the checker found nothing that counts (its message says why)
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE, outcome.message or (
            "the artifact is verified, but nothing the step, the question or its tests state is evidence"))
    if evidence.kind not in CODE_EVIDENCE:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE,
                         f"a python step's evidence must be examples or author tests, not {evidence.kind.value}")
    try:
        tree = ast.parse(translation.formal_representation or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE,
                         "the verified artifact does not parse: the verdict cannot be tied to it")
    replaced = _not_the_steps_code(context.content, tree, [context.original_query, *(a.content for a in context.ancestors)])
    if replaced is not None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, replaced)
    plan = plan_step_checks(context, tree)
    if plan.unaligned is not None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, plan.unaligned)
    ran = outcome.details.get("step_checks")
    ran_checks: set[str] = set()
    if isinstance(ran, dict):
        for key in ("examples", "claims"):
            if isinstance(ran.get(key), list):
                ran_checks.update(str(x) for x in ran[key])
    wanted = [e.describe() for e in plan.examples] + [c.describe() for c in plan.claims]
    missing = [w for w in wanted if w not in ran_checks]
    if missing:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED,
                         f"the step states checks the verdict did not run ({len(missing)}, e.g. {missing[0]})")
    return outcome.with_evidence(evidence)


def _no_code_written(context: StepContext) -> str | None:
    """Why no code the chain writes can be what an artifact for this step runs (None when some is written)."""
    texts = (context.content, context.original_query, *(a.content for a in context.ancestors))
    if any(_written(text)[1] for text in texts):
        return None
    return _UNWRITTEN


_UNWRITTEN = ("the step writes no code that parses, and neither do the question and the steps it rests on: the "
              "artifact's code cannot be tied to what the step says, so its verdict is not the step's")


def _not_the_steps_code(content: str, artifact: ast.Module, before: Sequence[str] = ()) -> str | None:
    """Why the artifact does not run the code the step writes (None when it does). A step that writes no code
    speaks of the code written `before` it (the question's, then its ancestors', a later definition replacing an
    earlier one): the artifact must run that. When none of them writes code that parses, nothing ties the
    artifact to the step: prose ("sort ascending and take index 1") says what code it means only as a reader
    would guess, and an artifact holding other code would be verified in its place."""
    written, stated = _written(content)
    if not stated:
        for text in before:
            more_written, more_stated = _written(text)
            written.update(more_written)
            stated |= more_stated
        if not stated:
            return _UNWRITTEN
    if not written:
        return None
    final = _final_bindings(artifact.body)
    for name, dumped in written.items():
        last = final.get(name)
        if last is None:
            return f"the artifact does not define {name}, which the step's code defines: it is not the step's code"
        if ast.dump(last) != dumped:
            return (f"the artifact's {name} (line {last.lineno}) is not the one the step's code defines: the "
                    "verdict would be about code the step never wrote")
    for node in artifact.body:
        if ast.dump(node) in stated:
            continue
        reached = _reaches(node, written.keys())
        if reached is not None:
            return (f"line {reached[0]} of the artifact {reached[1]}, outside the step's code: what runs may not be "
                    "what the step defines")
    return None


def _written(text: str) -> tuple[dict[str, str], set[str]]:
    """The names the text's code binds last at its top level (with their statements, dumped), and every
    top-level statement of that code: whatever it does is the text's."""
    written: dict[str, str] = {}
    stated: set[str] = set()
    for body in code_blocks(text):
        try:
            tree = ast.parse(body)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # a fragment: nothing of it can be placed
        if too_deep(tree) is not None:
            continue  # nested past what `ast.dump` can follow: no statement of it can be compared
        written.update((name, ast.dump(node)) for name, node in _final_bindings(tree.body).items())
        stated.update(ast.dump(node) for node in tree.body)
    return written, stated


def _reaches(node: ast.stmt, names: Iterable[str]) -> tuple[int, str] | None:
    """Where `node` could rebind one of `names` at import or reach around the module's definitions: (line, what)."""
    names = set(names)
    for inner in ast.walk(node):
        line = getattr(inner, "lineno", 0)
        if isinstance(inner, ast.Global | ast.Nonlocal) and names & set(inner.names):
            return line, f"declares {min(names & set(inner.names))} global"
        if isinstance(inner, ast.Import | ast.ImportFrom):
            modules = [inner.module or ""] if isinstance(inner, ast.ImportFrom) else [a.name for a in inner.names]
            if any(a.name == "*" for a in inner.names):
                return line, "imports * (it may bind any name)"
            if any(m.split(".")[0] in _REACHING_MODULES for m in modules):
                return line, f"imports {modules[0]}"
        word = inner.id if isinstance(inner, ast.Name) else inner.attr if isinstance(inner, ast.Attribute) else None
        if word in _REACHING:
            return line, f"uses {word}"
    for inner in _module_scope(node):
        if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load) and inner.id in names:
            return getattr(inner, "lineno", 0), f"rebinds {inner.id}"
    return None


def _module_scope(node: ast.AST) -> list[ast.AST]:
    """`node` and what it holds that runs in the module's scope: never a function's or a lambda's body (their
    decorators, defaults and annotations run at import, and are kept)."""
    out: list[ast.AST] = [node]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        held: list[ast.AST] = [*node.decorator_list, *node.args.defaults,
                               *(d for d in node.args.kw_defaults if d is not None)]
    elif isinstance(node, ast.Lambda):
        held = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    elif isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        held = [node.generators[0].iter]  # the rest binds in the comprehension's own scope
    else:
        held = list(ast.iter_child_nodes(node))
    for child in held:
        out += _module_scope(child)
    return out


def _final_bindings(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """Each name the module binds at import, with the last statement that binds it (a def, a class, an assignment
    of a lambda, an import, ...)."""
    final: dict[str, ast.stmt] = {}
    for node in _top_level(body):
        for name in _binds(node):
            final[name] = node
    return final


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run at import, in order: compound statements' bodies too, never a function's."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If | ast.For | ast.While | ast.With | ast.Try | ast.AsyncFor | ast.AsyncWith):
            for part in ("body", "orelse", "finalbody"):
                out += _top_level(getattr(node, part, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                out += _top_level(handler.body)
        elif isinstance(node, ast.Match):
            for case in node.cases:
                out += _top_level(case.body)
    return out


def _binds(node: ast.stmt) -> list[str]:
    """The module names `node` itself binds (not its nested statements': `_top_level` lists those)."""
    if isinstance(node, _DEFINITIONS):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        targets = [node.target]
    elif isinstance(node, ast.With | ast.AsyncWith):
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
