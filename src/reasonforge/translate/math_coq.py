"""`CoqMathTranslator`: the offline translator of simple mathematics chains into Coq (formal level).

It writes the plan's workspace pieces: a Context translation (step 0) and one `coq` artifact per step,
each a theorem `step<k>` with a proof made of standard tactics. The checker never trusts it: a wrong
statement or a proof that does not go through fails there, not here.

Reading (the shared extractor `lang.math.text` plus parity/divisibility phrases):
- Givens (the Context): the query's bindings (`Definition`), its relations and domain facts
  (`n is an even integer` → `Axiom n_even : Z.Even n`), but never what it asks (`verify.coq.givens`:
  "Prove that n is even" gives nothing), and relations a step cites from a named theorem ("By the
  Pythagorean theorem, x² + y² = z²"), which a rule-based reader cannot derive. The checker accepts
  only the question's givens as hypotheses, so a step resting on a cited relation, or on an unknown's
  being an integer when the question does not say so, comes out `unsupported` naming it: honest
  about what was assumed, never verified on it. Unknowns get `Parameter`s; a length-like unknown (the query speaks of a length,
  side, hypotenuse, distance, ...) also gets `0 <= v`. "Let x = 3" in a step defines x in the Context,
  and that step's theorem states `x = 3`.
- Numbers: Z, or Q for the whole chain as soon as a decimal, a division or a percentage appears; R when the
  chain has an unknown the question does not say is an integer (`Parameter x : R`: over Z, "x > 1" would
  give "x ≥ 2"), unless a parity or divisibility claim needs Z (then the checker names the assumption).
- A step's theorem is the conjunction of its claims (chains `a = b = c` give `a = b /\\ b = c`). A name
  introduced "for some integer k" is existential in that step (`exists k, n = 2 * k`); a later step
  using k quantifies it with the same defining relation as hypothesis (`forall k, n = 2 * k -> ...`).
- Parity and divisibility claims (`n² is divisible by 4`, `n² is even`) are proved with a witness
  computed here by substituting the defining relation (n = 2k gives n² = 4·k², witness k²).
- Proofs: the givens and the ancestor theorems are posed as hypotheses, definitions unfolded, then
  `assumption`, `reflexivity`, `ring`, `lia`, `nia` (Z) or `field`, `lra` (Q) close each conjunct.
Anything else (functions, approximations, steps without a relation) gets an empty artifact whose notes
say why: the checker reports it `unsupported`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy

from reasonforge.lang.math.expr import (
    ExpressionError,
    Name,
    Node,
    evaluate,
    names_in,
    parse_expression,
)
from reasonforge.lang.math.text import Relation, StepMath, extract
from reasonforge.registry import Spec
from reasonforge.translate.math_coq_emit import (
    Domain,
    NotCoq,
    coq_expr,
    coq_poly,
    coq_relation,
    needs_rationals,
)
from reasonforge.types import (
    CONTEXT_STEP_ID,
    ArtifactLanguage,
    StepTranslation,
    VerifyRequest,
)
from reasonforge.verify.coq.claims import SOME, Phrase, phrases
from reasonforge.verify.coq.givens import read_givens

__all__ = ["TRANSLATOR_NAME", "TRANSLATOR_VERSION", "CoqMathTranslator"]

TRANSLATOR_NAME = "math-coq-rules"
TRANSLATOR_VERSION = "1.0"
_PRELUDE = {"Z": "From Coq Require Import ZArith Lia.\nOpen Scope Z_scope.\n",
            "Q": "From Coq Require Import QArith Lqa.\nOpen Scope Q_scope.\n",
            "R": "From Coq Require Import Reals Lra.\nOpen Scope R_scope.\n"}
_TACTICS = {"Z": "first [assumption | reflexivity | ring | lia | nia | (vm_compute; discriminate)]",
            "Q": "first [assumption | reflexivity | ring | field | lra | (vm_compute; first [reflexivity | discriminate])]",
            "R": "first [assumption | reflexivity | ring | lra | nra | field]"}
_CITED = re.compile(r"\b(?:by|using|from|applying)\s+(?:the\s+)?[\w'’-]+(?:\s+[\w'’-]+)?\s+"
                    r"(?:theorem|formula|law|identity|lemma)\b", re.IGNORECASE)
_LENGTHS = re.compile(r"\b(lengths?|distances?|hypotenuse|sides?|legs?|radius|diameter|perimeter|area|heights?|"
                      r"width|triangle)\b", re.IGNORECASE)
_PROPERTY_AXIOMS = {"even": ("even", "Z.Even {v}"), "odd": ("odd", "Z.Odd {v}"), "positive": ("pos", "0 < {v}"),
                    "negative": ("neg", "{v} < 0"), "nonnegative": ("nonneg", "0 <= {v}"),
                    "nonpositive": ("nonpos", "{v} <= 0")}


class _Untranslatable(Exception):
    """The step is outside what this translator handles; the message goes into the notes."""


@dataclass
class _Context:
    """The Context under construction: declarations in dependency order, then the givens."""

    domain: Domain
    declarations: list[str] = field(default_factory=list)
    axioms: list[tuple[str, str]] = field(default_factory=list)
    definitions: dict[str, str] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)

    def parameter(self, name: str) -> None:
        if name not in self.declared:
            coq_expr(Name(name), self.domain)  # refuses names Coq cannot take
            self.declared.add(name)
            self.declarations.append(f"Parameter {name} : {self.domain}.")

    def define(self, name: str, value: Node) -> None:
        for used in sorted(names_in(value)):
            self.parameter(used)
        text = coq_expr(value, self.domain)
        self.declared.add(name)
        self.definitions[name] = text
        self.declarations.append(f"Definition {name} : {self.domain} := {text}.")

    def axiom(self, name: str, statement: str) -> str:
        taken = {n for n, _ in self.axioms} | self.declared
        unique, k = name, 2
        while unique in taken:
            unique, k = f"{name}_{k}", k + 1
        self.axioms.append((unique, statement))
        return unique

    def text(self) -> str:
        lines = ["(* The givens: the query's facts, the names the steps bind, relations cited from theorems *)",
                 _PRELUDE[self.domain].rstrip("\n"), *self.declarations]
        lines += [f"Axiom {name} : {statement}." for name, statement in self.axioms]
        return "\n".join(lines) + "\n"


@dataclass
class _Claim:
    """One conjunct of a step's theorem and the tactic that proves it."""

    coq: str
    names: frozenset[str]
    tactic: str = ""


