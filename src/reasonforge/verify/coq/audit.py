"""The checker's own Coq commands run after the steps compile (`Chain.v`), and the reading of their output.

For each step: `Check` of every theorem it states (the statement as the kernel has it, printed with
`Set Printing All` so notations, scopes and coercions are spelled out), `Print` of its definitions
(bindings for later steps) and `Print Assumptions` of all its theorems together. For the Context: the
statement of every given and the body of every definition. Last, a vacuity probe: can `lia`, `nia`,
`tauto` or `congruence` prove `False` from the givens alone (quantified ones instantiated)? Then every proof that uses a given
proves nothing.

Allowed axioms: the Context's own declarations (the givens) and `STANDARD_AXIOMS`, the axioms of the
standard library that are known to be consistent with Coq's theory and with each other (classical
logic, functional and propositional extensionality, proof irrelevance and the axioms the standard
real numbers are built on). Anything else `Print Assumptions` lists, or anything it prints that this
module does not recognise (an unsafe fixpoint, assumed positivity, type-in-type), fails the step.
The probe first instantiates every quantified given at small values and at the Context's own declarations
(`forall n : nat, n = 1` is contradictory only once instantiated: `0 = 1`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "STANDARD_AXIOMS",
    "Assumptions",
    "audit_head",
    "audit_part",
    "audit_tail",
    "definition_body",
    "mark",
    "marked_sections",
    "parse_assumptions",
    "printed_type",
]

STANDARD_AXIOMS: tuple[str, ...] = (
    "Coq.Logic.Classical_Prop.classic",
    "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep",
    "Coq.Logic.PropExtensionality.propositional_extensionality",
    "Coq.Logic.ProofIrrelevance.proof_irrelevance",
    "Coq.Logic.Eqdep.Eq_rect_eq.eq_rect_eq",
    "Coq.Logic.JMeq.JMeq_eq",
    "Coq.Reals.ClassicalDedekindReals.sig_forall_dec",
    "Coq.Reals.ClassicalDedekindReals.sig_not_dec",
)
_PRINTING = "Local Set Printing All.\nLocal Set Printing Depth 1000000.\nLocal Set Printing Width 1000.\n"
_CLOSED = "Closed under the global context"


def mark(nonce: str, tag: str) -> str:
    """A throw-away goal whose only effect is one line of output carrying the nonce."""
    return f'Goal True. idtac "@@RF {nonce} {tag}". exact I. Qed.\n'


def _section(name: str, body: list[str]) -> str:
    # `Local` options set inside a section end with it, so nothing after the audit prints differently.
    return f"Section {name}.\n" + _PRINTING + "".join(body) + f"End {name}.\n"


def audit_head(nonce: str, assumptions: Sequence[str], definitions: Sequence[str], *, qualifier: str,
               load: str = "") -> str:
    """The Context's audit: print each given's statement and each definition's body."""
    body: list[str] = []
    for name in assumptions:
        body += [mark(nonce, f"ctx-hyp {name}"), f"Check @{qualifier}Context.{name}.\n"]
    for name in definitions:
        body += [mark(nonce, f"ctx-def {name}"), f"Print {qualifier}Context.{name}.\n"]
    body.append(mark(nonce, "head-end"))
    return load + _section("RFAuditContext", body)


def audit_part(nonce: str, module: str, theorems: Sequence[str], definitions: Sequence[str], *, qualifier: str,
               load: str = "") -> str:
    """The audit of one compiled step: statements, definitions, then every theorem's assumptions."""
    body: list[str] = []
    for name in theorems:
        body += [mark(nonce, f"check {module} {name}"), f"Check @{qualifier}{module}.{name}.\n"]
    for name in definitions:
        body += [mark(nonce, f"def {module} {name}"), f"Print {qualifier}{module}.{name}.\n"]
    body.append(mark(nonce, f"assumptions {module}"))
    refs = [f"{qualifier}{module}.{name}" for name in theorems]
    if len(refs) == 1:
        body.append(f"Print Assumptions {refs[0]}.\n")
    elif refs:
        # One traversal for all of the step's theorems: it costs as much as one (the stdlib is shared).
        tuple_ = ", ".join(f"@{r}" for r in refs)
        body.append(f"Definition rf_all_{module} := ({tuple_}).\nPrint Assumptions rf_all_{module}.\n")
    body.append(mark(nonce, f"end {module}"))
    return load + _section(f"RFAudit{module}", body)


# Instances a quantified given is tried at, by the type it quantifies over (fully qualified: the probe runs
# where only what Lia loads is in scope). Each branch also tries every Context declaration of that type.
_INSTANCES = {
    "Coq.Numbers.BinNums.Z": ("Coq.Numbers.BinNums.Z0", "(Coq.Numbers.BinNums.Zpos Coq.Numbers.BinNums.xH)",
                              "(Coq.Numbers.BinNums.Zneg Coq.Numbers.BinNums.xH)",
                              "(Coq.Numbers.BinNums.Zpos (Coq.Numbers.BinNums.xO Coq.Numbers.BinNums.xH))"),
    "Coq.Init.Datatypes.nat": ("Coq.Init.Datatypes.O", "(Coq.Init.Datatypes.S Coq.Init.Datatypes.O)",
                               "(Coq.Init.Datatypes.S (Coq.Init.Datatypes.S Coq.Init.Datatypes.O))"),
    "Prop": ("Coq.Init.Logic.False", "Coq.Init.Logic.True"),
}
_Q_INSTANCES = ("(Coq.QArith.QArith_base.Qmake Coq.Numbers.BinNums.Z0 Coq.Numbers.BinNums.xH)",
                "(Coq.QArith.QArith_base.Qmake (Coq.Numbers.BinNums.Zpos Coq.Numbers.BinNums.xH) Coq.Numbers.BinNums.xH)")
