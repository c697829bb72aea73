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
from dataclasses import dataclass

import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.expr import (
    Binary,
    ExpressionError,
    Name,
    Node,
    evaluate,
    has_percent,
    rounding_tolerance,
    to_text,
)
from reasonforge.lang.math.quantities import Quantity, grounding_values, stated_quantities
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
from reasonforge.verify.math import chain_answer, is_word_problem, read_step, step_claims, step_results
from reasonforge.verify.math.problem_model import ProblemModel, Unforced, read_problem_model
from reasonforge.verify.math.programs import Program, read_program

__all__ = ["QUESTION_MODEL_KEY", "corroborate", "question_model"]

QUESTION_MODEL_KEY = "question_model"
_SHOWN = 1_000  # characters of each formalisation kept on the chain's last step, for the page
_MAX_EXPANSION = 6  # lines a program's name is expanded through
_MAX_BITS = 13_000  # ~4,000 decimal digits: Python prints no integer longer than 4,300


def question_model(question: str, written: QuestionPrograms, *, timeout_s: float = 2.0) -> QuestionModel:
    """The formalisations of `question` read, evaluated and decided, and the answer they agree on: the value at
    least `required` problem models force (Z3, `timeout_s` each) and the programs compute most often."""
    grounding = grounding_values(stated_quantities(question), [question])
    rejected: list[str] = []
    programs: list[tuple[sympy.Expr, _Read]] = []
    for i, text in enumerate(written.programs, 1):
        try:
            program = read_program(text, grounding) if text.strip() else None
        except ArtifactSyntaxError as exc:
            rejected.append(f"program {i}: {exc.message}")
            continue
        if program is None:
            rejected.append(f"program {i}: the reply carried no program")
        elif not _printable(program.answer):
            rejected.append(f"program {i}: its answer has thousands of digits, no word problem's")
        else:
            programs.append((program.answer, _Read({v: n for v, n in program.quantities().items() if _printable(v)},
                                                   _program_combinations(program))))
    models: list[tuple[sympy.Expr, _Read]] = []
    for i, text in enumerate(written.problem_models, 1):
        try:
            decided = read_problem_model(text, grounding, timeout_s=timeout_s) if text.strip() else None
        except (ArtifactSyntaxError, Unforced) as exc:
            rejected.append(f"problem model {i}: {exc.message}")
            continue
        if decided is None:
            rejected.append(f"problem model {i}: the reply carried no equations")
        else:
            models.append((decided.answer, _Read(decided.quantities(), _model_combinations(decided))))
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
    combinations: list[list[str]] = []
    for agreeing in (*forced[1], *top[1]):
        for value, name in agreeing.quantities.items():
            quantities.setdefault(str(value), name)
        combinations += [c for c in agreeing.combinations if c not in combinations]
    return model.model_copy(update={"answer": str(forced[0]), "quantities": quantities,
                                    "combinations": combinations})


@dataclass(frozen=True)
class _Read:
    """One formalisation, read: the quantities it reaches (value → name) and the combinations of its lines."""

    quantities: dict[sympy.Expr, str]
    combinations: list[list[str]]


def _program_combinations(program: Program) -> list[list[str]]:
    """Each line's combination (`_combination`): its names read as their values, and again with each name
    expanded into the line that computes it (`answer = eggs * 2` after `eggs = 16 - 3 - 4` combines 16, 3, 4, 2
    into 18), so a step that writes two lines as one still matches."""
    values = dict(program.values)
    nodes = dict(program.lines)
    out: list[list[str]] = []
    for name, node in program.lines:
        for leaves in (_leaves(node, values, {}), _leaves(node, values, nodes)):
            if leaves is not None and (combination := _combination([values[name], *leaves])) not in out:
                out.append(combination)
    return [c for c in out if c]


