"""What a Coq artifact may contain: the anti-gaming rules checked on the lexed text before compiling.

A pass must mean the step's theorem is proved from the Context (the givens) and the ancestor steps
with nothing assumed on the side. So an artifact may not leave a proof unfinished (`Admitted`,
`admit`, `give_up`, `Abort`, `Admit Obligations`), may not assume anything (`Axiom`, `Parameter`,
`Conjecture`, `Variable`, `Hypothesis` and their plurals, the section `Context` command; only the
Context file declares givens), may not reach outside the workspace (`Load`, `Declare ML Module`,
`Add LoadPath`, `Cd`, `Redirect`, extraction, `Require` of anything but the standard library), may
not switch the kernel's checks off (`Unset Guard/Positivity/Universe Checking`,
`#[bypass_check(...)]`), may not change what a statement means (`Notation`, `Infix`,
`Number Notation`, `Bind Scope`, `Delimit Scope`, `Primitive`, `Register`), may not trust compiled code
(`native_compute`), may not set time limits or global options (`Timeout`, `Default Timeout`,
`Global Set`), may not open modules
(which could shadow the Context's names; the workspace makes the modules), may not export options
to the steps that import it (`Export Set`), and may not replay the document (`Reset`, `Back`, `Drop`,
`Quit`). Words are matched as whole identifier tokens (or the last component of a qualified one), so a
keyword in a comment or a string is ignored and one hidden by odd spacing is still a different token
to Coq. `Print Assumptions`, run by the checker on every theorem afterwards, catches what slips past
these rules (it lists every axiom a proof depends on, however it got there).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reasonforge.verify.coq.lex import Sentence, Token, sentences

__all__ = [
    "ASSUMPTION_COMMANDS",
    "THEOREM_COMMANDS",
    "ArtifactFacts",
    "PolicyViolation",
    "inspect_artifact",
    "stdlib_modules",
]

THEOREM_COMMANDS = frozenset({"Theorem", "Lemma", "Fact", "Remark", "Corollary", "Proposition", "Example",
                              "Property"})
ASSUMPTION_COMMANDS = frozenset({"Axiom", "Axioms", "Parameter", "Parameters", "Conjecture", "Conjectures",
                                 "Variable", "Variables", "Hypothesis", "Hypotheses"})
_DEFINITION_COMMANDS = frozenset({"Definition", "Let", "Fixpoint", "CoFixpoint", "Function", "Instance",
                                  "Inductive", "CoInductive", "Variant", "Record", "Structure", "Class",
                                  "Ltac", "Canonical", "Coercion", "SubClass"})

# Forbidden wherever they occur as an identifier (never legitimate in a finished, self-contained proof).
_ANYWHERE = {
    "Admitted": "`Admitted` leaves the theorem unproved; finish the proof and close it with `Qed`",
    "admit": "the `admit` tactic leaves a goal unproved; prove it",
    "give_up": "the `give_up` tactic leaves a goal unproved; prove it",
    "Abort": "`Abort` discards the proof; state only theorems you prove",
    "Admit": "`Admit Obligations` assumes the obligations; solve them",
    "Load": "`Load` reads another file; put everything the step needs in its artifact",
    "Declare": "`Declare ...` (ML modules, modules, scopes, entries) is not allowed in an artifact",
    "Drop": "`Drop` leaves the Coq toplevel",
    "Quit": "`Quit` stops Coq",
    "Reset": "`Reset` replays the document; the checker alone controls the document",
    "Back": "`Back` replays the document; the checker alone controls the document",
    "BackTo": "`BackTo` replays the document; the checker alone controls the document",
    "Redirect": "`Redirect` writes files",
    "Extraction": "extraction writes files and is not needed to prove a theorem",
    "Extract": "extraction directives are not needed to prove a theorem",
    "Primitive": "`Primitive` binds kernel primitives; only the standard library may do that",
    "Register": "`Register` binds kernel primitives; only the standard library may do that",
    "Notation": "notations can change what a statement means; write the statement with the standard ones",
    "Infix": "notations can change what a statement means; write the statement with the standard ones",
    "Module": "modules are made by the checker (one per step); an artifact may not open its own",
    "Include": "`Include` copies a module; modules are made by the checker",
    "Checking": "switching kernel checks (guard, positivity, universes) off is not allowed",
    "bypass_check": "`#[bypass_check(...)]` switches kernel checks off",
    "LoadPath": "the load path is fixed by the checker",
    "ML": "ML plugins and paths are fixed by the checker",
    # Native compilation puts the OCaml compiler in the trusted base (Coq's `native_decide`); the kernel's
    # own `vm_compute` does the same job inside it.
    "native_compute": "`native_compute` trusts compiled code; use `vm_compute`",
    "native_cast_no_check": "`native_cast_no_check` trusts compiled code; use `vm_compute`",
}
# Forbidden as the command of a sentence (these words are harmless elsewhere).
_AS_COMMAND = {
    "Context": "the section `Context` command assumes variables; only the Context file (step 0) declares givens",
    "Cd": "`Cd` changes Coq's directory",
    "Bind": "`Bind Scope` changes how numerals and notations are read",
    "Delimit": "`Delimit Scope` changes how numerals and notations are read",
    "Restore": "`Restore State` replaces the whole environment",
    "Write": "`Write State` writes files",
}
_SECTION_LOCAL = frozenset({"Variable", "Variables", "Hypothesis", "Hypotheses"})
_MODIFIERS = frozenset({"Local", "Global", "Polymorphic", "Monomorphic", "Cumulative", "NonCumulative", "Private",
                        "Program", "Time", "Fail", "Succeed", "Instructions", "Profile"})
_DENIED_STDLIB = ("Coq.extraction.",)  # loadable only to run extraction commands, which are refused anyway


@dataclass(frozen=True)
class PolicyViolation:
    """A rule the artifact breaks, where, and how to fix it."""

    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class ArtifactFacts:
    """What the checker needs from an artifact: its theorems, the names it declares, what it requires."""

    theorems: list[str] = field(default_factory=list)
    declared: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    definitions: list[str] = field(default_factory=list)
    requires: list[str] = field(default_factory=list)
    violations: list[PolicyViolation] = field(default_factory=list)
    sentences: int = 0


@functools.cache
def stdlib_modules(coqlib: str) -> frozenset[str]:
    """Logical names (`Coq.ZArith.BinInt`) of every compiled module of the standard library under `coqlib`."""
    root = Path(coqlib) / "theories"
    names = set()
    for vo in root.rglob("*.vo"):
        parts = vo.relative_to(root).with_suffix("").parts
        names.add(".".join(("Coq", *parts)))
    return frozenset(names)


def _command(sentence: Sentence) -> tuple[int, str | None]:
    """Index and text of the sentence's command word, after bullets, braces, selectors, attributes, modifiers."""
    toks = sentence.tokens
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "sym" and t.text in "-+*{}":
            i += 1
        elif t.kind == "sym" and t.text == "#" and i + 1 < len(toks) and toks[i + 1].text == "[":
            depth, i = 0, i + 1
            while i < len(toks):
                depth += (toks[i].text == "[") - (toks[i].text == "]")
                i += 1
                if depth == 0:
                    break
        elif (t.kind in ("num", "ident") and i + 1 < len(toks) and toks[i + 1].text == ":"
              and (t.kind == "num" or t.text == "all") and (i + 2 >= len(toks) or toks[i + 2].text != "=")):
            i += 2  # goal selector `1:` / `all:`
        elif t.kind == "ident" and t.text in _MODIFIERS:
            i += 1
        elif t.kind == "ident" and t.text == "Timeout" and i + 1 < len(toks) and toks[i + 1].kind == "num":
            i += 2
        elif t.kind == "ident":
            return i, t.text
        else:
            return i, None
    return i, None


