"""Provenance for Coq: is every declaration a step rests on a given of the question, or a name a step introduced?

The Context (step 0) declares the givens, and only givens may be assumed (DESIGN §3.1). Its declarations,
as Coq printed them (`Check`, `Print`), are read against the question's givens (`givens.read_givens`):

- a *parameter* (`Parameter x : T`) is data; its type is a hypothesis about it unless the type holds every
  value the question allows (`x : Z` says x is an integer: the question must say so; `R` always holds);
  sorts and function types assume nothing;
- a *hypothesis* (`Axiom h : ...`) must state relations the question gives, read like a step's claim: a
  quantified or conditional one (`forall n : nat, n = 1`) is never a given, and one the checker cannot
  read is not one it can confirm; the one exception is the Pythagorean relation for a right triangle the
  question gives, with the hypotenuse a fresh name (and that name ≥ 0), see `_grant_pythagoras`;
- a *definition* (`Definition x := 3`) fixes a value: it may be a given of the question, the binding a step's
  text makes ("Let x = 3", in that step or an ancestor, of a name nothing mentioned before), or a helper no
  text mentions; otherwise a theorem about `x` would be true only because the artifact said so. The same
  rule holds for the definitions of the steps themselves (`definition_problem`).

A step whose proof (Print Assumptions) uses a parameter or hypothesis that is not a given, or whose theorem
states something about a definition it may not use, is not verified, and the message names the declaration.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import sympy

from reasonforge.verify.coq.align import TYPE_RANK, domain_of_value, holds
from reasonforge.verify.coq.audit import definition_body, printed_type
from reasonforge.verify.coq.claims import DOMAIN_RANK
from reasonforge.verify.coq.givens import Givens
from reasonforge.verify.coq.policy import ArtifactFacts
from reasonforge.verify.coq.terms import Atom, Unsupported, number_type, parse_term, statement_of, to_expr

__all__ = ["TYPE_DOMAIN", "Entry", "definition_problem", "read_context", "read_value", "workspace_names"]

TYPE_DOMAIN = {"positive": "positive", "nat": "natural", "N": "natural", "Z": "integer", "Q": "rational", "R": "real"}
_NOUNS = {"positive": "a positive integer", "natural": "a natural number", "integer": "an integer",
          "rational": "a rational number", "real": "a real number"}
_REFERENCE = re.compile(r"(?<![\w.'])(?:RF\.)?(Context|Step(\d+))\.([A-Za-z_][\w']*)")


@dataclass
class Entry:
    """One Context declaration as the checker read it: what it states and why it is not a given (None: it is)."""

    name: str
    kind: Literal["parameter", "hypothesis", "definition", "other"]
    statement: str = ""
    problem: str | None = None
    value: sympy.Expr | None = None  # a definition's value, when it is a number the checker can compute
    atoms: list[Atom] = field(default_factory=list)  # a given hypothesis's relations
    domain: str | None = None  # a given parameter's number domain


def read_value(body: str | None, known: Mapping[str, sympy.Expr]) -> sympy.Expr | None:
    """A definition's value as a number, the values of earlier definitions substituted; None if not one."""
    if not body:
        return None
    try:
        value = to_expr(parse_term(body), frozenset())
    except (Unsupported, RecursionError):
        return None
    value = value.xreplace({s: known[s.name] for s in value.free_symbols if s.name in known})
    return value if not value.free_symbols else None


def _data_type(printed: str) -> tuple[bool, str | None]:
    """(is it data, its number type if a plain number): a number type, a sort, or a function into one."""
    try:
        t = parse_term(printed)
    except (Unsupported, RecursionError):
        return False, None
    plain = number_type(t)
    while t.kind == "forall":
        t = t.args[1]
    return t.kind == "sort" or number_type(t) is not None, plain


def _givens_note(givens: Givens) -> str:
    if givens.contradiction:
        return f"the question's givens cannot all hold: {givens.contradiction}, so none is one a proof may use"
    return (f"the question gives {', '.join(givens.texts[:6])}" if givens.texts
            else "the checker reads no given in the question")


def _bindings(givens: Givens) -> dict[str, sympy.Expr]:
    return {} if givens.contradiction else givens.bindings


