"""`MathTranslator`: the offline translator of mathematics chains into `sympy` artifacts (quick level).

Per step, the artifact (format: `verify/math/relations.py`) holds, in this order:
- givens from `original_query`: its bindings as `let`, its relations (stated with `=`, `<`, ...) as
  `fact`, its assumptions as `assume` (prose such as "legs 3 and 4" is not read);
- for each ancestor step in topological order: its bindings as `let`, its claims as `fact`, its
  assumptions as `assume` (an ancestor's claims are trusted here: if one is false, its own check fails
  and the cascade invalidates this step). An ancestor's cases ("if x = 2", "for n = 1") held for that
  step only: such a step passes on its bindings, not its claims or assumptions. A given or ancestor
  relation stated in other units than the step states the same names in (`3x = 1 hour`, then
  `3x = 60 minutes`) is restated exactly in the step's units (`fact 3*x = 1*60`) or left out;
- the step's own assumptions (`assume`), bindings and cases (`define`) and claims (`claim`), plus the
  claims of `claimed_conclusion` that the content does not already make;
- `assume v >= 0` for the step's unknowns when the query or the step speaks of a length, distance,
  hypotenuse, side, radius, area, age, "number of" or "how many" (such quantities are nonnegative);
- for a GSM8K answer line `#### N`: `claim <last computed value> ~= N` (or `100*(…) ~= N`, an answer in
  percent or cents), where the last computed value is the right side of the last equation of the step
  it directly depends on; an answer that matches neither is left unchecked (see `_answer_claim`).
A step with no claim and no binding gets an empty artifact (→ `unsupported`) whose notes quote it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.expr import ExpressionError, evaluate, to_text
from reasonforge.lang.math.text import (
    Relation,
    StepMath,
    extract,
    extract_value,
    restate,
)
from reasonforge.registry import Spec
from reasonforge.types import (
    ArtifactLanguage,
    ReasoningStep,
    StepTranslation,
    VerifyRequest,
)
from reasonforge.verify.math.relations import parse_artifact

__all__ = ["MathTranslator"]

TRANSLATOR_NAME = "math-rules"
TRANSLATOR_VERSION = "1.1"
_NONNEGATIVE = re.compile(
    r"\b(lengths?|distances?|hypotenuse|sides?|radius|radii|diameter|perimeter|area|heights?|width|ages?|"
    r"number\s+of|how\s+many)\b",
    re.IGNORECASE,
)
_ANSWER_LINE = re.compile(r"^\s*####\s*(.+?)\s*$")
_MAX_QUOTE = 60


def _quote(text: str, limit: int = _MAX_QUOTE) -> str:
    text = " ".join(text.split()).replace("#", "")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _read(step: ReasoningStep) -> StepMath:
    """The step's maths; every relation of claimed_conclusion is a claim (`z = 5` there is what the step
    concludes, not a case), added when the content does not already claim it."""
    math = extract(step.content)
    if not step.claimed_conclusion:
        return math
    extra = extract(step.claimed_conclusion)
    claimed = {r.text for r in math.claims}
    added = tuple(r for r in extra.relations if r.text not in claimed)
    return replace(math, claims=math.claims + added, notes=math.notes + extra.notes)


def _context_lines(math: StepMath, units: Mapping[str, str]) -> list[str]:
    """What a given or an ancestor step contributes: bindings as let, claims as fact, assumptions. A step
    that considers a case ("if x = 2", "for n = 1", "if K^2 = 1") may claim what holds in that case only,
    so it contributes its bindings alone. A relation stated in other units than the checked step uses for
    its names (`3x = 1 hour` before `3x = 60 minutes`) is restated in the step's units, or left out when
    that cannot be done exactly (see `restate`)."""
    hypothetical = bool(math.cases) or any(a.relation is not None and a.relation.op == "=" for a in math.assumptions)
    lines = [] if hypothetical else [f"assume {a.text}" for a in math.assumptions]
    for rel in math.relations:
        if rel not in math.bindings and (rel not in math.claims or hypothetical):
            continue
        keyword = "let" if rel in math.bindings else "fact"
        targets = {units[name] for name in rel.names if name in units}
        if rel.unit is None or not targets or targets == {rel.unit}:
            lines.append(f"{keyword} {rel.text}")
            continue
        restated = restate(rel, targets.pop()) if len(targets) == 1 else None
        if restated is not None:
            lines.append(f"{keyword} {restated.text}  # {rel.text} in {rel.unit}s, here in {restated.unit}s")
    return lines


def _units(math: StepMath) -> dict[str, str]:
    """The unit each name's quantities are stated in by this step's own relations (names given two units
    are left out)."""
    seen: dict[str, set[str]] = {}
    for rel in math.relations:
        if rel.unit:
            for name in rel.names:
                seen.setdefault(name, set()).add(rel.unit)
    return {name: next(iter(units)) for name, units in seen.items() if len(units) == 1}


def _own_lines(math: StepMath) -> list[str]:
    lines = [f"assume {a.text}" for a in math.assumptions]
    for rel in math.relations:
        keyword = "claim" if rel in math.claims else "define"
        lines.append(f"{keyword} {rel.text}  # \"{_quote(rel.source)}\"")
    return lines


def _last_value(steps: Sequence[int], readings: Mapping[int, StepMath]) -> tuple[int, Relation] | None:
    """The last equation of these steps (latest step first), for a final answer line."""
    for sid in reversed(steps):
        equations = [r for r in readings[sid].relations if r.op == "="]
        if equations:
            return sid, equations[-1]
    return None


def _answer_claim(answer: str, last: tuple[int, Relation] | None) -> tuple[str | None, str]:
    """The claim for a `#### N` answer line, or (None, why not).

    The answer is compared with the last computed value v, as GSM8K writes it: v itself, or v in percent
    or cents (100·v), each up to rounding to a whole number (`~=`). An answer that matches no reading is
    not evidence of an error (the answer may be a value computed earlier), so the line is left unchecked."""
    value = extract_value(answer)
    if value is None or last is None:
        return None, "it has no value, or the step before it computes none"
    sid, rel = last
    try:
        computed, stated = evaluate(rel.rhs_tree), evaluate(value)
    except ExpressionError as exc:
        return None, exc.message
    if computed.free_symbols:
        return None, f"the last computed value {to_text(rel.rhs_tree)} is not a number"
    source = f"# the final answer against the last computed value (step {sid}: {rel.text})"
    if abs(computed - stated) <= 1:
        return f"claim {to_text(rel.rhs_tree)} ~= {to_text(value)}  {source}", ""
    if abs(100 * computed - stated) <= 1:
        return f"claim 100*({to_text(rel.rhs_tree)}) ~= {to_text(value)}  {source}, in percent or cents", ""
    return None, f"{to_text(value)} is not the last computed value ({rel.text})"


class MathTranslator:
    """Mathematics-domain offline translator (see the module docstring)."""

    def __init__(self) -> None:
        self.spec = Spec(name=TRANSLATOR_NAME, version=TRANSLATOR_VERSION)

    def translate_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> list[StepTranslation]:
        """One `sympy` translation per step, in request order."""
        givens = extract(request.original_query) if request.original_query.strip() else StepMath()
        query_nonnegative = bool(_NONNEGATIVE.search(request.original_query))
        readings = {step.step_id: _read(step) for step in request.reasoning_chain}
        out = []
        for index, step in enumerate(request.reasoning_chain):
            if step.dependencies is not None:
                direct = list(step.dependencies)
            else:
                direct = [request.reasoning_chain[index - 1].step_id] if index else []
            before = list(ancestors.get(step.step_id, ()))
            out.append(self._translate_step(step, direct, before, readings, givens, query_nonnegative))
        return out

    def _translate_step(self, step: ReasoningStep, direct: list[int], before: list[int],
                        readings: Mapping[int, StepMath], givens: StepMath, query_nonnegative: bool) -> StepTranslation:
        own = readings[step.step_id]
        notes = list(own.notes)
        own_lines = _own_lines(own)
        answer = _ANSWER_LINE.match(step.content)
        if answer and own.empty:
            line, why = _answer_claim(answer.group(1), _last_value(direct, readings))
            if line:
                own_lines.append(line)
            else:
                notes.append(f"the answer line \"{_quote(step.content)}\" is not checked: {why}")
        if not any(line.startswith(("claim", "define")) for line in own_lines):
            reason = f"no checkable relation in \"{_quote(step.content, 160)}\""
            return StepTranslation(step_id=step.step_id, original_content=step.content, formal_representation="",
                                   language=ArtifactLanguage.SYMPY, dependencies=direct, translation_confidence=0.0,
                                   notes="; ".join([reason, *notes]))
        lines: list[str] = []
        units = _units(own)
        if not givens.empty or givens.assumptions:
            lines += ["# givens (from the query)", *_context_lines(givens, units)]
        for sid in before:
            context = _context_lines(readings[sid], units)
            if context:
                lines += [f"# step {sid}", *context]
        lines.append(f"# step {step.step_id} (checked)")
        if query_nonnegative or _NONNEGATIVE.search(step.content):
            lines += self._nonnegative(own, lines)
        lines += own_lines
        artifact = "\n".join(lines) + "\n"
        try:
            parse_artifact(artifact)
            compiles = True
        except ArtifactSyntaxError as exc:
            compiles = False
            notes.append(f"the artifact does not parse ({exc.message}): a translator bug")
        return StepTranslation(step_id=step.step_id, original_content=step.content, formal_representation=artifact,
                               language=ArtifactLanguage.SYMPY, dependencies=direct,
                               translation_confidence=1.0 if not notes else 0.5, compilation_check=compiles,
                               notes="; ".join(notes) or None)

    @staticmethod
    def _nonnegative(own: StepMath, context: Sequence[str]) -> list[str]:
        """`assume v >= 0` for the unknowns of the step's claims (lengths, counts: nonnegative quantities)."""
        bound = {r.bound_name for r in own.bindings}
        bound |= {line.split()[1] for line in context if line.startswith("let ")}
        names = sorted(set().union(*(r.names for r in own.claims)) - bound) if own.claims else []
        return [f"assume {name} >= 0  # a length or count" for name in names
                if f"assume {name} >= 0" not in context]