def _names_after(toks: Sequence[Token], start: int) -> list[str]:
    """Declared names after an assumption command: `x y : T` or `(x y : T) (z : U)`."""
    names: list[str] = []
    i = start
    if i < len(toks) and toks[i].text == "(":
        depth = 0
        group_open = False
        for t in toks[i:]:
            if t.text == "(":
                depth += 1
                group_open = depth == 1
                continue
            if t.text == ")":
                depth -= 1
                continue
            if depth == 1 and group_open:
                if t.text == ":":
                    group_open = False
                elif t.kind == "ident":
                    names.append(t.text)
        return names
    for t in toks[i:]:
        if t.text in (":", ":="):
            break
        if t.kind == "ident":
            names.append(t.text)
    return names


def _constructors(toks: Sequence[Token], start: int) -> list[str]:
    """Constructor (and record field) names of an inductive: idents right after `|`, `:=` or `{`, `;`."""
    out = []
    for k in range(start, len(toks) - 1):
        if toks[k].text in ("|", "{", ";") or (toks[k].text == ":" and k + 1 < len(toks) and toks[k + 1].text == "="):
            nxt = toks[k + 2] if toks[k].text == ":" else toks[k + 1]
            if nxt.kind == "ident":
                out.append(nxt.text)
    return out


def _resolve_require(names: Iterable[str], prefix: str | None, stdlib: frozenset[str]) -> list[tuple[str, str | None]]:
    """Each required name with its resolved standard-library module, or None when it is not one."""
    out = []
    for name in names:
        full = f"{prefix}.{name}" if prefix else name
        if prefix is not None and not (prefix == "Coq" or prefix.startswith("Coq.")):
            hits: list[str] = []
        elif prefix is not None:  # `From P Require Q`: a module under P whose path ends with Q
            hits = sorted(m for m in stdlib if m.startswith(prefix + ".") and (m == full or m.endswith("." + name)))
        else:
            hits = sorted(m for m in stdlib if m == name or m.endswith("." + name))
        hits = [h for h in hits if not h.startswith(_DENIED_STDLIB)]
        out.append((full, hits[0] if len(hits) >= 1 else None))
    return out


