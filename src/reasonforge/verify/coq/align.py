"""Does the step's theorem state what the step's text claims? (A proof of another statement proves nothing.)

Inputs are the step's claims (read from its text, `coq_claims`), its theorems' statements as Coq
printed them (`coq_terms`), and what the step may rely on (`Knowledge`: the question's givens, the grounded
Context, its ancestors' claims, the numeric values known so far and the number domains of names).

- A claim is covered when a theorem's conclusion states it (up to a constant factor and the order of
  the sides), when it restates a fact the step may rely on (DESIGN §3.1: a step that restates a given
  is verified as a given), or when it is exact arithmetic that holds (`9 + 16 = 25`). Each check is
  tried as written and again with the known values substituted.
- A theorem's hypotheses must each be such a fact too, or a condition the step's own text states
  ("If x = 3 then ...", unless the known values make it false): `False -> 2 + 2 = 5` is provable and
  proves nothing, and so is any theorem that assumes what it should show.
- Binders are respected. A universally quantified variable stands for the text's name of the same spelling
  only where the theorem may be instantiated there: its type must hold every value the text's name can take
  (`forall x : nat` says nothing about an `x` not known to be a natural number). An existential of the
  conclusion is a witness of its own (`terms.WITNESS`): it covers only a claim about a name the text
  introduces existentially ("n = 2k for some integer k"), over a type no wider than the text's domain.
- Every claim covered: aligned. One not covered: misaligned, with "the theorem proves X but the step
  claims Y". No claim readable in the text (or one seen but not comparable): unreadable, and no theorem can
  verify the step. No theorem statement readable: unread. The caller reports both as unsupported.

The registered aligner (`align`, run by the soundness gate) keeps only the THEOREM evidence the judge recorded,
then holds it to the maths domain's reading, as the sympy aligner does whatever artifact arrived:
- a `claimed_conclusion` must be a claim (or the value of a claim) of the step's text, which the theorems cover;
- prose beyond what the readers compare (`lang.math.prose`: "She sells 20 eggs, since 16 - 3 - 4 = 9") and every
  step of a word problem (`lang.math.problem`) leave the step verified on its relations only (evidence
  RELATIONS, the chain PARTIAL): a theorem about the numbers says nothing about what they count;
- on the last step, the claimed answer is compared with the value of the unknown the question asks for
  (`lang.math.answers.check_answer`): a mismatch fails the step (ANSWER_MISMATCH), an answer that cannot be
  read or compared, or whose value no verified theorem derives, leaves it unsupported; an answer that is a
  claim ("n² is divisible by 4") must be one of the last step's claims.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sympy

from reasonforge.lang.math.answers import StepText, check_answer, same_value, value_of
from reasonforge.lang.math.expr import to_text
from reasonforge.lang.math.grounding import step_grounding
from reasonforge.lang.math.problem import WORD_PROBLEM_NOTE, read_problem, word_problem
from reasonforge.lang.math.prose import prose_beyond_relations, stray_number
from reasonforge.lang.math.reading import read_text
from reasonforge.lang.math.text import extract_value
from reasonforge.registry import checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    Evidence,
    EvidenceKind,
    StepContext,
    StepStatus,
    StepTranslation,
)
from reasonforge.verify.coq.claims import DOMAIN_RANK, DOMAIN_WORDS, PROPERTY_ATOMS, StepClaims, read_spans, step_claims
from reasonforge.verify.coq.terms import Atom, Statement, Unsupported, atoms_equivalent, statement_of, truth

__all__ = ["MAX_CLAIMS", "MAX_FACTS", "TYPE_RANK", "Alignment", "Knowledge", "align", "align_theorems", "domain_of_value", "holds", "rename", "render_statement"]

# The widest domain (claims.DOMAIN_RANK) each Coq number type holds.
TYPE_RANK = {"positive": 0, "nat": 1, "N": 1, "Z": 2, "Q": 3, "R": 4}
_MAX_MAPPINGS = 64
# Bounds on the exact-algebra comparisons one step costs (claims x facts); honest steps state a few of each.
MAX_CLAIMS = 32
MAX_FACTS = 256
_OWN = "@self"  # the placeholder of a name this step introduces existentially, until mapped to a witness


@dataclass
class Knowledge:
    """What a step may rely on: facts (each with where it comes from), numeric values, domains of names."""

    facts: list[tuple[Atom, str]] = field(default_factory=list)
    bindings: dict[str, sympy.Expr] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)


@dataclass
class Alignment:
    """The verdict of the comparison, what each claim was covered by, and the theorems that covered them."""

    status: Literal["aligned", "misaligned", "unreadable", "unread"]
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    covered: list[tuple[str, str]] = field(default_factory=list)  # (claim, what states it)
    statements: dict[str, str] = field(default_factory=dict)  # theorem -> readable statement, those that covered


def _subst(atom: Atom, bindings: Mapping[str, sympy.Expr]) -> Atom:
    if atom.expr is None or not bindings:
        return atom
    subs = {s: bindings[s.name] for s in atom.expr.free_symbols if s.name in bindings}
    return Atom(atom.op, atom.expr.xreplace(subs), atom.text) if subs else atom


def rename(atom: Atom, names: Mapping[str, str]) -> Atom:
    """`atom` with the symbols named in `names` renamed."""
    if atom.expr is None or not names:
        return atom
    subs = {s: sympy.Symbol(names[s.name]) for s in atom.expr.free_symbols if s.name in names}
    return Atom(atom.op, atom.expr.xreplace(subs), atom.text) if subs else atom


def _names(atom: Atom) -> set[str]:
    return {s.name for s in atom.expr.free_symbols} if atom.expr is not None else set()


def holds(claim: Atom, pool: Sequence[tuple[Atom, str]], bindings: Mapping[str, sympy.Expr]) -> str | None:
    """What states `claim`: a fact of `pool` (its source), or exact arithmetic; None when nothing does."""
    if truth(claim) is True:
        # Every identity is equivalent to every other: name a theorem only when it states this one as written.
        same = next((source for fact, source in pool if _spelling(fact.text) == _spelling(claim.text)), None)
        return same or "exact arithmetic"
    for b in ({}, bindings):
        c = _subst(claim, b)
        for fact, source in pool:
            if atoms_equivalent(c, _subst(fact, b)):
                return source
    if truth(_subst(claim, bindings)) is True:
        return "exact arithmetic"
    return None


def _spelling(text: str) -> str:
    return "".join(ch for ch in text if ch not in " ()*")


def domain_of_value(value: sympy.Expr) -> str:
    """The narrowest domain of a known number (`3` → positive, `0` → natural, `-2` → integer, `1/2` → rational)."""
    if value.is_Integer:
        return "positive" if value > 0 else "natural" if value == 0 else "integer"
    return "rational" if value.is_Rational else "real"


def _domain(name: str, knowledge: Knowledge, facts: Sequence[tuple[Atom, str]]) -> str:
    """The narrowest domain `name` is known to lie in (the reals when nothing says more)."""
    if name in knowledge.bindings and knowledge.bindings[name].is_number:
        return domain_of_value(knowledge.bindings[name])
    domain = knowledge.domains.get(name, "real")
    if domain == "integer":
        v = sympy.Symbol(name)
        if holds(Atom("<", -v), facts, knowledge.bindings):
            return "positive"
        if holds(Atom("<=", -v), facts, knowledge.bindings):
            return "natural"
    return domain


def render_statement(name: str, st: Statement) -> str:
    """A readable one-line form of a theorem's statement, for messages and evidence."""
    concl = " /\\ ".join(str(c) for c in st.conclusions) or "True"
    if st.witnesses:
        concl = "exists " + " ".join(f"({var} : {typ})" for var, typ in st.witnesses.values()) + ", " + concl
    body = " -> ".join([*(str(h) for h in st.hypotheses), concl])
    binders = " ".join(f"({v.split('@', 1)[0]} : {st.types[v]})" for v in st.variables)
    return f"{name} : " + (f"forall {binders}, {body}" if binders else body)


