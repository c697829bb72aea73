"""A word problem's steps checked against independent formalisations of its question (DESIGN §3.3).

A word-problem step such as "She sells 16 - 3 - 4 = 9 eggs" is verified on its arithmetic only (evidence
`relations`): that the 9 is the eggs she sells is prose no relation states, so its chain stays PARTIAL. Here a
translator that never sees the chain formalises the question twice over (`translate.question`): as programs, each
read and evaluated exactly (`verify.math.programs`: no execution), and as problem models, equations stating the
problem as told, each decided by Z3 (`verify.math.problem_model`: satisfiable, the answer forced, rational). In
both, every literal must be a quantity the question states or a named constant of its units. The answer counts
when at least `required` problem models force the same value and the programs compute that value more often than
any other: the SatLM check (the solver, not the writer, derives the answer) and a program of thought must meet.
The quantities a step is checked against are the values the agreeing problem models force (each entailed by
the equations: asserting any other value is unsatisfiable) and the agreeing programs compute.

Then, and only when that answer is the chain's (its claimed answer, else its final value), each step verified on
its arithmetic whose every result is one of those quantities becomes `corroborated` (types.EvidenceKind.
CORROBORATED; formaliser `question_model`), and so does a step that states no relation, only numbers, each a
quantity the question states or the formalisations reach, counting what it counts there ("Tony picks 6 quarts,
Bobby 5 quarts", a restatement the reader had no relation to check in). A number the step's prose states besides
(neither a relation's value, such a quantity, nor one the question states) or a negation in it keeps the step as
it was: the quantities are corroborated, not whatever else the prose claims. A chain whose every step is proven or
corroborated is VERIFIED with assurance `corroborated`. Nothing is refuted here: formalisations that disagree
with the chain leave it as it was (a small model's formalisation may be the wrong one), and the comparison is
noted on its last step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.expr import ExpressionError, Node, evaluate, rounding_tolerance, to_text
from reasonforge.lang.math.quantities import Quantity, grounding_values, relation_values, stated_quantities
from reasonforge.translate.question import QuestionPrograms
from reasonforge.types import (
    ErrorKind,
    Evidence,
    EvidenceKind,
    Formaliser,
    QuestionModel,
    ReasoningStep,
    StepContext,
    StepStatus,
    StepVerdict,
    Supplier,
)
from reasonforge.verify.math import chain_answer, is_word_problem, read_step, step_results
from reasonforge.verify.math.problem_model import Unforced, read_problem_model
from reasonforge.verify.math.programs import read_program

__all__ = ["QUESTION_MODEL_KEY", "corroborate", "question_model"]

QUESTION_MODEL_KEY = "question_model"
_SHOWN = 1_000  # characters of each formalisation kept on the chain's last step, for the page


def question_model(question: str, written: QuestionPrograms, *, timeout_s: float = 2.0) -> QuestionModel:
    """The formalisations of `question` read, evaluated and decided, and the answer they agree on: the value at
    least `required` problem models force (Z3, `timeout_s` each) and the programs compute most often."""
    grounding = grounding_values(stated_quantities(question), [question])
    rejected: list[str] = []
    programs: list[tuple[sympy.Expr, dict[sympy.Expr, str]]] = []
    for i, text in enumerate(written.programs, 1):
        try:
            program = read_program(text, grounding) if text.strip() else None
        except ArtifactSyntaxError as exc:
            rejected.append(f"program {i}: {exc.message}")
            continue
        if program is None:
            rejected.append(f"program {i}: the reply carried no program")
        else:
            programs.append((program.answer, program.quantities()))
    models: list[tuple[sympy.Expr, dict[sympy.Expr, str]]] = []
    for i, text in enumerate(written.problem_models, 1):
        try:
            decided = read_problem_model(text, grounding, timeout_s=timeout_s) if text.strip() else None
        except (ArtifactSyntaxError, Unforced) as exc:
            rejected.append(f"problem model {i}: {exc.message}")
            continue
        if decided is None:
            rejected.append(f"problem model {i}: the reply carried no equations")
        else:
            models.append((decided.answer, decided.quantities()))
    model = QuestionModel(samples=len(written.programs), required=written.required, programs=written.programs,
                          problem_models=written.problem_models, rejected=rejected, formaliser=written.formaliser)
    program_votes, model_votes = _votes(programs), _votes(models)
    top = program_votes[0] if program_votes else None
    plural = top is not None and (len(program_votes) == 1 or len(program_votes[1][1]) < len(top[1]))
    forced = model_votes[0] if model_votes else None
    model = model.model_copy(update={
        "agreeing": len(top[1]) if top else 0, "problem_agreeing": len(forced[1]) if forced else 0,
        "program_answer": str(top[0]) if top and plural else None,
        "problem_answer": str(forced[0]) if forced and len(forced[1]) >= written.required else None})
    if top is None or forced is None or not plural or len(forced[1]) < written.required \
            or not _equal(top[0], forced[0]):
        return model
    quantities: dict[str, str] = {}
    for computed in (*forced[1], *top[1]):
        for value, name in computed.items():
            quantities.setdefault(str(value), name)
    return model.model_copy(update={"answer": str(forced[0]), "quantities": quantities})


def _votes(read: list[tuple[sympy.Expr, dict[sympy.Expr, str]]]) -> list[tuple[sympy.Expr, list[dict[sympy.Expr, str]]]]:
    """The answers `read` reach, each with the quantities of every formalisation reaching it, most reached first."""
    votes: list[tuple[sympy.Expr, list[dict[sympy.Expr, str]]]] = []
    for answer, quantities in read:
        for value, agreeing in votes:
            if _equal(value, answer):
                agreeing.append(quantities)
                break
        else:
            votes.append((answer, [quantities]))
    return sorted(votes, key=lambda vote: -len(vote[1]))


def corroborate(contexts: Mapping[int, StepContext], verdicts: Mapping[int, StepVerdict],
                model: QuestionModel) -> dict[int, StepVerdict]:
    """`verdicts` with each arithmetic-only step whose results the formalisations compute marked corroborated,
    when the formalisations' answer is the chain's (see the module docstring)."""
    out = dict(verdicts)
    last = next((sid for sid, c in contexts.items() if c.final), None)
    if last is None or last not in out or not is_word_problem(contexts[last].original_query):
        return out
    summary = _summary(model)
    answer = chain_answer(contexts[last])
    agreed = sympy.sympify(model.answer) if model.answer is not None else None
    if agreed is None or answer is None or not _matches(agreed, answer):
        summary["agrees"] = False
        if agreed is not None:
            shown = to_text(answer) if answer is not None else "none read"
            summary["note"] = f"the formalisations' answer {model.answer} is not the chain's ({shown})"
        else:
            summary["note"] = _no_answer(model)
        out[last] = _noted(out[last], summary)
        return out
    summary["agrees"] = True
    # the values are sympy's own printing of exact values (`question_model`), so they read back exactly
    quantities = {sympy.sympify(value): name for value, name in model.quantities.items()}
    question = contexts[last].original_query
    stated = stated_quantities(question)
    told = frozenset(q.value for q in stated)  # as stated: a unit constant is no claim
    agreed_by = (f"{model.problem_agreeing} of {len(model.problem_models)} problem models (Z3: the answer is forced) "
                 f"and {model.agreeing} of {len(model.programs)} programs, formalisations of the question written "
                 f"without the chain, whose answer {model.answer} is the chain's")
    for sid, verdict in verdicts.items():
        context = contexts[sid]
        if verdict.status is StepStatus.UNSUPPORTED and verdict.error_kind == ErrorKind.UNTRANSLATABLE:
            restated = _restated(context, quantities, stated, agreed if context.final else None)
            if restated:
                out[sid] = _promoted(verdict, Evidence(
                    kind=EvidenceKind.CORROBORATED, aligned_claim=", ".join(restated),
                    formaliser=Formaliser.QUESTION_MODEL, supplied_by=Supplier.INDEPENDENT,
                    note=f"corroborated: the step states no relation, and every number it states ({', '.join(restated)}) "
                         f"is a quantity the question states or {agreed_by} compute"))
            continue
        evidence = verdict.evidence
        if not verdict.verified or evidence is None or evidence.kind != EvidenceKind.RELATIONS:
            continue
        results = step_results(context)
        names = [_named(quantities, r) for r in results]
        if not results or None in names or _unaccounted(context, quantities, told):
            continue
        shown = ", ".join(f"{to_text(r)} is {n}" for r, n in zip(results, names, strict=True))
        out[sid] = _promoted(verdict, Evidence(
            kind=EvidenceKind.CORROBORATED, aligned_claim=evidence.aligned_claim, formaliser=Formaliser.QUESTION_MODEL,
            supplied_by=Supplier.INDEPENDENT, note=f"corroborated: {shown} in {agreed_by}; the arithmetic was proven"))
    out[last] = _noted(out[last], summary)
    return out


_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|without)\b|n[’']t\b", re.IGNORECASE)


def _unaccounted(context: StepContext, quantities: Mapping[sympy.Expr, str], told: frozenset[sympy.Rational]
                 ) -> str | None:
    """What in the step's prose the formalisations do not account for: a number that is neither one of its
    relations' values, a quantity they compute nor one the question states ("She sells 9 eggs and keeps 100"),
    or a negation ("she does not sell them"), which would turn the corroborated quantity into another claim."""
    stated = {v for rel in read_step(ReasoningStep(step_id=context.step_id, content=context.content)).relations
              for v in relation_values(rel)}
    for q in stated_quantities(context.content):
        if q.value not in stated and q.value not in told and not any(_equal(q.value, v) for v in quantities):
            return q.text
    negation = _NEGATION.search(context.content)
    return negation.group(0) if negation else None


def _restated(context: StepContext, quantities: Mapping[sympy.Expr, str], told: Sequence[Quantity],
              answer: sympy.Expr | None) -> list[str]:
    """The numbers a step with no relation states ("Tony picks 6 quarts", "Tony: 6, Bobby: 5"), when each is a
    quantity the question states or the formalisations compute, *counting what it counts there* (a word of what
    the step says it counts is a word of the question's phrase for it, or of a formalisation's name for it:
    "She sells 3 eggs" when the question's 3 is "three for breakfast" is another claim), and the step negates
    nothing; [] otherwise (also for a step with no number: words alone are not corroborated by any quantity).
    The last step (`answer` given) must state the answer, which needs no other match: "So she makes $9" after a
    chain whose answer is 18 states another quantity as the answer."""
    math = read_step(ReasoningStep(step_id=context.step_id, content=context.content,
                                   claimed_conclusion=context.claimed_conclusion))
    if math.relations or math.unread or _NEGATION.search(context.content):
        return []
    stated = stated_quantities(context.content) + stated_quantities(context.claimed_conclusion or "")
    if not stated:
        return []
    for q in stated:
        if answer is not None and _equal(q.value, answer):
            continue
        phrases = [t.counts for t in told if _equal(t.value, q.value)]
        phrases += [name.replace("_", " ") for v, name in quantities.items() if _equal(q.value, v)]
        if not any(_words(q.counts) & _words(p) for p in phrases):
            return []
    if answer is not None and not any(_equal(q.value, answer) for q in stated):
        return []
    return [q.text for q in stated]


_STOP = frozenset(("the", "per", "for", "and", "each", "every", "her", "his", "their", "its", "are", "was", "were"))


def _words(phrase: str) -> set[str]:
    """The content words of a phrase, singular (`quarts of strawberries` → quart, strawberry)."""
    out = set()
    for w in re.findall(r"[a-z]{3,}", phrase.lower()):
        if w not in _STOP:
            out.add(w[:-3] + "y" if w.endswith("ies") else w[:-1] if w.endswith("s") and not w.endswith("ss") else w)
    return out


def _no_answer(model: QuestionModel) -> str:
    """Why the formalisations agree on no answer."""
    if not model.problem_models:
        return "no problem model was written, so no answer is forced"
    if model.problem_answer is None:
        return (f"{model.problem_agreeing} of {len(model.problem_models)} problem models force one answer; "
                f"{model.required} must")
    if model.program_answer is None:
        return "the programs compute no one answer more often than any other"
    return (f"the problem models force {model.problem_answer}, but the programs compute {model.program_answer} "
            "most often")


def _summary(model: QuestionModel) -> dict[str, object]:
    return {"samples": model.samples, "required": model.required, "agreeing": model.agreeing,
            "problem_agreeing": model.problem_agreeing, "answer": model.answer,
            "problem_answer": model.problem_answer, "program_answer": model.program_answer,
            "rejected": model.rejected[:6], "problem_models": [m[:_SHOWN] for m in model.problem_models],
            "programs": [p[:_SHOWN] for p in model.programs],
            "formaliser": model.formaliser.name if model.formaliser is not None else None}


def _named(quantities: Mapping[sympy.Expr, str], result: Node) -> str | None:
    """The name a formalisation gives the step's `result`, or None when none computes it."""
    for value, name in quantities.items():
        if _matches(value, result):
            return name
    return None


def _matches(value: sympy.Expr, written: Node) -> bool:
    """Is the value the chain writes `value`: exactly, or within the rounding of its written decimals?"""
    try:
        gap = value - evaluate(written)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return False
    if gap == 0:
        return True
    tolerance = rounding_tolerance(written)
    try:
        return tolerance is not None and bool(abs(sympy.N(gap, 30)) <= tolerance)
    except (TypeError, ValueError):
        return False


def _equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    try:
        return bool(sympy.simplify(a - b) == 0)
    except (TypeError, ValueError):
        return False


def _promoted(verdict: StepVerdict, evidence: Evidence) -> StepVerdict:
    """`verdict` verified on `evidence` (a restatement was unsupported only for want of a relation to check)."""
    details = dict(verdict.details)
    if verdict.status is not StepStatus.VERIFIED:
        details["checker_status"] = verdict.status.value
    return verdict.model_copy(update={"verified": True, "status": StepStatus.VERIFIED, "error_message": None,
                                      "error_kind": None, "evidence": evidence, "details": details})


def _noted(verdict: StepVerdict, summary: dict[str, object]) -> StepVerdict:
    return verdict.model_copy(update={"details": {**verdict.details, QUESTION_MODEL_KEY: summary}})