_R_INSTANCES = ("Coq.Reals.Rdefinitions.R0", "Coq.Reals.Rdefinitions.R1")
_MAX_INSTANTIATIONS = 64  # a given with many binders multiplies its instances; past this the probe stops


def _instantiation(nonce: str, names: Sequence[str], types: dict[str, tuple[str, ...]], qualifier: str) -> tuple[str, str]:
    """An Ltac that replaces each quantified hypothesis by instances at small values and at the Context's own
    declarations, so that `forall n : nat, n = 1` (false at 0) is found contradictory like `0 = 1`."""
    tactic = f"rf_inst_{nonce[:12]}"
    branches = []
    for typ, values in types.items():
        tries = [f"pose proof ({{H}} {v})" for v in values]
        tries += [f"try pose proof ({{H}} {qualifier}Context.{n})" for n in names]
        branches.append(f"  | forall _ : {typ}, _ => " + "; ".join(t.format(H="H") for t in tries) + "; clear H")
    one = f"Ltac {tactic}_one H :=\n  match type of H with\n" + "\n".join(branches) + "\n  end.\n"
    loop = (f"Ltac {tactic} := do {_MAX_INSTANTIATIONS} (try (match goal with H : forall _ : _, _ |- _ => "
            f"{tactic}_one H end)).\n")
    return one + loop, tactic


def audit_tail(nonce: str, hypotheses: Sequence[str], requires: Sequence[str], *, qualifier: str) -> str:
    """The vacuity probe on the givens (a bare marker when the Context assumes nothing). Loads Lia: run it last."""
    if not hypotheses:
        return mark(nonce, "probe-none")
    loads = ["Require Import Coq.micromega.Lia."]
    tactics = ["timeout 5 lia", "timeout 5 nia"]
    types = dict(_INSTANCES)
    if any(r.startswith("Coq.Reals.") for r in requires):
        loads.append("Require Import Coq.micromega.Lra.")
        tactics.append("timeout 5 lra")
        types["Coq.Reals.Rdefinitions.R"] = _R_INSTANCES
    elif any(r.startswith("Coq.QArith.") for r in requires):
        loads.append("Require Import Coq.micromega.Lqa.")
        tactics.append("timeout 5 lra")
        types["Coq.QArith.QArith_base.Q"] = _Q_INSTANCES
    ltac, inst = _instantiation(nonce, hypotheses, types, qualifier)
    poses = "; ".join(f"pose proof @{qualifier}Context.{h} as rf_h{i}" for i, h in enumerate(hypotheses))
    probe = (f"Goal True. tryif (assert False by ({poses}; try (timeout 10 {inst}); "
             f"first [{' | '.join([*tactics, 'tauto', 'congruence'])}])) "
             f'then idtac "@@RF {nonce} vacuous" else idtac "@@RF {nonce} consistent". exact I. Qed.\n')
    return mark(nonce, "probe") + "\n".join(loads) + "\n" + ltac + probe


def marked_sections(output: str, nonce: str) -> list[tuple[str, str]]:
    """(tag, text) for each marker line carrying `nonce`; the text runs to the next marker."""
    prefix = f"@@RF {nonce} "
    sections: list[tuple[str, str]] = []
    current: list[str] | None = None
    for line in output.splitlines():
        if line.startswith(prefix):
            if current is not None:
                sections[-1] = (sections[-1][0], "\n".join(current).strip("\n"))
            sections.append((line[len(prefix):].strip(), ""))
            current = []
        elif current is not None:
            current.append(line)
    if current is not None and sections:
        sections[-1] = (sections[-1][0], "\n".join(current).strip("\n"))
    return sections


def printed_type(text: str) -> str | None:
    """The type in `Check` output (`name\\n     : type`), or None when the output is not that."""
    lines = text.strip("\n").splitlines()
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if i > 0 and stripped.startswith(": "):
            return "\n".join([stripped[2:], *lines[i + 1:]]).strip()
        if i == 0 and " : " in line and not line.startswith(" "):
            return line.split(" : ", 1)[1].strip()
    return None


def definition_body(text: str) -> str | None:
    """The body in `Print` output of a definition (`name = body\\n     : type`), or None."""
    head, sep, rest = text.strip("\n").partition(" = ")
    if not sep or head.startswith(" "):
        return None
    body: list[str] = []
    for line in rest.splitlines():
        if line.lstrip().startswith(": ") and (line.startswith(" ") or body):
            return " ".join(body).strip() or None
        body.append(line)
    return None


@dataclass
class Assumptions:
    """What `Print Assumptions` listed for one step: axiom names, and anything else (fail closed)."""

    closed: bool = False
    axioms: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


def parse_assumptions(text: str) -> Assumptions:
    """Read `Print Assumptions` output; unknown sections or lines go to `other` (the step then fails)."""
    text = text.strip("\n")
    if text.strip() == _CLOSED:
        return Assumptions(closed=True)
    out = Assumptions()
    header: str | None = None
    for line in text.splitlines():
        if not line.strip() or line.startswith((" ", "\t")):
            continue  # blank, or the indented continuation of an entry's type
        if line.endswith(":") and " " not in line.rstrip(":").strip().replace("Section Variables", "SV"):
            header = line.rstrip(":")
            continue
        name = line.split(" : ", 1)[0].strip()
        if header == "Axioms" and name and " " not in name:
            out.axioms.append(name)
        else:
            out.other.append(line.strip()[:200])
    if not out.axioms and not out.other:
        out.other.append(text.strip()[:200] or "(no output)")
    return out