def _read(statements: Mapping[str, str]) -> tuple[dict[str, Statement], dict[str, str]]:
    read: dict[str, Statement] = {}
    unread: dict[str, str] = {}
    for name, printed in statements.items():
        try:
            read[name] = statement_of(printed)
        except (Unsupported, RecursionError) as exc:
            unread[name] = str(exc) if isinstance(exc, Unsupported) else "too deeply nested"
    return read, unread


def align_theorems(own: StepClaims, statements: Mapping[str, str], knowledge: Knowledge,
          renames: Mapping[str, str] | None = None) -> Alignment:
    """Compare the step's claims with its theorems' printed statements (see the module docstring).

    `renames` maps a name of the text to the witness an ancestor introduced for it (`k` → `k@1`), so that
    the text's `k` and that step's "for some integer k" are one object; own conditions may be assumed
    unless the known values already make one false (which would make the theorem vacuous)."""
    if own.uncompared:
        return Alignment("unreadable", f"the step claims {own.uncompared[0]}, which the checker cannot compare with "
                         "a theorem (an approximation, or a value it cannot compute), so no theorem verifies the step")
    if len(own.claims) > MAX_CLAIMS:
        return Alignment("unreadable", f"the step states {len(own.claims)} relations; the checker compares at most "
                         f"{MAX_CLAIMS} per step with a theorem, so split it into smaller steps")
    if not own.claims:
        return Alignment("unreadable", "the checker cannot read what the step claims (no relation, parity or "
                         "divisibility it can compare), so no theorem can be confirmed to state it")
    names = {k: v for k, v in (renames or {}).items() if k not in own.existential}
    names.update({k: k + _OWN for k in own.existential})
    claims = [rename(c, names) for c in own.claims]
    bindings = knowledge.bindings
    premises = [rename(p, names) for p in own.premises]
    facts = [*knowledge.facts, *((p, "a condition the step states") for p in premises
                                  if truth(_subst(p, bindings)) is not False)]
    domains = {**knowledge.domains, **{names.get(k, k): d for k, d in own.domains.items()}}
    known = Knowledge(knowledge.facts, bindings, domains)
    text_names = set(bindings)
    for atom in (*claims, *premises, *(f for f, _ in facts)):
        text_names |= _names(atom)
    read, unread = _read(statements)
    details: dict[str, Any] = {"claims": list(own.texts)}
    if unread:
        details["unread_theorems"] = unread
    if not read:
        return Alignment("unread", (
            "the checker cannot read the statement of " + ", ".join(sorted(unread)) + f" ({next(iter(unread.values()))}) "
            "to confirm it states the step's claim; state it with Z, Q, nat or R arithmetic, equalities, orders, "
            "divisibility or parity"), details)
    usable: list[tuple[Atom, str]] = []
    witnesses: dict[str, tuple[str, str, str]] = {}  # symbol -> (written name, type, theorem)
    unjustified: list[str] = []
    readable: dict[str, str] = {}
    for name, st in read.items():
        st = st.renamed({v: names[v] for v in st.variables if v in names and not names[v].endswith(_OWN)})
        readable[name] = render_statement(name, st)
        why = _why_unusable(name, st, text_names, known, facts)
        if why:
            unjustified.append(why)
            continue
        usable += [(c, f"theorem {name}") for c in st.conclusions]
        witnesses.update({w: (var, typ, name) for w, (var, typ) in st.witnesses.items()})
    main_name = list(read)[-1]
    details["theorems"] = {n: {"hypotheses": [str(h) for h in st.hypotheses],
                               "conclusions": [str(c) for c in st.conclusions],
                               **({"variables": st.types} if st.types else {})} for n, st in read.items()}
    pool = [*usable, *facts]
    if len(pool) > MAX_FACTS:
        # Each claim is compared with each fact by exact algebra: the work has to stay bounded.
        return Alignment("unreadable", f"the step's theorems, givens and earlier steps state {len(pool)} facts; the "
                         f"checker compares a claim with at most {MAX_FACTS}, so split the step or the question",
                         details)
    best: list[tuple[str, str | None]] = []
    for mapping in _mappings(own, claims, witnesses):
        covered = [(text, holds(rename(c, mapping), pool, bindings)) for c, text in zip(claims, own.texts, strict=True)]
        if all(src is not None for _, src in covered):
            used = {src.split(" ", 1)[1] for _, src in covered if src and src.startswith("theorem ")}
            done = [(t, s or "") for t, s in covered]
            return Alignment("aligned", details={**details, "covered": [{"claim": t, "by": s} for t, s in done]},
                             covered=done, statements={n: readable[n] for n in read if n in used})
        if not best or sum(s is None for _, s in covered) < sum(s is None for _, s in best):
            best = covered
    text = next(t for t, s in best if s is None) if best else own.texts[0]
    proves = " and ".join(str(c) for c in read[main_name].conclusions) or "nothing the checker can compare"
    message = f"the theorem {main_name} proves {proves} but the step claims {text}" + _lookalike(read[main_name], text, own)
    if own.existential and not witnesses:
        message += (f" (for some {', '.join(sorted(own.existential))}: only an existential of the theorem, over a type "
                    "no wider than the text says, states that)")
    if unjustified:
        message = f"the step claims {text}, and {unjustified[0]}" if _states(read, text, own) else (
            f"{message}; {unjustified[0]}")
    return Alignment("misaligned", message, {**details, "uncovered_claim": text})