@dataclass
class _StepPlan:
    """What a translated step states, for its descendants: its theorem, existential and definitions."""

    theorem: str
    existential: dict[str, str] = field(default_factory=dict)  # k -> "n = 2 * k" (its defining relation)
    substitutions: list[tuple[str, Node, str]] = field(default_factory=list)  # (param, value, ancestor theorem)


class CoqMathTranslator:
    """Offline maths → Coq translator for simple chains (see the module docstring)."""

    def __init__(self) -> None:
        self.spec = Spec(name=TRANSLATOR_NAME, version=TRANSLATOR_VERSION)

    def translate_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> list[StepTranslation]:
        """The Context (step 0) and one `coq` translation per step, in request order."""
        query = extract(request.original_query)
        readings = {s.step_id: extract(s.content) for s in request.reasoning_chain}
        domain = _domain(query, [readings[s.step_id] for s in request.reasoning_chain],
                         [s.content for s in request.reasoning_chain], read_givens(request.original_query).domains)
        ctx = _Context(domain)
        self._givens(request.original_query, query, ctx)
        lengths = bool(_LENGTHS.search(request.original_query))
        plans: dict[int, _StepPlan] = {}
        out: list[StepTranslation] = []
        for step in request.reasoning_chain:
            reading = readings[step.step_id]
            before = list(ancestors.get(step.step_id, ()))
            try:
                artifact, plan, notes = self._step(step.step_id, step.content, reading, before, plans, ctx, lengths)
            except (_Untranslatable, NotCoq, ExpressionError) as exc:
                out.append(StepTranslation(step_id=step.step_id, original_content=step.content, language=ArtifactLanguage.COQ,
                                           formal_representation="", dependencies=before, translation_confidence=0.0,
                                           notes=f"not translated to Coq: {exc}"))
                continue
            plans[step.step_id] = plan
            out.append(StepTranslation(step_id=step.step_id, original_content=step.content, language=ArtifactLanguage.COQ,
                                       formal_representation=artifact, dependencies=before,
                                       translation_confidence=0.9, notes="; ".join(notes) or None))
        context = StepTranslation(step_id=CONTEXT_STEP_ID, original_content=request.original_query,
                                  language=ArtifactLanguage.COQ, formal_representation=ctx.text(),
                                  notes="; ".join(ctx.notes) or None)
        return [context, *out]

    # ------------------------------------------------------------------------------------- givens
    def _givens(self, text: str, query: StepMath, ctx: _Context) -> None:
        # What the question asks ("Prove that n is even", "Show that x = 9") is a goal, never a Context axiom.
        goals = set(read_givens(text).goals)
        for rel in query.bindings:
            name = rel.bound_name
            if name is not None and name not in ctx.declared and rel.text not in goals:
                ctx.define(name, rel.rhs_tree)
        for rel in query.claims:
            if rel.text in goals:
                continue
            try:
                self._declare(rel.names, ctx)
                ctx.axiom("given", coq_relation(rel.lhs_tree, rel.op, rel.rhs_tree, ctx.domain))
            except NotCoq as exc:
                ctx.notes.append(f"given `{rel.text}` not translated: {exc}")
        for assumption in query.assumptions:
            if assumption.text in goals or (assumption.relation is not None and assumption.relation.text in goals):
                continue
            if assumption.relation is not None:
                rel = assumption.relation
                try:
                    self._declare(rel.names, ctx)
                    ctx.axiom("given", coq_relation(rel.lhs_tree, rel.op, rel.rhs_tree, ctx.domain))
                except NotCoq as exc:
                    ctx.notes.append(f"given `{rel.text}` not translated: {exc}")
                continue
            name = assumption.name
            if name is None:
                continue
            ctx.parameter(name)
            for prop in assumption.properties:
                if prop in ("even", "odd") and ctx.domain != "Z":
                    ctx.notes.append(f"`{name} is {prop}` needs integers; not translated")
                elif prop in _PROPERTY_AXIOMS:
                    suffix, statement = _PROPERTY_AXIOMS[prop]
                    ctx.axiom(f"{name}_{suffix}", statement.format(v=name))
                elif prop not in ("integer", "real", "rational"):
                    ctx.notes.append(f"`{name} is {prop}` is not translated")

    @staticmethod
    def _declare(names: frozenset[str], ctx: _Context) -> None:
        for name in sorted(names):
            ctx.parameter(name)

    # -------------------------------------------------------------------------------------- steps
    def _step(self, sid: int, text: str, reading: StepMath, before: list[int], plans: dict[int, _StepPlan],
              ctx: _Context, lengths: bool) -> tuple[str, _StepPlan, list[str]]:
        notes: list[str] = []
        cited = bool(_CITED.search(text))
        found = phrases(text)
        if not (reading.bindings or reading.claims or found):
            raise _Untranslatable("the step states no relation, parity or divisibility fact")
        introduced = {m for group in SOME.findall(text) for m in group if m}
        inherited = {k: v for a in before if a in plans for k, v in plans[a].existential.items()}
        # Bindings first: "Let x = 3" defines x (in the Context) and the step states x = 3.
        relations: list[Relation] = []
        for rel in reading.bindings:
            name = rel.bound_name
            if name and name not in ctx.declared and name not in inherited and name not in introduced:
                ctx.define(name, rel.rhs_tree)
            relations.append(rel)
        relations += list(reading.claims)
        if any(r.op == "~=" for r in relations):
            raise _Untranslatable("an approximate relation (≈) is not an exact theorem")
        names = set().union(*(r.names for r in relations), *(names_in(p.x) for p in found))
        unknown = sorted(n for n in names if n not in ctx.declared and n not in inherited and n not in introduced)
        for name in unknown:
            ctx.parameter(name)
            if cited and lengths:
                ctx.axiom(f"{name}_nonneg", f"0 <= {name}")
        plan = _StepPlan(theorem=f"step{sid}")
        claims = [_claim(r, ctx.domain) for r in relations]
        if cited:
            for claim in claims:
                ctx.axiom(f"cited_{sid}", claim.coq)
            notes.append("the relation is cited from a named theorem: it is taken as a given (Context axiom)")
        foralls = sorted(n for n in names if n in inherited)
        exists = sorted(n for n in names if n in introduced and n not in inherited and n not in ctx.declared)
        substitutions = self._substitutions(before, plans, foralls, inherited, ctx)
        for phrase in found:
            claims.append(self._phrase_claim(phrase, substitutions, ctx))
        for claim in claims:
            claim.tactic = claim.tactic or _TACTICS[ctx.domain]
        for k in exists:
            defining = next((c.coq for c in claims if k in c.names), None)
            if defining is not None:
                plan.existential[k] = defining
        statement = " /\\ ".join(f"({c.coq})" if len(claims) > 1 else c.coq for c in claims)
        if exists:
            statement = f"exists {' '.join(exists)} : {ctx.domain}, {statement}"
        hyps = [inherited[k] for k in foralls]
        if foralls:
            arrows = "".join(f"{h} -> " for h in hyps)
            statement = f"forall {' '.join(foralls)} : {ctx.domain}, {arrows}{statement}"
        proof = self._proof(claims, foralls, hyps, exists, before, plans, substitutions, ctx)
        artifact = (f"(* {_quote(text)} *)\n{_PRELUDE[ctx.domain]}"
                    f"Theorem step{sid} : {statement}.\nProof.\n{proof}\nQed.\n")
        plan.substitutions = substitutions
        return artifact, plan, notes

    def _substitutions(self, before: list[int], plans: Mapping[int, _StepPlan], foralls: list[str],
                       inherited: Mapping[str, str], ctx: _Context) -> list[tuple[str, Node, str]]:
        """`param = expression` facts usable to rewrite: from quantified hypotheses and ancestor existentials."""
        subs: list[tuple[str, Node, str]] = []
        for a in before:
            plan = plans.get(a)
            if plan is None:
                continue
            for k, defining in plan.existential.items():
                parsed = _defining(defining, k)
                if parsed is not None:
                    source = f"forall:{k}" if k in foralls else f"exists:{plan.theorem}:{k}"
                    subs.append((parsed[0], parsed[1], source))
        return subs

    def _phrase_claim(self, phrase: Phrase, subs: list[tuple[str, Node, str]], ctx: _Context) -> _Claim:
        if ctx.domain != "Z":
            raise _Untranslatable("parity and divisibility need integers, and this chain uses rationals")
        x = coq_expr(phrase.x, "Z")
        if phrase.kind == "divides":
            assert phrase.d is not None
            d_value = evaluate(phrase.d)
            statement, divisor = f"({coq_expr(phrase.d, 'Z')} | {x})", d_value
        else:
            statement = f"Z.{'Even' if phrase.kind == 'even' else 'Odd'} ({x})"
            divisor = sympy.Integer(2)
        target = evaluate(phrase.x) - (1 if phrase.kind == "odd" else 0)
        names = names_in(phrase.x)
        for param, value, source in [("", None, "closed"), *subs]:
            expr = target if value is None else target.xreplace({sympy.Symbol(param, real=True): evaluate(value)})
            quotient = sympy.expand(expr / divisor)
            poly = sympy.Poly(quotient, *sorted(quotient.free_symbols, key=str)) if quotient.free_symbols else None
            integral = (quotient.is_integer if poly is None else all(c.is_integer for c in poly.coeffs()))
            if not integral:
                continue
            witness = coq_poly(quotient.xreplace({s: sympy.Symbol(s.name) for s in quotient.free_symbols}))
            rewrite = "" if value is None else f"rewrite {_hyp_name(source)}; "
            return _Claim(statement, frozenset(names), tactic=f"(exists {witness}; {rewrite}ring)")
        raise _Untranslatable(f"no witness found for `{phrase.text}` from the step's ancestors")

    def _proof(self, claims: list[_Claim], foralls: list[str], hyps: list[str], exists: list[str], before: list[int],
               plans: Mapping[int, _StepPlan], subs: list[tuple[str, Node, str]], ctx: _Context) -> str:
        lines: list[str] = []
        if foralls:
            lines.append("  intros " + " ".join([*foralls, *(f"H_{k}" for k in foralls)]) + ".")
        for k in foralls:
            lines.append(f"  try rewrite H_{k}.")
        used = sorted({src.split(":")[1] for _, _, src in subs if src.startswith("exists:")})
        for theorem in used:
            k = next(src.split(":")[2] for _, _, src in subs if src.startswith(f"exists:{theorem}:"))
            lines.append(f"  destruct {theorem} as [{k} H_{k}].")
        for name, _ in ctx.axioms:
            lines.append(f"  pose proof {name} as G_{name}.")
        for a in before:
            plan = plans.get(a)
            if plan is not None and not plan.existential and f"step{a}" not in used:
                lines.append(f"  pose proof step{a} as S_{a}.")
        if ctx.definitions:
            lines.append(f"  unfold {', '.join(ctx.definitions)} in *.")
        if exists:
            lines.append("  " + "; ".join(["unfold Z.Even, Z.Odd in *"] * (ctx.domain == "Z")
                                          + ["repeat match goal with H : exists _, _ |- _ => destruct H end"]) + ".")
            lines.append("  " + " ".join("eexists." for _ in exists))
            lines.append("  " + _conjuncts([_Claim(c.coq, c.names, "first [eassumption | reflexivity]") for c in claims])
                         + ".")
        else:
            lines.append("  " + _conjuncts(claims) + ".")
        return "\n".join(lines)