def _parameter(name: str, typ: str | None, givens: Givens) -> Entry:
    if typ is None:
        return Entry(name, "parameter", f"{name} (data)")
    entry = Entry(name, "parameter", f"{name} : {typ}", domain=TYPE_DOMAIN[typ])
    known = givens.domains.get(name, "real")
    if name in givens.bindings and givens.bindings[name].is_number:
        known = min(known, domain_of_value(givens.bindings[name]), key=DOMAIN_RANK.__getitem__)
    if known == "integer" and TYPE_RANK[typ] < DOMAIN_RANK["integer"]:
        pool = givens.facts()
        v = sympy.Symbol(name)
        if holds(Atom("<", -v), pool, givens.bindings):
            known = "positive"
        elif holds(Atom("<=", -v), pool, givens.bindings):
            known = "natural"
    if DOMAIN_RANK[known] > TYPE_RANK[typ]:
        entry.problem = (f"`{name} : {typ}` assumes {name} is {_NOUNS[TYPE_DOMAIN[typ]]}, which the question does not "
                         f"say (declare it over R, or the question must state it)")
    return entry


def _hypothesis(name: str, printed: str, givens: Givens) -> Entry:
    entry = Entry(name, "hypothesis", printed)
    try:
        st = statement_of(printed)
    except (Unsupported, RecursionError) as exc:
        why = str(exc) if isinstance(exc, Unsupported) else "too deeply nested"
        entry.problem = f"the checker cannot read `{name}` ({why}), so it cannot confirm it is a given of the question"
        return entry
    shown = " /\\ ".join(str(c) for c in st.conclusions) or "True"
    entry.statement = shown
    if st.variables or st.hypotheses:
        entry.problem = (f"`{name}` is quantified or conditional; a given of the question is a plain relation, so "
                         "this one assumes more than the question says")
        return entry
    if st.opaque or st.witnesses:
        entry.problem = f"the checker cannot read all of `{name}` as relations, so it cannot confirm it is a given"
        return entry
    pool = givens.facts()
    for atom in st.conclusions:
        if holds(atom, pool, _bindings(givens)) is None:
            entry.problem = f"`{name}` states {atom}, which is not a given of the question ({_givens_note(givens)})"
            return entry
    entry.atoms = list(st.conclusions)
    return entry


def read_context(audit: Mapping[str, str], ctx: ArtifactFacts, givens: Givens) -> dict[str, Entry]:
    """Every Context declaration, read against the question's givens (see the module docstring)."""
    out: dict[str, Entry] = {}
    for name in ctx.assumptions:
        printed = printed_type(audit.get(f"ctx-hyp {name}", "")) or ""
        is_data, typ = _data_type(printed)
        if is_data:
            out[name] = _parameter(name, typ, givens)
        elif not printed:
            out[name] = Entry(name, "hypothesis", problem=f"the checker could not print `{name}` to read it")
        else:
            out[name] = _hypothesis(name, printed, givens)
    values: dict[str, sympy.Expr] = {}  # the definitions' values, in order (each may use the earlier ones)
    for name in ctx.definitions:
        value = read_value(definition_body(audit.get(f"ctx-def {name}", "")), values)
        entry = Entry(name, "definition", f"{name} := {value}" if value is not None else name, value=value)
        if value is not None:
            values[name] = value
            if holds(Atom("=", sympy.Symbol(name) - value), givens.facts(), _bindings(givens)) is None:
                entry.problem = (f"the Context defines {name} := {value}, which is not a given of the question"
                                 + (f" ({_givens_note(givens)})" if givens.contradiction else ""))
        else:
            entry.problem = f"the checker cannot compute the value of the Context's `{name}`"
        out[name] = entry
    for name in ctx.declared:
        out.setdefault(name, Entry(name, "other", name, problem=f"the Context's `{name}` is neither a given the "
                                   "checker reads nor a number it can compute"))
    _grant_pythagoras(out, audit, values, givens)
    return out


