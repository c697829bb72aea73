"""The offline translator for code chains: fenced Python blocks and doctest examples → one test module.

Per step, the artifact (language `python`) is: the code of its ancestor steps (in dependency order),
then the step's own fenced ```python blocks, then one test per doctest example block found in the
text of the step and of its ancestors (outside fenced blocks) or in the docstrings of the functions
they define:

    >>> count_frequencies([1, 2, 2, 3])
    {1: 1, 2: 2, 3: 1}

becomes `def test_step1_example_1(): assert count_frequencies([1, 2, 2, 3]) == {1: 1, 2: 2, 3: 1}`
(expected output that is not a Python literal is compared with `repr`). `>>>` lines without an output
line are kept as statements. A complexity claim in the step's prose (`O(n)`, `O(n log n)`, …) becomes a
`# complexity: <function> O(...)` comment for the last function defined so far (see
`verify/code/complexity.py`). A step with no code of its own, no example and no claim gets an empty artifact
(→ `unsupported`), since nothing in it can be checked.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reasonforge.registry import Spec
from reasonforge.types import ArtifactLanguage, StepTranslation, VerifyRequest
from reasonforge.verify.code.complexity import parse_big_o

__all__ = ["CodeBlockTranslator", "StepCode", "extract_step"]

TRANSLATOR_VERSION = "1.0.0"
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_PY_TAGS = {"", "python", "py", "python3", "pycon", "doctest"}


@dataclass
class StepCode:
    """What one step contributes: code, doctest example blocks, and a complexity claim."""

    code: list[str] = field(default_factory=list)
    examples: list[list[tuple[str, str | None]]] = field(default_factory=list)  # blocks of (source, expected)
    claim: str | None = None
    functions: list[str] = field(default_factory=list)


def _doctest_blocks(text: str) -> list[list[tuple[str, str | None]]]:
    """Doctest examples: runs of `>>>` lines (with `...` continuations) and their expected output."""
    blocks: list[list[tuple[str, str | None]]] = []
    current: list[tuple[str, str | None]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith(">>>"):
            source = [stripped[3:].strip()]
            i += 1
            while i < len(lines) and lines[i].strip().startswith("..."):
                source.append(lines[i].strip()[3:].lstrip(" "))
                i += 1
            expected: list[str] = []
            while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
                if lines[i].strip().startswith("```"):
                    break
                expected.append(lines[i].strip())
                i += 1
            current.append(("\n".join(source), " ".join(expected) if expected else None))
            continue
        if not stripped and current:
            # a blank line ends an example block only if no >>> follows immediately
            nxt = next((ln.strip() for ln in lines[i + 1:] if ln.strip()), "")
            if not nxt.startswith(">>>"):
                blocks.append(current)
                current = []
        i += 1
    if current:
        blocks.append(current)
    return blocks


def extract_step(text: str) -> StepCode:
    """Split a step's text into its fenced Python code, doctest examples and complexity claim."""
    out = StepCode()
    prose_parts: list[str] = []
    last = 0
    for m in _FENCE.finditer(text):
        prose_parts.append(text[last:m.start()])
        last = m.end()
        tag, body = m.group(1).lower(), m.group(2)
        if tag not in _PY_TAGS:
            continue
        if body.lstrip().startswith(">>>"):
            out.examples.extend(_doctest_blocks(body))
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
                out.examples.extend(_doctest_blocks(doc))
    prose_parts.append(text[last:])
    prose = "\n".join(prose_parts)
    out.examples.extend(_doctest_blocks(prose))
    claim = parse_big_o(prose)
    out.claim = claim.text if claim else None
    return out


def _example_test(name: str, block: list[tuple[str, str | None]]) -> str:
    body: list[str] = []
    for source, expected in block:
        if expected is None:
            body.extend(source.splitlines())
            continue
        try:
            ast.parse(expected, mode="eval")
            literal = True
        except SyntaxError:
            literal = False
        if literal:
            body.append(f"assert ({source}) == ({expected}), {source!r} + ' should give ' + {expected!r}")
        else:
            body.append(f"assert repr({source}) == {expected!r}, {source!r} + ' should print ' + {expected!r}")
    return f"def {name}():\n" + "".join(f"    {line}\n" for line in body)


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