def _check_require(toks: Sequence[Token], at: int, stdlib: frozenset[str], facts: ArtifactFacts) -> None:
    prefix = None
    if toks[at].text == "From":
        if at + 2 >= len(toks) or toks[at + 1].kind != "ident" or toks[at + 2].text != "Require":
            facts.violations.append(PolicyViolation(toks[at].line, toks[at].column,
                                                    "malformed `From ... Require`; write `From Coq Require Import X.`"))
            return
        prefix, at = toks[at + 1].text, at + 2
    names, depth = [], 0
    for t in toks[at + 1:]:
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        elif depth == 0 and t.kind == "ident" and t.text not in ("Import", "Export"):
            names.append(t.text)
    if not names:
        facts.violations.append(PolicyViolation(toks[at].line, toks[at].column, "`Require` names no library"))
    for full, module in _resolve_require(names, prefix, stdlib):
        if module is None:
            facts.violations.append(PolicyViolation(
                toks[at].line, toks[at].column,
                f"`Require` of '{full}' is not allowed: only standard-library modules may be required (e.g. "
                "`From Coq Require Import ZArith Lia.`); the Context and the ancestor steps are imported for you"))
        else:
            facts.requires.append(module)


def _check_sections(sents: Sequence[Sentence], facts: ArtifactFacts) -> None:
    """Sections must open and close inside the artifact, so the checker's own module ends where it should."""
    opened: list[str] = []
    for s in sents:
        at, cmd = _command(s)
        toks = s.tokens
        name = toks[at + 1].text if at + 1 < len(toks) and toks[at + 1].kind == "ident" else ""
        if cmd == "Section":
            opened.append(name)
        elif cmd == "End":
            if not opened or opened[-1] != name:
                what = f"section '{opened[-1]}' is open" if opened else "no section is open"
                facts.violations.append(PolicyViolation(s.line, toks[at].column,
                                                        f"`End {name}` does not close a section of this artifact "
                                                        f"({what})"))
                return
            opened.pop()
    if opened:
        facts.violations.append(PolicyViolation(sents[-1].line if sents else 1, 1,
                                                f"section '{opened[-1]}' is never closed; add `End {opened[-1]}.`"))