def _lookalike(st: Statement, text: str, own: StepClaims) -> str:
    """Why a conclusion spelled like the claim is not the claim, when it is (else "")."""
    bound = sorted({var for var, _ in st.witnesses.values() if var in text})
    wide = [(var, typ) for var, typ in st.witnesses.values() if var in own.existential
            and TYPE_RANK[typ] > DOMAIN_RANK[own.existential[var]]]
    if wide:
        var, typ = wide[0]
        return (f" (the theorem's {var} ranges over {typ}, wider than the step's: \"{_NOUNS[typ].split(' ', 1)[1]}\" "
                f"is not \"{own.existential[var]}\")")
    if bound:
        return (f" (in the theorem {', '.join(bound)} is bound by `exists`: it proves that some {bound[0]} satisfies "
                f"this, not that the step's {bound[0]} does)")
    if any(_spelling(c.text) == _spelling(text) for c in st.conclusions):
        return (" (spelled alike, but the theorem's arithmetic is Coq's: nat subtraction stops at 0 and Z division "
                "rounds down, so its value is not the text's)")
    return ""


def _states(read: Mapping[str, Statement], text: str, own: StepClaims) -> bool:
    """Does some theorem's conclusion state the claim `text` (one that could not be used)?"""
    claim = own.claims[own.texts.index(text)]
    return any(atoms_equivalent(claim, c) for st in read.values() for c in st.conclusions)


