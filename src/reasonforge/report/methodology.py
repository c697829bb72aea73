"""How one verdict was checked, in words, written from what ran for it: the checkers named on its steps (their
specs), the tools each ran (its details: which solvers answered, how many mutants ran), who formalised the claims,
and the statuses it has. Nothing here describes a tool or a level that did not judge one of its steps: a maths
verdict read by SymPy alone says nothing about Coq, a logic verdict at standard nothing about cvc5."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reasonforge.types import Formaliser, ProofLevel, ProvedBy, StepStatus, StepVerdict, VerificationVerdict

__all__ = ["TOOL_NAMES", "Paragraph", "methodology", "tools_ran"]

TOOL_NAMES = {"z3": "Z3", "cvc5": "cvc5", "sympy": "SymPy"}
"""Spec arguments that are the version of a tool a checker runs, and the tool's name."""
_SOLVERS = ("z3", "cvc5")  # the logic checkers record which of these answered (`details["solver"]`)

_STATUS_TEXT = {
    StepStatus.VERIFIED: "proven, as formalised, from the question's givens and the steps it uses",
    StepStatus.FAILED: "refuted by its checker: false as formalised (the counterexample or failing test is shown)",
    StepStatus.INVALIDATED: "it uses a refuted step, so it is not established whatever its own check said",
    StepStatus.UNSUPPORTED: "nothing provable could be read from it, or independent translations of it "
                            "disagreed: not proven either way",
    StepStatus.ERROR: "its checker could not finish (a time or memory limit, a missing tool): this says nothing "
                      "about the claim",
}
# What each of the project's translators is, for a reader (a model translator's spec names its model).
_TRANSLATORS = {
    "math-rules": "the rules (no model), which read the relations a step's text states",
    "math-coq-rules": "the rules (no model), which state a step's claim as a Coq theorem",
    "rule-based-logic": "the rules (no model), which read a step's premises and conclusion as first-order logic",
    "code_blocks": "the rules (no model), which put together a step's code blocks, the code of the steps it uses "
                   "and the examples written in the texts",
    "llm-translator": "a model",
    "ensemble": "several translators, each checked on its own, whose results were then agreed per step",
}
_FORMALISED = {
    Formaliser.OFFLINE_READER: "read from the step's own text by the rules (no model)",
    Formaliser.ARTIFACT: "the step's formal artifact, accepted only where it states what the rules read in the "
                         "step's text",
    Formaliser.QUESTION_MODEL: "independent formalisations of the question, written by a model that never saw the "
                               "reasoning",
    Formaliser.EXAMPLE_WRITER: "examples a model wrote from the texts without seeing the implementation",
}


@dataclass(frozen=True)
class Paragraph:
    """One heading and its text (a line break in it starts a new line)."""

    heading: str
    text: str


def _version(step: StepVerdict, key: str) -> str:
    spec = step.checker_spec
    value = spec.args.get(key) if spec is not None else None
    return f" {value}" if isinstance(value, (str, int, float)) else ""


def _solvers(step: StepVerdict) -> list[str]:
    """The solvers that answered for a logic step (none when it was not decided: a parse error, quick level)."""
    answered = step.details.get("solver")
    return [s for s in _SOLVERS if isinstance(answered, Mapping) and s in answered]


def tools_ran(step: StepVerdict) -> tuple[str, ...]:
    """The tools (with versions) that ran for `step`: a logic checker's solvers only when they answered, Coq when it
    proved a key lemma of the step."""
    spec = step.checker_spec
    if spec is None:
        return ()
    solvers = _solvers(step)
    ran = tuple(f"{name}{_version(step, key)}" for key, name in TOOL_NAMES.items()
                if key in spec.args and (key not in _SOLVERS or key in solvers))
    # the standard level's key lemmas: Coq ran for this step when it proved one of its relations
    coq = step.evidence is not None and any(p.proved_by is ProvedBy.COQ for p in step.evidence.proofs)
    return (*ran, "Coq") if coq else ran


def _steps(ids: Sequence[int]) -> str:
    return ("step " if len(ids) == 1 else "steps ") + ", ".join(map(str, ids))


def _numbers(steps: Sequence[StepVerdict], key: str) -> list[Any]:
    return [s.details[key] for s in steps if isinstance(s.details.get(key), (int, float))]


def _logic(steps: Sequence[StepVerdict], level: ProofLevel) -> str:
    solvers = {solver: _version(step, solver) for step in steps for solver in _solvers(step)}
    if not solvers:
        return ("No solver decided these steps (see each step's message: the artifact did not parse, or the "
                f"{level.value} level does not check this kind of artifact).")
    text = (f"Z3{solvers['z3']} decided whether each step's conclusion follows from its premises: the premises "
            "must be satisfiable together and the conclusion's negation unsatisfiable with them."
            if "z3" in solvers else "")
    if "cvc5" in solvers:
        text += f" cvc5{solvers['cvc5']} decided the same question independently, and the two had to agree."
    if any("proof" in s.details for s in steps):
        text += " Z3's proof of each entailment was kept with the step."
    return text.strip()