# -------------------------------------------------------------------------------------------- helpers
def _domain(query: StepMath, steps: Sequence[StepMath], texts: Sequence[str], domains: Mapping[str, str]) -> Domain:
    """Z, or Q once a decimal, division or percentage appears; R when an unknown (a name no binding fixes) is not
    an integer by the question: declaring it over Z or Q would assume what the question does not say."""
    readings = [query, *steps]
    bound = {r.bound_name for reading in readings for r in reading.bindings if r.bound_name}
    unknowns = {n for reading in readings for r in (*reading.claims, *reading.cases) for n in r.names} - bound
    unknowns |= {n for a in query.assumptions if a.relation is not None for n in a.relation.names} - bound
    parity = any(phrases(text) for text in texts)
    if not parity and any(domains.get(n, "real") not in ("integer", "natural", "positive") for n in unknowns):
        return "R"
    for reading in readings:
        for rel in (*reading.bindings, *reading.claims):
            if needs_rationals(rel.lhs_tree) or needs_rationals(rel.rhs_tree):
                return "Q"
    return "Z"


def _claim(rel: Relation, domain: Domain) -> _Claim:
    """The conjunct for a relation; over R a closed integer equation is stated in Z, where it computes (so a slip
    fails with Coq's own "Unable to unify 26 with 9 + 16", not a bare `lra` failure), with the same value."""
    if domain == "R" and not rel.names and rel.op == "=" and not (needs_rationals(rel.lhs_tree)
                                                                   or needs_rationals(rel.rhs_tree)):
        return _Claim(f"({coq_relation(rel.lhs_tree, rel.op, rel.rhs_tree, 'Z')})%Z", rel.names, "reflexivity")
    return _Claim(coq_relation(rel.lhs_tree, rel.op, rel.rhs_tree, domain), rel.names, _closed_tactic(rel, domain))