def _why_unusable(name: str, st: Statement, text_names: set[str], knowledge: Knowledge,
                  facts: Sequence[tuple[Atom, str]]) -> str | None:
    """Why the theorem's conclusions cannot stand for the step's claims, or None when they can."""
    for h in st.hypotheses:
        if holds(h, facts, knowledge.bindings) is None:
            return (f"{name} assumes {h}, which is neither a given nor a claim of an earlier step (a theorem may "
                    "only assume what the Context or its ancestors establish)")
    for v in st.variables:
        if v not in text_names:
            continue  # a variable of its own: any instance will do, every number type is inhabited
        typ = st.types[v]
        domain = _domain(v, knowledge, facts)
        if DOMAIN_RANK[domain] > TYPE_RANK[typ]:
            shown = v.split("@", 1)[0]
            return (f"{name} quantifies {shown} over {typ}, but the step's {shown} is not known to be "
                    f"{_NOUNS[typ]} (the theorem says nothing about other values)")
    return None


_NOUNS = {"positive": "a positive integer", "nat": "a natural number", "N": "a natural number", "Z": "an integer",
          "Q": "a rational number", "R": "a real number"}


def _mappings(own: StepClaims, claims: Sequence[Atom], witnesses: Mapping[str, tuple[str, str, str]]
              ) -> list[dict[str, str]]:
    """The ways to read each name the step introduces existentially as one witness of a theorem."""
    wanted = sorted(k for k in own.existential if any(k + _OWN in _names(c) for c in claims))
    if not wanted:
        return [{}]
    choices: list[list[str]] = []
    for k in wanted:
        fits = [w for w, (var, typ, _) in witnesses.items() if TYPE_RANK[typ] <= DOMAIN_RANK[own.existential[k]]]
        same = [w for w in fits if witnesses[w][0] == k]
        choices.append(same or (fits if len(wanted) == 1 and len(fits) == 1 else []) or [k + _OWN])
    out = []
    for combo in itertools.islice(itertools.product(*choices), _MAX_MAPPINGS):
        out.append({k + _OWN: w for k, w in zip(wanted, combo, strict=True)})
    return out


