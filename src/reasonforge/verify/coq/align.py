"""Does the step's theorem state what the step's text claims? (A proof of another statement proves nothing.)

Inputs are the step's claims (read from its text, `coq_claims`), its theorems' statements as Coq
printed them (`coq_terms`), the facts the step may rely on (the Context's givens and definitions,
its ancestors' claims and theorems) and the numeric bindings known so far (`x = 3`).

- A claim is covered when a theorem's conclusion states it (up to a constant factor and the order of
  the sides), when it restates a fact the step may rely on (DESIGN §3.1: a step that restates a given
  is verified as a given), or when it is plain arithmetic that holds (`9 + 16 = 25`). Each check is
  tried as written and again with the known bindings substituted.
- A theorem's hypotheses must each be such a fact too, or a condition the step's own text states
  ("If x = 3 then ...", unless the known bindings make it false): `False -> 2 + 2 = 5` is provable and
  proves nothing, and so is any theorem that assumes what it should show.
- Every claim covered: aligned. One not covered: misaligned, with "the theorem proves X but the step
  claims Y". No claim readable in the text: skipped (noted in details). No theorem statement readable:
  unread, and the checker cannot confirm the step (the caller reports it as unsupported).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sympy

from reasonforge.verify.coq.terms import Atom, Statement, Unsupported, atoms_equivalent, statement_of, truth

__all__ = ["Alignment", "align"]


@dataclass
class Alignment:
    """The verdict of the comparison and what it was based on."""

    status: Literal["aligned", "misaligned", "skipped", "unread"]
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)


def _subst(atom: Atom, bindings: Mapping[str, sympy.Expr]) -> Atom:
    if atom.expr is None or not bindings:
        return atom
    subs = {s: bindings[s.name] for s in atom.expr.free_symbols if s.name in bindings}
    return Atom(atom.op, atom.expr.xreplace(subs), atom.text) if subs else atom


def _holds(claim: Atom, facts: Sequence[Atom], bindings: Mapping[str, sympy.Expr]) -> bool:
    """Is `claim` one of `facts`, or true arithmetic, as written or with the bindings substituted?"""
    for b in ({}, bindings):
        c = _subst(claim, b)
        if truth(c) is True:
            return True
        if any(atoms_equivalent(c, _subst(f, b)) for f in facts):
            return True
    return False


def align(
    claims: Sequence[Atom],
    claim_texts: Sequence[str],
    statements: Mapping[str, str],
    facts: Sequence[Atom],
    bindings: Mapping[str, sympy.Expr],
    premises: Sequence[Atom] = (),
) -> Alignment:
    """Compare the step's claims with its theorems' printed statements (see the module docstring).

    `premises` are conditions the step's text itself assumes ("if x = 3", "z > 0"): a theorem may
    assume them too, unless the known bindings already make one false (which would make it vacuous)."""
    facts = [*facts, *(p for p in premises if truth(_subst(p, bindings)) is not False)]
    if not claims:
        return Alignment("skipped", details={"alignment": "skipped: the step's text states no relation the checker "
                                                          "can read, so the theorem was not compared with it"})
    read: dict[str, Statement] = {}
    unread: dict[str, str] = {}
    for name, printed in statements.items():
        try:
            read[name] = statement_of(printed)
        except Unsupported as exc:
            unread[name] = str(exc)
    details: dict[str, Any] = {"claims": list(claim_texts)}
    if unread:
        details["unread_theorems"] = unread
    if not read:
        return Alignment("unread", (
            "the checker cannot read the statement of " + ", ".join(sorted(unread)) + f" ({next(iter(unread.values()))}) "
            "to confirm it states the step's claim; state it with Z, Q, nat or R arithmetic, equalities, orders, "
            "divisibility or parity"), details)
    usable: list[Atom] = []
    unjustified: list[tuple[str, Atom]] = []
    for name, st in read.items():
        bad = [h for h in st.hypotheses if not _holds(h, facts, bindings)]
        if bad:
            unjustified.append((name, bad[0]))
            continue
        usable += st.conclusions
    main_name = list(read)[-1]
    details["theorems"] = {n: {"hypotheses": [str(h) for h in st.hypotheses],
                               "conclusions": [str(c) for c in st.conclusions]} for n, st in read.items()}
    for claim, text in zip(claims, claim_texts, strict=True):
        if _holds(claim, [*usable, *facts], bindings):
            continue
        main = read[main_name]
        proves = " and ".join(str(c) for c in main.conclusions) or "nothing the checker can compare"
        message = f"the theorem {main_name} proves {proves} but the step claims {text}"
        for name, hyp in unjustified:
            message += (f"; {name} assumes {hyp}, which is neither a given nor a claim of an earlier step "
                        "(a theorem may only assume what the Context or its ancestors establish)")
            break
        return Alignment("misaligned", message, {**details, "uncovered_claim": text})
    return Alignment("aligned", details={**details, "alignment": "every claim of the step is stated by a theorem, "
                                                                 "a given or an earlier step, or is true arithmetic"})