def _python(steps: Sequence[StepVerdict], level: ProofLevel) -> str:
    text = ("Each step's artifact (its implementation with the tests and examples of the steps it uses) ran in a "
            "sandbox: its pytest tests")
    if any("property_profile" in s.details for s in steps):
        text += ", its hypothesis properties on generated inputs"
    text += ", and the examples and claims read from the step's text and the question."
    typed = [str(s.details["type_check"]) for s in steps if isinstance(s.details.get("type_check"), str)]
    if typed:
        text += f" Type check: {typed[0]}."
    mutants = _numbers(steps, "mutants_total")
    if mutants:
        threshold = steps[0].checker_spec.args.get("mutation_threshold") if steps[0].checker_spec else None
        share = f"at least {threshold:.0%} of " if isinstance(threshold, (int, float)) else ""
        text += (f" Then {sum(mutants)} generated mutant(s) of the implementations ran against the same tests, "
                 f"which had to catch {share}those that behave differently.")
    if any("complexity_fit" in s.details for s in steps):
        text += " A complexity claim was measured on growing inputs and fitted."
    formal = [str(s.details["formal"]) for s in steps if isinstance(s.details.get("formal"), str)]
    if formal:
        text += f" Formal level: {formal[0]}."
    return text + " Tests show behaviour on the inputs tried, not on every input."


def _sympy(steps: Sequence[StepVerdict], level: ProofLevel) -> str:
    text = (f"SymPy{_version(steps[0], 'sympy')} checked every relation (equation, inequality, value) the step's "
            "text states, exactly, under the values the steps before it bound.")
    asked = [s for s in steps if isinstance(s.details.get("key_lemmas"), list) and s.details["key_lemmas"]]
    if asked:
        proved = sorted({s.step_id for s in steps if s.evidence is not None
                         and any(p.proved_by is ProvedBy.COQ for p in s.evidence.proofs)})
        text += (f" Then the symbolic claims of {_steps([s.step_id for s in asked])} (identities SymPy verified, and "
                 "claims it left undecided) were each stated as a Coq lemma from the question's givens and the "
                 "claims of the steps it uses only, and proved in a sandbox with a bounded tactic script; a lemma "
                 "Coq did not prove refutes nothing, and SymPy's own verdicts stand. ")
        text += (f"Coq proved lemmas of {_steps(proved)}: each relation's 'Proved by' line names the lemma and the "
                 "tactic, or SymPy." if proved else "Coq proved none of them.")
    return text + (" This establishes the arithmetic and algebra the text writes out, not that the prose around a "
                   "relation means what the relation says.")


def _prover(name: str) -> Any:
    def describe(steps: Sequence[StepVerdict], level: ProofLevel) -> str:
        return (f"{name} compiled each step as a theorem whose statement was matched to the step's text, proven from "
                "the question's givens and the steps it uses; a proof that admits a goal or adds an axiom was "
                "refused.")

    return describe


_CHECKERS = {
    "sympy-relations": _sympy,
    "python_tests": _python,
    "coq": _prover("Coq"),
    "lean4": _prover("Lean 4"),
    "reasonforge.fol": _logic,
    "reasonforge.smtlib": _logic,
    "reasonforge.propositional": _logic,
}


def methodology(verdict: VerificationVerdict, steps: Sequence[StepVerdict]) -> list[Paragraph]:
    """What the page and the report say about how `verdict` was checked, from its `steps` (in chain order)."""
    level = verdict.proof_level
    out = [Paragraph("What a step's verdict means", (
        f"This {verdict.domain.value} chain was checked at the {level.value} level. Each step's claim was put in a "
        "formal language and checked by the checker named on the step; a step is verified only when its claim, as "
        "formalised, was proven from the question's givens and the claims of the steps it uses. The 'Claim as "
        "formalised' and 'Evidence' lines of each step say what exactly was proven and who formalised it."))]
    by_checker: dict[str, list[StepVerdict]] = {}
    for step in steps:
        if step.checker_spec is not None:
            by_checker.setdefault(step.checker_spec.display_name, []).append(step)
    for name, judged in by_checker.items():
        spec = judged[0].checker_spec
        assert spec is not None  # grouped by it
        describe = _CHECKERS.get(spec.name)
        text = describe(judged, level) if describe is not None else (
            "This checker checked each step's formal artifact; its message on each step says what it found.")
        out.append(Paragraph(f"{name} ({_steps([s.step_id for s in judged])})", text))
    unchecked = [s.step_id for s in steps if s.checker_spec is None]
    if unchecked:
        out.append(Paragraph(f"No checker ({_steps(unchecked)})", (
            "No checker ran on these steps: nothing checkable was read from them, or a step they use was refuted "
            "first. Their messages say which.")))
    translators = {f"{_TRANSLATORS.get(s.translator_spec.name, 'the translator')} "
                   f"({s.translator_spec.display_name})" for s in steps if s.translator_spec is not None}
    formalisers = list(dict.fromkeys(s.evidence.formaliser for s in steps if s.evidence is not None))
    if translators or formalisers:
        said = []
        if translators:
            said.append(f"The formal artifacts were written by {'; and by '.join(sorted(translators))}.")
        elif any(s.formal_representation for s in steps):
            said.append("The formal artifacts were supplied with the request.")
        said += [f"Claims were {_FORMALISED[f]}." for f in formalisers if f in _FORMALISED]
        out.append(Paragraph("Who formalised the claims", " ".join(said)))
    statuses = list(dict.fromkeys(s.status for s in steps))
    said = [f"{status.value} — {_STATUS_TEXT[status]}." for status in statuses if status in _STATUS_TEXT]
    assumed = [s.step_id for s in steps if s.evidence is not None and s.evidence.assumptions]
    if assumed:
        one = len(assumed) == 1
        said.append(f"Verified {_steps(assumed)} {'rests' if one else 'rest'} on premises "
                    f"{'it assumes' if one else 'they assume'} (listed under Assumptions): valid inferences from "
                    "them, not proven true.")
    out.append(Paragraph("The statuses in this verdict", "\n".join(said)))  # a line each
    out.append(Paragraph("What this does not establish", (
        "That the question itself is stated correctly, that a step's formalisation is the only reasonable reading "
        "of its prose, or anything about a step that is not verified beyond what its message says.")))
    return out