def inspect_artifact(text: str, *, stdlib: frozenset[str], allow_assumptions: bool = False) -> ArtifactFacts:
    """Lex `text` and apply the rules (`allow_assumptions` only for the Context): facts and violations."""
    facts = ArtifactFacts()
    sents = sentences(text)  # CoqLexError propagates: the caller reports it with its line
    facts.sentences = len(sents)
    depth = 0  # open sections
    for s in sents:
        toks = s.tokens
        for t in toks:
            if t.kind != "ident":
                continue
            for word in {t.text, t.last}:
                if word in _ANYWHERE:
                    facts.violations.append(PolicyViolation(t.line, t.column, _ANYWHERE[word]))
                elif word in ASSUMPTION_COMMANDS and not allow_assumptions:
                    facts.violations.append(PolicyViolation(
                        t.line, t.column, f"`{word}` assumes something without proof; only the Context (step 0) "
                        "declares givens. State what the step needs as a hypothesis of its theorem, or prove it"))
        at, cmd = _command(s)
        if cmd is None:
            continue
        head = toks[at]
        depth += (cmd == "Section") - (cmd == "End" and depth > 0)
        if allow_assumptions and depth == 0 and cmd in _SECTION_LOCAL:
            facts.violations.append(PolicyViolation(
                head.line, head.column, f"`{cmd}` outside a section is local in Coq (the steps could not see it); "
                "declare the given with `Parameter` (data) or `Axiom` (a fact) instead"))
        if cmd in _AS_COMMAND:
            facts.violations.append(PolicyViolation(head.line, head.column, _AS_COMMAND[cmd]))
        before = {t.text for t in toks[:at] if t.kind == "ident"}
        if "Timeout" in before:
            facts.violations.append(PolicyViolation(head.line, head.column, "the `Timeout` command prefix is not "
                                                    "allowed: the checker sets every time limit"))
        if cmd in ("Set", "Unset"):
            option = [t.text for t in toks[at + 1:at + 3]]
            if before & {"Global", "global", "export"}:
                facts.violations.append(PolicyViolation(head.line, head.column, "global or exported options would "
                                                        "change how other steps compile; use a plain `Set`"))
            if option == ["Default", "Timeout"]:
                facts.violations.append(PolicyViolation(head.line, head.column, "`Default Timeout` is set by the "
                                                        "checker; an artifact may not change it"))
        if cmd == "Export" and at + 1 < len(toks) and toks[at + 1].text in ("Set", "Unset"):
            facts.violations.append(PolicyViolation(head.line, head.column,
                                                    "`Export Set/Unset` changes options in every step importing "
                                                    "this one; use a plain (file-local) `Set`"))
        if cmd in ("Require", "From"):
            _check_require(toks, at, stdlib, facts)
        name = toks[at + 1].text if at + 1 < len(toks) and toks[at + 1].kind == "ident" else None
        if cmd in THEOREM_COMMANDS and name:
            facts.theorems.append(name)
            facts.declared.append(name)
        elif cmd in ASSUMPTION_COMMANDS:
            names = _names_after(toks, at + 1)
            facts.assumptions.extend(names)
            facts.declared.extend(names)
        elif cmd in _DEFINITION_COMMANDS and name:
            facts.declared.append(name)
            if cmd == "Definition":  # `Let` vanishes when its section closes: not a lasting name
                facts.definitions.append(name)
            if cmd in ("Inductive", "CoInductive", "Variant", "Record", "Structure", "Class"):
                facts.declared.extend(_constructors(toks, at + 2))
    _check_sections(sents, facts)
    # One report per place: the same token can trip a rule through its whole and its last component.
    seen: set[tuple[int, int, str]] = set()
    unique = []
    for v in facts.violations:
        key = (v.line, v.column, v.message)
        if key not in seen:
            seen.add(key)
            unique.append(v)
    facts.violations = unique
    return facts