@checkers.aligner(ArtifactLanguage.COQ)
def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """A verified Coq step stands only on the evidence the chain checker recorded when it aligned the step's
    theorems with its claims (`align_theorems`, in the judge): THEOREM evidence with an aligned claim; anything
    else is stripped, and the gate then leaves the step unsupported. Then the maths domain's reading holds
    whatever artifact arrived (`_domain_rules`): a claimed conclusion the theorems do not cover, prose beyond the
    relations, a word problem and its ungrounded operands (`_grounded`), and the claimed answer (on the last step)."""
    if outcome.status in (StepStatus.ERROR, StepStatus.INVALIDATED):
        return outcome
    evidence = outcome.evidence
    if outcome.status is StepStatus.VERIFIED and not (
            evidence is not None and evidence.kind is EvidenceKind.THEOREM and evidence.aligned_claim.strip()
            and (outcome.details.get("alignment") or {}).get("status") == "aligned"):
        outcome = outcome.model_copy(update={"evidence": None})
    elif outcome.status is StepStatus.VERIFIED:
        outcome = _domain_rules(context, outcome)
        outcome = _grounded(context, outcome)
    if context.final and context.claimed_answer.strip():
        outcome = _answer(context, outcome)
    return outcome


def _grounded(context: StepContext, outcome: CheckOutcome) -> CheckOutcome:
    """A word problem's proven step whose operands its question does not ground is unsupported, as at quick
    (`lang.math.grounding`): the theorem holds, but an invented number in it is no quantity of the story."""
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    grounding = step_grounding(context.original_query, [read_text(a.content, a.claimed_conclusion)
                                                        for a in context.ancestors],
                               read_text(context.content, context.claimed_conclusion))
    if grounding is None or not grounding.missing:
        return outcome
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNGROUNDED_OPERAND, grounding.message(),
                              ungrounded_operands=[m.operand for m in grounding.missing])


# ---- the maths domain's reading, whatever the artifact -----------------------------------------------------------
def _domain_rules(context: StepContext, outcome: CheckOutcome) -> CheckOutcome:
    """A theorem proves the relations the step states. A claimed conclusion they do not state is unchecked
    (unsupported); what the prose says besides them ("She sells 20 eggs, since 16 - 3 - 4 = 9"), and any step of
    a word problem (`lang.math.problem`), leave the step verified on its relations only (evidence RELATIONS), as
    the sympy aligner does: no artifact proves what the text's reader does not read."""
    evidence = outcome.evidence
    assert evidence is not None
    if (why := _unchecked_conclusion(context)) is not None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, why)
    reading = read_text(context.content)
    text = list(context.content)
    compared = [a.span for a in reading.assumptions if a.relation is not None or (
        a.properties and all(p in PROPERTY_ATOMS or p in DOMAIN_WORDS for p in a.properties))]
    known = "\n".join((context.original_query, *(a.content for a in context.ancestors)))
    if (stray := stray_number(context.content, reading, known, [*compared, *read_spans(context.content)])) is not None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM, stray)
    for start, end in [*compared, *read_spans(context.content)]:
        text[start:end] = " " * (end - start)  # what the Coq reader compares besides the relations
    prose = prose_beyond_relations("".join(text), reading.relations)
    story = word_problem(context.original_query)
    if not prose and not story:
        return outcome
    notes = [f"only the relations were proven; the step also says \"{prose}\", which no relation states"] if prose \
        else []
    notes += [WORD_PROBLEM_NOTE] if story else []
    return outcome.with_evidence(Evidence(kind=EvidenceKind.RELATIONS, aligned_claim=evidence.aligned_claim,
                                          formaliser=evidence.formaliser, supplied_by=evidence.supplied_by,
                                          note="; ".join([*notes, *([evidence.note] if evidence.note else [])])))