def _model_combinations(model: ProblemModel) -> list[list[str]]:
    """Each equation's combination, every name read as the value the equations force (an equation with an
    unforced name combines nothing)."""
    forced = dict(model.forced)
    out: list[list[str]] = []
    for left, right in model.equations:
        sides = [_leaves(left, forced, {}), _leaves(right, forced, {})]
        if None not in sides and (combination := _combination([v for side in sides for v in side or ()])):
            out.append(combination)
    return out


def _leaves(node: Node, values: Mapping[str, sympy.Expr], nodes: Mapping[str, Node],
            depth: int = 0) -> list[sympy.Expr] | None:
    """The values `node` combines: each literal (`20%` as 1/5), each name's value, or, for a name in `nodes`, the
    leaves of the expression that defines it; None when a name has no value."""
    if isinstance(node, Binary) and node.op in ("+", "-", "*", "/"):
        left, right = _leaves(node.left, values, nodes, depth), _leaves(node.right, values, nodes, depth)
        return None if left is None or right is None else left + right
    if isinstance(node, Name):
        if node.name in nodes and depth < _MAX_EXPANSION:
            return _leaves(nodes[node.name], values, nodes, depth + 1)
        return [values[node.name]] if node.name in values else None
    try:
        return [evaluate(node, values)]
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return None


def _combination(values: Sequence[sympy.Expr]) -> list[str]:
    """Values as one combination: exact, sorted, printable (an empty list for one that is not)."""
    if not all(_printable(v) for v in values):
        return []
    return sorted(str(sympy.nsimplify(v)) if not isinstance(v, sympy.Rational) else str(v) for v in values)


def _votes(read: list[tuple[sympy.Expr, _Read]]) -> list[tuple[sympy.Expr, list[_Read]]]:
    """The answers `read` reach, each with every formalisation reaching it, most reached first."""
    votes: list[tuple[sympy.Expr, list[_Read]]] = []
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
    # a percent answer (`1800%`) is a value in percent points or a fraction, and the formalisations' answer does
    # not say which: no match is drawn from it
    if agreed is None or answer is None or has_percent(answer) or not _matches(agreed, answer):
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
    agreed_by = (f"{model.problem_agreeing} of {len(model.problem_models)} problem models (Z3: the answer is forced) "
                 f"and {model.agreeing} of {len(model.programs)} programs, formalisations of the question written "
                 f"without the chain, whose answer {model.answer} is the chain's")
    for sid, verdict in verdicts.items():
        context = contexts[sid]
        if verdict.status is StepStatus.UNSUPPORTED and verdict.error_kind == ErrorKind.UNTRANSLATABLE:
            restated = _restated(context, stated, agreed if context.final else None)
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
        if not results or None in names or _unaccounted(context, quantities, stated) \
                or not _combined_as_formalised(context, model.combinations):
            continue
        shown = ", ".join(f"{to_text(r)} is {n}" for r, n in zip(results, names, strict=True))
        out[sid] = _promoted(verdict, Evidence(
            kind=EvidenceKind.CORROBORATED, aligned_claim=evidence.aligned_claim, formaliser=Formaliser.QUESTION_MODEL,
            supplied_by=Supplier.INDEPENDENT, proofs=evidence.proofs, note=(
                f"corroborated: {shown} in {agreed_by}, each computed from the quantities a line of theirs combines; "
                "the arithmetic was proven")))
    out[last] = _noted(out[last], summary)
    return out


def _combined_as_formalised(context: StepContext, combinations: Sequence[Sequence[str]]) -> bool:
    """Does each relation the step claims combine the quantities one line of a formalisation combines (its
    literals and result: `16 - 3 - 4 = 9` and `eggs + 3 + 4 = 16` combine 16, 3, 4 and 9)? Equal values are not
    enough: `16 + 2 = 18` reaches the answer 18 by an operation no formalisation makes."""
    claims = step_claims(context)
    if not claims:
        return False
    for rel in claims:
        sides = [_leaves(rel.lhs_tree, {}, {}), _leaves(rel.rhs_tree, {}, {})]
        if rel.op not in ("=", "~=") or None in sides:
            return False
        if _combination([v for side in sides for v in side or ()]) not in combinations:
            return False
    return True


