"""The verdict on one compiled, audited step: provenance of what its theorems speak of, alignment, evidence.

`Judge` walks the chain in topological order and keeps what each step leaves its descendants (its claims,
its values, its definitions). For one step it decides, in this order:

1. the step's own definitions that its theorems speak of and its text names must be bindings its text makes
   ("Let x = 3") or agree with what is known (`grounding.definition_problem`): else `failed`, since the
   theorem would hold only because the artifact said so;
2. the text must state something the checker can read: else `unsupported` (UNREADABLE_CLAIM), whatever
   the theorem (an unrelated theorem never verifies a step);
3. the theorems must state every claim (`align`): a different statement is `failed` (ALIGNMENT), one the
   checker cannot read `unsupported`;
4. every Context declaration the proof uses (Print Assumptions) and every definition the theorems speak of
   must be a given of the question or a binding a step's text made (`grounding`): else `unsupported`
   (UNGROUNDED_PREMISE), naming it;
5. verified, with `evidence` (types.Evidence, kind THEOREM): the theorem statements that state the
   step's claims, as aligned, and how each claim was covered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy

from reasonforge.types import ErrorKind, Evidence, EvidenceKind, Formaliser, StepStatus
from reasonforge.verify.coq.align import Knowledge, align_theorems, holds, rename
from reasonforge.verify.coq.audit import definition_body
from reasonforge.verify.coq.claims import StepClaims
from reasonforge.verify.coq.givens import Givens
from reasonforge.verify.coq.grounding import Entry, definition_problem, read_value, workspace_names
from reasonforge.verify.coq.terms import Atom, Unsupported, statement_of

__all__ = ["Judge", "Judgement"]


@dataclass
class Judgement:
    """A step's status, message and error kind, with the details to record (evidence when verified)."""

    status: StepStatus
    message: str | None = None
    error_kind: ErrorKind | None = None
    details: dict[str, Any] = field(default_factory=dict)
    evidence: Evidence | None = None


@dataclass
class _Left:
    """What a checked step leaves its descendants: its claims as facts, the values it fixed, its definitions."""

    facts: list[tuple[Atom, str]] = field(default_factory=list)
    bindings: dict[str, sympy.Expr] = field(default_factory=dict)
    defs: dict[str, sympy.Expr | None] = field(default_factory=dict)