def _closed_tactic(rel: Relation, domain: Domain) -> str:
    """A closed equation is computed, so a slip fails with Coq's own "Unable to unify 26 with 9 + 16"."""
    if rel.names or rel.op != "=":
        return ""
    return {"Z": "reflexivity", "Q": "(vm_compute; reflexivity)", "R": "lra"}[domain]


def _conjuncts(claims: list[_Claim]) -> str:
    """`split; [t1 | split; [t2 | t3]]` for right-nested conjunctions."""
    if len(claims) == 1:
        return claims[0].tactic
    return f"split; [{claims[0].tactic} | {_conjuncts(claims[1:])}]"


def _defining(coq: str, k: str) -> tuple[str, Node] | None:
    """`n = 2 * k` → ("n", tree of 2*k) when the defining relation has a lone name on the left."""
    lhs, sep, rhs = coq.partition(" = ")
    lhs = lhs.strip()
    if not sep or not lhs.isidentifier() or lhs == k:
        return None
    try:
        return lhs, parse_expression(rhs)
    except ExpressionError:
        return None


def _hyp_name(source: str) -> str:
    return "H_" + source.rsplit(":", 1)[-1]


def _quote(text: str, limit: int = 100) -> str:
    text = " ".join(text.split()).replace("(*", "( *").replace("*)", "* )").replace('"', "'")
    return text if len(text) <= limit else text[:limit - 1] + "…"