_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|without)\b|n[’']t\b", re.IGNORECASE)


def _unaccounted(context: StepContext, quantities: Mapping[sympy.Expr, str], told: Sequence[Quantity]
                 ) -> str | None:
    """What in the step's prose the formalisations do not account for: a number outside its relations that is
    not a quantity the question states or the formalisations reach *counting what it counts there*
    (`_counts_as`: "She sells 9 eggs and keeps 100", "$18 a day, which is $16 a week" where the question's 16 is
    eggs), or a negation ("she does not sell them"); either would turn the corroborated quantity into another
    claim."""
    spans = [rel.span for rel in read_step(ReasoningStep(step_id=context.step_id, content=context.content)).relations]
    for q in stated_quantities(context.content):
        inside = any(a <= q.span[0] and q.span[1] <= b for a, b in spans)
        if not inside and not _counts_as(q, quantities, told) and not _referred_to(q, told):
            return q.text
    negation = _NEGATION.search(context.content)
    return negation.group(0) if negation else None


def _counts_as(q: Quantity, quantities: Mapping[sympy.Expr, str], told: Sequence[Quantity]) -> bool:
    """Is `q` a quantity the question states, or a formalisation reaches, counting what it counts there (a
    content word of what the step says it counts is one of the question's phrase for it or of a formalisation's
    name for it)? "She sells 3 eggs" is not the question's "three for breakfast"."""
    phrases = [t.counts for t in told if _equal(t.value, q.value)]
    phrases += [name.replace("_", " ") for v, name in quantities.items() if _equal(q.value, v)]
    return any(_words(q.counts) & _words(p) for p in phrases)


def _referred_to(q: Quantity, told: Sequence[Quantity]) -> bool:
    """Is `q` a question's quantity mentioned without saying what it counts ("the 3 she had"), in the
    question's currency or none? "$16 a week" is not the question's 16 eggs."""
    return not _words(q.counts) and any(
        _equal(t.value, q.value) and t.text.startswith("$") == q.text.startswith("$") for t in told)


def _restated(context: StepContext, told: Sequence[Quantity], answer: sympy.Expr | None) -> list[str]:
    """The numbers a step with no relation states ("Tony picks 6 quarts", "Tony: 6, Bobby: 5"), when each is a
    quantity *the question states*, counting what it counts there (`_counts_as`), and the step negates
    nothing; [] otherwise (also for a step with no number: words alone are not corroborated by any quantity).
    A value only the formalisations reach is no restatement: "Janet's ducks lay 9 eggs" names the 9 eggs she
    sells with a word of theirs ("eggs") and says something else of them, and no relation ties it to anything.
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
        # the last step states the answer and nothing else: "Janet sells all 16 eggs and makes $18" says more
        if answer is not None or not _counts_as(q, {}, told):
            return []
    if answer is not None and not any(_equal(q.value, answer) for q in stated):
        return []
    return [q.text for q in stated]


_STOP = frozenset(("the", "per", "for", "and", "each", "every", "her", "his", "their", "its", "are", "was", "were",
                   "she", "they", "had", "has", "have", "him", "them", "then", "now", "left", "more"))


def _words(phrase: str) -> set[str]:
    """The content words of a phrase, singular (`quarts of strawberries` → quart, strawberry)."""
    out = set()
    for w in re.findall(r"[a-z]{3,}", phrase.lower()):
        if w not in _STOP:
            out.add(w[:-3] + "y" if w.endswith("ies") else w[:-1] if w.endswith("s") and not w.endswith("ss") else w)
    return out


def _printable(value: sympy.Expr) -> bool:
    """Can `value` be written out (a rational of at most ~4,000 digits a part, or any other expression)?"""
    if isinstance(value, sympy.Rational):
        return max(abs(int(value.p)).bit_length(), int(value.q).bit_length()) <= _MAX_BITS
    return True


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