class Judge:
    """Judges the steps of one chain in order (see the module docstring)."""

    def __init__(self, givens: Givens, entries: Mapping[str, Entry], readings: Mapping[int, StepClaims],
                 ancestors: Mapping[int, Sequence[int]], ancestor_names: Mapping[int, set[str]]) -> None:
        self.givens = givens
        self.entries = entries
        self.readings = readings
        self.ancestors = ancestors
        self.ancestor_names = ancestor_names  # names the texts of each step's ancestors mention
        self.left: dict[int, _Left] = {}
        self.context_values = {n: e.value for n, e in entries.items() if e.kind == "definition" and e.value is not None}

    # ------------------------------------------------------------------------------------------ one step
    def judge(self, sid: int, statements: Mapping[str, str], audit: Mapping[str, str],
              used_context: Sequence[str]) -> Judgement:
        """The step's verdict from its theorems' printed statements, its audit and the Context names it uses."""
        own = self.readings[sid]
        ancestors = [a for a in self.ancestors.get(sid, ()) if a != sid]
        knowledge = self._knowledge(sid, ancestors)
        renames = self._renames(sid, ancestors)
        own_defs = {tag.split(" ", 1)[1]: read_value(definition_body(text), self.context_values)
                    for tag, text in audit.items() if tag.startswith("def ")}
        mentioned = self.givens.names | own.names | self.ancestor_names.get(sid, set())
        for name, entry in self.entries.items():  # the Context's values this step may use, named or not
            if entry.kind != "definition" or entry.value is None or entry.problem is None:
                continue
            if self._definition_problem(sid, name, entry.value, "the Context", mentioned, knowledge, ancestors) is None:
                knowledge.bindings.setdefault(name, entry.value)
        refs = workspace_names(list(statements.values()))
        problems: list[tuple[bool, str]] = []  # (the step's own artifact?, why)
        for module, name in sorted(refs):
            owner, value, declared = self._definition(sid, module, name, own_defs, ancestors)
            if not declared:
                continue
            why = self._definition_problem(sid, name, value, owner, mentioned, knowledge, ancestors)
            if why is None:
                if value is not None:
                    knowledge.bindings.setdefault(name, value)
            else:
                problems.append((module == f"Step{sid}", why))
        for name, value in own_defs.items():  # helpers the theorems do not name are exact values too
            if value is not None and name not in mentioned:
                knowledge.bindings.setdefault(name, value)
        details: dict[str, Any] = {}
        left = self._leave(sid, own, renames, own_defs, knowledge)
        self.left[sid] = left
        own_problem = next((why for mine, why in problems if mine), None)
        if own_problem:
            return Judgement(StepStatus.FAILED, own_problem, ErrorKind.UNGROUNDED_PREMISE, details)
        result = align_theorems(own, statements, knowledge, renames)
        details["alignment"] = {"status": result.status, **result.details}
        if own.notes:
            details["alignment"]["notes"] = own.notes[:10]
        if result.status == "unreadable":
            return Judgement(StepStatus.UNSUPPORTED, result.message, ErrorKind.UNREADABLE_CLAIM, details)
        if result.status == "misaligned":
            return Judgement(StepStatus.FAILED, result.message, ErrorKind.ALIGNMENT, details)
        if result.status == "unread":
            return Judgement(StepStatus.UNSUPPORTED, result.message, ErrorKind.ALIGNMENT, details)
        ungrounded = self._ungrounded(used_context) + [why for mine, why in problems if not mine]
        if ungrounded:
            details["ungrounded"] = ungrounded[:10]
            return Judgement(StepStatus.UNSUPPORTED, "the proof rests on what the question does not give: "
                             + "; ".join(ungrounded[:3]), ErrorKind.UNGROUNDED_PREMISE, details)
        self._keep_theorems(sid, statements)
        return Judgement(StepStatus.VERIFIED, None, None, details, _evidence(result.statements, result.covered))

    # -------------------------------------------------------------------------------------- knowledge
    def _knowledge(self, sid: int, ancestors: Sequence[int]) -> Knowledge:
        facts = self.givens.facts()
        bindings = {} if self.givens.contradiction else dict(self.givens.bindings)
        domains = dict(self.givens.domains)
        for entry in self.entries.values():
            if entry.problem is not None:
                continue
            if entry.kind == "hypothesis":
                facts += [(a, f"the Context's {entry.name}") for a in entry.atoms]
            elif entry.kind == "definition" and entry.value is not None:
                bindings.setdefault(entry.name, entry.value)
            elif entry.kind == "parameter" and entry.domain is not None:
                domains.setdefault(entry.name, entry.domain)
        for a in ancestors:
            left = self.left.get(a)
            if left is not None:
                facts += left.facts
                for name, value in left.bindings.items():
                    bindings.setdefault(name, value)
            reading = self.readings.get(a)
            if reading is not None:
                domains.update({f"{k}@{a}": d for k, d in reading.existential.items()})
        return Knowledge(facts, bindings, domains)

    def _renames(self, sid: int, ancestors: Sequence[int]) -> dict[str, str]:
        """The text's names that stand for the witness an ancestor introduced ("for some integer k")."""
        own = self.readings[sid]
        out: dict[str, str] = {}
        for name in own.names:
            if name in own.existential or name in self.entries or name in self.givens.names:
                continue
            intro = [a for a in ancestors if name in getattr(self.readings.get(a), "existential", {})]
            if len(intro) == 1:
                out[name] = f"{name}@{intro[0]}"
        return out

    def _leave(self, sid: int, own: StepClaims, renames: Mapping[str, str], own_defs: Mapping[str, sympy.Expr | None],
               knowledge: Knowledge) -> _Left:
        names = {**renames, **{k: f"{k}@{sid}" for k in own.existential}}
        # A claim made under the step's own conditions ("If x = 1 and x = 2 then ...") holds only under them:
        # it is no fact for the steps after it.
        facts = [] if own.premises else [(rename(c, names), f"step {sid}") for c in own.claims]
        bindings: dict[str, sympy.Expr] = {}
        for name, value in own_defs.items():
            if value is not None and knowledge.bindings.get(name) == value:
                bindings[name] = value
        for atom, _ in facts:
            expr = atom.expr
            if atom.op != "=" or expr is None or len(expr.free_symbols) != 1:
                continue
            (sym,) = expr.free_symbols
            if "@" in sym.name or not expr.is_polynomial(sym):
                continue
            poly = sympy.Poly(expr, sym)
            if poly.degree() == 1:
                a, b = poly.all_coeffs()
                bindings[sym.name] = -b / a
        return _Left(facts, bindings, dict(own_defs))

    def _keep_theorems(self, sid: int, statements: Mapping[str, str]) -> None:
        """A verified step's closed theorems are facts for its descendants, beyond what its text claims."""
        for name, printed in statements.items():
            try:
                st = statement_of(printed)
            except (Unsupported, RecursionError):
                continue
            if not (st.variables or st.hypotheses or st.witnesses or st.opaque):
                self.left[sid].facts += [(c, f"step {sid}'s theorem {name}") for c in st.conclusions]

    # -------------------------------------------------------------------------------------- provenance
    def _definition(self, sid: int, module: str, name: str, own_defs: Mapping[str, sympy.Expr | None],
                    ancestors: Sequence[int]) -> tuple[str, sympy.Expr | None, bool]:
        """(whose, value, is it a definition to judge) for a workspace constant a theorem mentions."""
        if module == "Context":
            entry = self.entries.get(name)
            if entry is not None and entry.kind in ("parameter", "hypothesis"):
                return "the Context", None, False  # judged through Print Assumptions
            return "the Context", entry.value if entry is not None else None, True
        step = int(module[4:])
        if step == sid:
            return "this step's artifact", own_defs.get(name), True
        if step in ancestors:
            left = self.left.get(step)
            return f"step {step}'s artifact", left.defs.get(name) if left is not None else None, True
        return module, None, True

    def _definition_problem(self, sid: int, name: str, value: sympy.Expr | None, owner: str, mentioned: set[str],
                            knowledge: Knowledge, ancestors: Sequence[int]) -> str | None:
        givens = {} if self.givens.contradiction else self.givens.bindings
        given = value is not None and holds(Atom("=", sympy.Symbol(name) - value), self.givens.facts(), givens) is not None
        others = {k: v for k, v in knowledge.bindings.items() if k != name}
        entailed = value is not None and holds(Atom("=", sympy.Symbol(name) - value), knowledge.facts, others) is not None
        bound = value is not None and name not in self.givens.names and any(
            self._introduces(t, name, value) for t in (sid, *ancestors))
        return definition_problem(name, value, mentioned=name in mentioned, given=given, bound_by_text=bound,
                                  entailed=entailed, owner=owner)

    def _introduces(self, step: int, name: str, value: sympy.Expr) -> bool:
        """Does `step`'s text bind `name` to `value` ("Let x = 3") before any of its ancestors mentions it?"""
        reading = self.readings.get(step)
        if reading is None or reading.bindings.get(name) != value:
            return False
        return name not in self.ancestor_names.get(step, set())

    def _ungrounded(self, used_context: Sequence[str]) -> list[str]:
        out = []
        for name in used_context:
            entry = self.entries.get(name)
            if entry is None:
                out.append(f"the Context's `{name}`, which the checker did not read")
            elif entry.problem is not None and entry.kind in ("parameter", "hypothesis"):
                out.append(entry.problem)
        return out


def _evidence(statements: Mapping[str, str], covered: Sequence[tuple[str, str]]) -> Evidence:
    """What a verified step rests on: the aligned theorem statements and how each claim was covered."""
    if statements:
        aligned = "; ".join(statements.values())
    else:
        aligned = "; ".join(claim for claim, _ in covered)
    note = "claims covered: " + "; ".join(f"{claim} (by {by})" for claim, by in covered)
    return Evidence(kind=EvidenceKind.THEOREM, aligned_claim=aligned, formaliser=Formaliser.ARTIFACT, note=note)
