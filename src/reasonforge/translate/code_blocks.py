"""The offline translator for code chains: fenced Python blocks and doctest examples → one test module.

Per step, the artifact (language `python`) is: the code of its ancestor steps (in dependency order),
then the step's own fenced ```python blocks, then one test per doctest example block found in the
text of the step and of its ancestors (outside fenced blocks) or in the docstrings of the functions
they define:

    >>> count_frequencies([1, 2, 2, 3])
    {1: 1, 2: 2, 3: 1}

becomes `def test_step1_example_1(): assert count_frequencies([1, 2, 2, 3]) == {1: 1, 2: 2, 3: 1}`.
Examples are read as doctest reads them (`step_text.doctest_blocks`: SKIP, `<BLANKLINE>`, the text's `optionflags`).
An expected output that is not a Python literal `==` compares as doctest compares its repr (an object's repr, what
`print` shows, an output a doctest option loosens or `...` elides) is not compared by its text: the line runs as a
statement, unread (the checker's own run of the examples compares printed text itself). An expected traceback
becomes a check that the line raises an exception of that name. `>>>` lines without an output line are kept as
statements. These tests are the author's (its step's examples):
they never make a chain VERIFIED. The examples are read by `verify/code/step_text.py`, the reader the checker
also uses: the checker runs the step text's examples against whatever artifact the step carries, so a
supplied artifact cannot leave them out. A complexity claim in the step's prose (`O(n)`, `O(n log n)`, …) becomes a
`# complexity: <function> O(...)` comment for the last function defined so far (see
`verify/code/complexity.py`). A step with no code of its own, no example and no claim gets an empty artifact
(→ `unsupported`), since nothing in it can be checked.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reasonforge.registry import Spec
from reasonforge.types import ArtifactLanguage, StepTranslation, VerifyRequest
from reasonforge.verify.code.complexity import parse_big_o
from reasonforge.verify.code.step_text import (
    FENCE,
    PY_TAGS,
    TRACEBACK,
    doctest_blocks,
    elides,
    loosened_by,
    raised_name,
)

__all__ = ["CodeBlockTranslator", "StepCode", "extract_step"]

TRANSLATOR_VERSION = "1.1.0"


@dataclass
class StepCode:
    """What one step contributes: code, doctest example blocks, and a complexity claim."""

    code: list[str] = field(default_factory=list)
    examples: list[list[tuple[str, str | None]]] = field(default_factory=list)  # blocks of (source, expected)
    claim: str | None = None
    functions: list[str] = field(default_factory=list)


def extract_step(text: str) -> StepCode:
    """Split a step's text into its fenced Python code, doctest examples and complexity claim."""
    out = StepCode()
    prose_parts: list[str] = []
    last = 0
    for m in FENCE.finditer(text):
        prose_parts.append(text[last:m.start()])
        last = m.end()
        tag, body = m.group(1).lower(), m.group(2)
        if tag not in PY_TAGS:
            continue
        if body.lstrip().startswith(">>>"):
            out.examples.extend(doctest_blocks(body))
            continue
        out.code.append(body.rstrip() + "\n")
        try:
            tree = ast.parse(body)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if not node.name.startswith(("test", "Test")):
                    out.functions.append(node.name)
                doc = ast.get_docstring(node) or ""
                out.examples.extend(doctest_blocks(doc))
    prose_parts.append(text[last:])
    prose = "\n".join(prose_parts)
    out.examples.extend(doctest_blocks(prose))
    claim = parse_big_o(prose)
    out.claim = claim.text if claim else None
    return out