def _grant_pythagoras(out: dict[str, Entry], audit: Mapping[str, str], values: Mapping[str, sympy.Expr],
                      givens: Givens) -> None:
    """Accept the Pythagorean theorem for a right triangle the question gives: `a² + b² = c²` where a and b are
    defined as its legs and c is a parameter nothing else speaks of (the question, another hypothesis), and
    `0 <= c` or `0 < c` for that c (a length). Such a c only names the hypotenuse: the Context stays a
    conservative extension of the givens (3² + 4² = c² with c ≥ 0 just defines c = 5), so nothing false follows."""
    if not givens.right_triangles or givens.contradiction:
        return
    parameters = {n for n, e in out.items() if e.kind == "parameter"}
    read: dict[str, list[Atom]] = {}
    for name, entry in out.items():
        if entry.kind != "hypothesis":
            continue
        try:
            st = statement_of(printed_type(audit.get(f"ctx-hyp {name}", "")) or "")
        except (Unsupported, RecursionError):
            return  # a hypothesis the checker cannot read might speak of c: grant nothing
        if st.variables or st.hypotheses or st.opaque or st.witnesses:
            return
        read[name] = list(st.conclusions)
    instances: dict[str, list[str]] = {}  # c -> the hypotheses stating a Pythagorean instance for it
    for name, atoms in read.items():
        hypotenuse = _pythagorean_instance(atoms, values, parameters, givens)
        if hypotenuse is not None:
            instances.setdefault(hypotenuse, []).append(name)
    for c, stating in instances.items():
        v = sympy.Symbol(c)
        lengths = [n for n, atoms in read.items() if n not in stating and len(atoms) == 1
                   and atoms[0].op in ("<", "<=") and atoms[0].expr == -v]
        others = [n for n, atoms in read.items() if n not in stating and n not in lengths
                  and any(a.expr is not None and v in a.expr.free_symbols for a in atoms)]
        if len(stating) != 1 or others or c in givens.names:
            continue
        for n in (*stating, *lengths):
            out[n].problem, out[n].atoms = None, read[n]


def _pythagorean_instance(atoms: Sequence[Atom], values: Mapping[str, sympy.Expr], parameters: set[str],
                          givens: Givens) -> str | None:
    """The hypotenuse's name when `atoms` is one equation leg² + leg² = c² of a right triangle of the question."""
    if len(atoms) != 1 or atoms[0].op != "=" or atoms[0].expr is None:
        return None
    expr = atoms[0].expr
    free = {s.name for s in expr.free_symbols}
    unknown = [n for n in free if n not in values]
    if len(unknown) != 1 or unknown[0] not in parameters:
        return None
    c = sympy.Symbol(unknown[0])
    known = expr.xreplace({sympy.Symbol(n): values[n] for n in free if n in values})
    for a, b in givens.right_triangles:
        pythagoras = a**2 + b**2 - c**2
        if sympy.expand(known - pythagoras) == 0 or sympy.expand(known + pythagoras) == 0:
            return unknown[0]
    return None


def workspace_names(printed: Sequence[str]) -> set[tuple[str, str]]:
    """The workspace constants the printed statements mention, as (module, name): ("Context", "x"), ("Step2", "k")."""
    found: set[tuple[str, str]] = set()
    for text in printed:
        for m in _REFERENCE.finditer(text):
            found.add((m.group(1), m.group(3)))
    return found


def definition_problem(name: str, value: sympy.Expr | None, *, mentioned: bool, given: bool,
                       bound_by_text: bool, entailed: bool, owner: str) -> str | None:
    """Why a step may not rely on the definition `name := value` (None when it may).

    `mentioned`: the question, the step or an ancestor names it; `given`: the question's givens entail it;
    `bound_by_text`: the step or an ancestor introduces it with this value ("Let x = 3") before anything
    mentions it; `entailed`: what the step may rely on already gives it this value."""
    if not mentioned or given or entailed or (value is not None and bound_by_text):
        return None
    if value is None:
        return (f"the step's theorem speaks of `{name}`, which {owner} declares without a value the checker can "
                "compute, so nothing ties it to the text's " + name)
    return (f"{owner} defines {name} := {value}, so a theorem about {name} holds because the artifact says so; "
            f"neither the question nor a step's text (\"Let {name} = {value}\") gives {name} that value")