def _unchecked_conclusion(context: StepContext) -> str | None:
    """Why the step's `claimed_conclusion` is not what its text states (the theorems cover the text's claims
    only), or None: each claim of it must be one of the text's, a value it states the value of one."""
    conclusion = (context.claimed_conclusion or "").strip()
    if not conclusion:
        return None
    stated = _claims_within(conclusion, context.content)
    if stated is not None:
        return None if stated else f"the claimed conclusion \"{conclusion[:60]}\" is not a claim the step's text states"
    value = extract_value(conclusion)
    if value is None:
        return f"the claimed conclusion \"{conclusion[:60]}\" cannot be read as a relation or a value"
    if any((node := value_of(rel, None)) is not None and same_value(node, value)
           for rel in read_text(context.content).claims):
        return None
    return f"the claimed conclusion {to_text(value)} is not a value the step's relations derive"


def _claims_within(claimed: str, content: str) -> bool | None:
    """Is each claim the Coq reader reads in `claimed` (a relation, a parity or divisibility) a claim of `content`?
    None when it reads no claim there (or one it cannot compare)."""
    # a conclusion asserts what it states: read as concluded ("Therefore z = 5"), not as a bare case ("z = 5")
    said = step_claims(f"Therefore {claimed}")
    if not said.claims or said.uncompared or said.premises:
        return None
    own = step_claims(content).claims
    return all(any(_spelling(a.text) == _spelling(c.text) or (a.expr is not None and a.expr.free_symbols
                                                                and atoms_equivalent(a, c)) for c in own)
               for a in said.claims)


def _answer(context: StepContext, outcome: CheckOutcome) -> CheckOutcome:
    """The claimed answer against the value of the unknown the question asks for, as the chain's texts state it
    (`lang.math.answers.check_answer`, the rule the sympy aligner applies): a mismatch fails the last step
    (ANSWER_MISMATCH), an answer that cannot be read or compared, or whose value no verified step derives, leaves
    a verified last step unsupported. A claimed answer that is a proposition ("n² is divisible by 4") must be a
    claim of the last step, which its theorem covers."""
    last = StepText(context.step_id, context.content, read_text(context.content, context.claimed_conclusion))
    ancestors = [StepText(a.step_id, a.content, read_text(a.content, a.claimed_conclusion)) for a in context.ancestors]
    check = check_answer(context.claimed_answer, read_problem(context.original_query), last, ancestors)
    if check.status == "unread" and (same := _claims_within(context.claimed_answer, context.content)) is not None:
        if same:
            return outcome
        return _unchecked(outcome, f"the claimed answer \"{context.claimed_answer[:60]}\" is not a claim of the last "
                          "step")
    if check.status == "unread":
        return _unchecked(outcome, check.message)
    if check.status == "different":
        if outcome.status is StepStatus.FAILED:  # the step's own failure comes first; the mismatch is noted
            return outcome.model_copy(update={"details": {**outcome.details, "answer": f"mismatch: {check.message}"}})
        return outcome.downgraded(StepStatus.FAILED, ErrorKind.ANSWER_MISMATCH, check.message,
                                  answer=f"mismatch: {check.message}")
    covered = read_text(context.content).claims  # the theorems cover the content's relations, not the conclusion's
    for final in check.finals:
        own = final.step_id == context.step_id
        if (own and (outcome.status is not StepStatus.VERIFIED or final.relation not in covered)) or (
                not own and not any(a.step_id == final.step_id and final.relation in a.math.claims for a in ancestors)):
            return _unchecked(outcome, f"the claimed answer matches {final.source}, which no verified theorem "
                              "derives")
    if outcome.status is not StepStatus.VERIFIED or outcome.evidence is None:
        return outcome
    note = "; ".join(x for x in (outcome.evidence.note, f"claimed answer {check.message}") if x)
    return outcome.model_copy(update={"details": {**outcome.details, "answer": check.message},
                                      "evidence": outcome.evidence.model_copy(update={"note": note})})


def _unchecked(outcome: CheckOutcome, message: str) -> CheckOutcome:
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                              f"{message}; the last step does not vouch for an answer nobody checked")