def _example_test(name: str, block: list[tuple[str, str | None]]) -> str:
    body: list[str] = []
    for source, expected in block:
        if expected is None:
            body.extend(source.splitlines())
            continue
        if expected.startswith(TRACEBACK):
            body.extend(_raises(source, raised_name(expected)))
            continue
        if _compared(source, expected):
            # a comment in the source (a doctest directive) must not swallow the closing parenthesis
            end = "\n" if "#" in source else ""
            body.append(f"assert ({source}{end}) == ({expected}), {source!r} + ' should give ' + {expected!r}")
        else:
            body.append(f"# output {expected[:60]!r} is not a literal: unread, not compared by its text")
            body.extend(source.splitlines())
    return f"def {name}():\n" + "".join(f"    {line}\n" for line in body)


def _compared(source: str, expected: str) -> bool:
    """Whether an example's output is a value `==` compares as doctest would compare its repr: a literal, not
    what `print` shows, not loosened by a doctest option (`loosened_by`), not elided with `...`."""
    try:
        ast.literal_eval(expected)
        tree = ast.parse(source, mode="eval")
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    printed = isinstance(tree.body, ast.Call) and isinstance(tree.body.func, ast.Name) and tree.body.func.id == "print"
    return not printed and loosened_by(source, expected) is None and not elides(expected)


def _raises(source: str, name: str | None) -> list[str]:
    """An example whose output is a traceback, as doctest runs it: it must raise an exception of that name (its
    type's name only, as the checker compares it); one whose name cannot be read runs unread."""
    lines = ["try:", *(f"    {line}" for line in source.splitlines())]
    if name is None:
        return ["# the traceback's exception cannot be read: unread, not compared", *lines,
                "except BaseException:", "    pass"]
    return [*lines, "except BaseException as exc:",
            f"    assert type(exc).__name__ == {name!r}, {source!r} + ' should raise {name}, not ' + type(exc).__name__",
            "else:", f"    raise AssertionError({source!r} + ' should raise {name}')"]


class CodeBlockTranslator:
    """Code-domain offline translator (see module docstring)."""

    def __init__(self) -> None:
        self.spec = Spec(name="code_blocks", version=TRANSLATOR_VERSION)

    def translate_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> list[StepTranslation]:
        parts = {step.step_id: extract_step(step.content) for step in request.reasoning_chain}
        out = []
        for step in request.reasoning_chain:
            sid = step.step_id
            own = parts[sid]
            deps = list(ancestors.get(sid, []))
            if not (own.code or own.examples or own.claim):
                out.append(StepTranslation(
                    step_id=sid, original_content=step.content, language=ArtifactLanguage.PYTHON,
                    dependencies=deps, translation_confidence=0.0,
                    notes="the step holds no ```python block, no `>>>` example and no complexity claim to check"))
                continue
            chunks: list[str] = []
            functions: list[str] = []
            for dep in deps:
                if parts.get(dep) and parts[dep].code:
                    chunks.append(f"# --- from step {dep}\n" + "\n".join(parts[dep].code))
                    functions.extend(parts[dep].functions)
            if own.code:
                chunks.append(f"# --- step {sid}\n" + "\n".join(own.code))
            functions.extend(own.functions)
            if own.claim and functions:
                chunks.append(f"# complexity: {functions[-1]} {own.claim}\n")
            for owner in [*deps, sid]:
                for k, block in enumerate(parts[owner].examples if owner in parts else [], start=1):
                    chunks.append(_example_test(f"test_step{owner}_example_{k}", block))
            artifact = "\n\n".join(c.rstrip() + "\n" for c in chunks)
            notes = None
            confidence = 1.0
            try:
                ast.parse(artifact)
            except SyntaxError as exc:
                notes = f"the assembled module does not parse (line {exc.lineno}): {exc.msg}"
                confidence = 0.5
            if own.claim and not functions:
                notes = f"the claim {own.claim} names no function defined in this step or its ancestors"
            out.append(StepTranslation(
                step_id=sid, original_content=step.content, formal_representation=artifact,
                language=ArtifactLanguage.PYTHON, dependencies=deps, translation_confidence=confidence,
                compilation_check=notes is None, notes=notes))
        return out
