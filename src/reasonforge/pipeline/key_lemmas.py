"""The key lemmas of the standard level for mathematics (DESIGN §3.3): after SymPy has checked a chain's steps, the
symbolic claims of the steps it did not refute are proved as Coq lemmas, and each such step's artifact is checked
again with the claims Coq proved.

`translate.key_lemmas` writes the lemmas from the texts alone (which claims, which hypotheses: its docstring).
Coq is asked about a lemma when SymPy left its claim undecided (Coq may settle it, and the step with it) or, in a
step SymPy verified, when SymPy verified the claim as an identity (Coq proves it again, for all values); a claim
SymPy decided from particular values, by solving the givens or as a definition of fresh names, says nothing for
all values and is left to SymPy. `verify.coq.CoqChecker.prove`
compiles all of a chain's lemmas in one sandboxed run, under the artifact rules and `Print Assumptions` audit of
the formal level's theorems: one file per step for the undecided claims and one for the identities, so one audit
covers a file, and a claim Coq cannot prove costs only its own file. `ArithmeticChecker.check(proven=...)`
re-checks a step with the claims Coq proved.

What a Coq proof may change, and what it may not:
- a claim SymPy left undecided (unsupported) becomes verified (`how: coq-lemma`), and with it, when nothing else
  was undecided, the step; what SymPy verified, refuted, or could not run on stands (a step SymPy refuted or could
  not check is not sent to Coq at all), and the re-checked outcome goes through the soundness gate like any other;
- a lemma Coq does not prove (false, beyond its tactics, over its time limit, coqc or the sandbox missing) refutes
  nothing: unprovable is not false, so the step keeps SymPy's outcome and its details say "not proved in Coq" and
  why (a timeout says so);
- the time is bounded: at most `MAX_PER_CHAIN` lemmas a chain, each Coq command within `TIMEOUT_S` and each slow
  tactic within `translate.key_lemmas.TACTIC_TIMEOUT_S`.
What a verified step rests on says which checker proved each relation (`Evidence.proofs`): `coq`, with the lemma
and the tactic that closed it, or `sympy`, with how SymPy decided it.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reasonforge.errors import ReasonForgeError
from reasonforge.translate.key_lemmas import TACTIC_MARK, KeyLemma, LemmaFile, key_lemmas, lemma_file
from reasonforge.types import (
    CheckLimits,
    CheckOutcome,
    ProvedBy,
    RelationProof,
    Spec,
    StepContext,
    StepStatus,
)
from reasonforge.verify.coq import CoqChecker, LemmaRun
from reasonforge.verify.math import PROVEN_ELSEWHERE, ArithmeticChecker, parse_artifact

__all__ = ["MAX_PER_CHAIN", "TIMEOUT_S", "KeyLemmaResult", "StepLemmas", "prove_key_lemmas", "with_proofs"]

log = logging.getLogger(__name__)

MAX_PER_CHAIN = 24
TIMEOUT_S = 10.0
"""The longest one Coq command (a lemma's proof) may take, below the request's own check limit."""
_SENT = (StepStatus.VERIFIED, StepStatus.UNSUPPORTED)  # what SymPy concluded of a step Coq may add to
_IDENTITY = "identity"  # SymPy's `how` for a relation that holds for every value of its unknowns
_AT_LINE = re.compile(r"^line (\d+)\b")


@dataclass(frozen=True)
class KeyLemmaResult:
    """One lemma and what Coq made of it: proved (with the tactic that closed it) or why not."""

    lemma: KeyLemma
    proved: bool
    tactic: str | None = None
    message: str | None = None
    timed_out: bool = False
    compile_ms: int | None = None

    def record(self) -> dict[str, Any]:
        """The diagnostics a step's details keep of it."""
        out: dict[str, Any] = {"relation": self.lemma.relation, "lemma": self.lemma.declaration,
                               "hypotheses": list(self.lemma.hypotheses), "proved": self.proved}
        if self.proved:
            out["tactic"] = self.tactic
        else:
            out["message"] = f"not proved in Coq: {self.message or 'no reason given'}"
            if self.timed_out:
                out["timed_out"] = True
        if self.compile_ms is not None:
            out["file_compile_ms"] = self.compile_ms
        return out


@dataclass(frozen=True)
class StepLemmas:
    """A step's key lemmas after Coq: its outcome re-checked with what Coq proved, each lemma's result, the claims
    that got no lemma and why, and the prover's spec."""

    outcome: CheckOutcome
    results: tuple[KeyLemmaResult, ...] = ()
    skipped: tuple[str, ...] = ()
    prover: Spec | None = None

    @property
    def proved(self) -> dict[str, KeyLemmaResult]:
        """The lemmas Coq proved, by the relation each states (`_proved`)."""
        return _proved(self.results)


def _proved(results: Sequence[KeyLemmaResult]) -> dict[str, KeyLemmaResult]:
    """The relations Coq proved, each with its (first) lemma: a relation the step states twice is proved only when
    each of its lemmas is (the second may have the first as a hypothesis)."""
    out: dict[str, KeyLemmaResult] = {}
    failed = {r.lemma.relation for r in results if not r.proved}
    for result in results:
        if result.proved and result.lemma.relation not in failed:
            out.setdefault(result.lemma.relation, result)
    return out


def prove_key_lemmas(steps: Mapping[int, tuple[StepContext, str, CheckOutcome]], checker: ArithmeticChecker,
                     limits: CheckLimits, prover: CoqChecker | None = None,
                     gate: Callable[[int, CheckOutcome], CheckOutcome] | None = None) -> dict[int, StepLemmas]:
    """For each step (its context, its `sympy` artifact and SymPy's outcome on it), the outcome once its key lemmas
    are proved; steps with no lemma to prove are left out. `gate(step id, outcome)`, the soundness gate, spares Coq
    the lemmas of a step that would stay unverified even were they all proved (the step's prose says more than its
    relations, say)."""
    written: dict[int, tuple[list[KeyLemma], list[str]]] = {}
    groups: dict[int, dict[str, str]] = {}
    budget = MAX_PER_CHAIN
    for sid, (context, artifact, outcome) in steps.items():
        if outcome.status not in _SENT:
            continue
        try:
            lemmas = key_lemmas(context)
        except Exception as exc:  # a reader bug costs this step its lemmas, never its verdict
            log.exception("key lemmas of step %s could not be written", sid)
            written[sid] = ([], [f"the key lemmas could not be written: {type(exc).__name__}: {exc}"])
            continue
        groups[sid] = wanted = _wanted(artifact, outcome)
        chosen = [lemma for lemma in lemmas.lemmas if lemma.relation in wanted]
        skipped = list(lemmas.skipped)
        if chosen and outcome.status is StepStatus.UNSUPPORTED and gate is not None \
                and (futile := _futile(checker, context, artifact, chosen, limits, functools.partial(gate, sid))):
            skipped.append(f"not sent to Coq: {futile}")
            chosen = []
        if len(chosen) > budget:  # a step with some of its lemmas only could not change, and would say less
            skipped.append(f"not sent to Coq: the chain's first steps took its {MAX_PER_CHAIN} key lemmas")
            chosen = []
        kept = chosen
        budget -= len(kept)
        if kept or skipped:
            written[sid] = (kept, skipped)
    if not written:
        return {}
    prover = prover or CoqChecker()
    results = _prove(prover, {sid: (kept, groups.get(sid, {})) for sid, (kept, _) in written.items()}, limits)
    out: dict[int, StepLemmas] = {}
    for sid, (kept, skipped) in written.items():
        context, artifact, outcome = steps[sid]
        mine = tuple(results[id(lemma)] for lemma in kept)
        upgraded = _rechecked(checker, context, artifact, outcome, mine, limits)
        details: dict[str, Any] = {"key_lemmas": [r.record() for r in mine]}
        if skipped:
            details["key_lemmas_skipped"] = skipped
        out[sid] = StepLemmas(upgraded.model_copy(update={"details": {**upgraded.details, **details}}), mine,
                              tuple(skipped), prover.spec if mine else None)
    return out


def _futile(checker: ArithmeticChecker, context: StepContext, artifact: str, lemmas: list[KeyLemma],
            limits: CheckLimits, gate: Callable[[CheckOutcome], CheckOutcome]) -> str | None:
    """Why the step would stay unverified even with every one of `lemmas` proved, or None when it would not."""
    relations = {lemma.relation for lemma in lemmas}
    lines = [line.number for line in parse_artifact(artifact) if line.kind == "claim" and line.relation in relations]
    supposed = checker.check(artifact, level=context.proof_level, limits=limits, context=context, proven=lines)
    if supposed.status is not StepStatus.VERIFIED:
        return f"with its lemmas proved, SymPy would still find it {supposed.status.value} ({supposed.message})"
    gated = gate(supposed)
    if gated.status is not StepStatus.VERIFIED:
        return f"with its lemmas proved, the step would still be {gated.status.value} ({gated.message})"
    return None


def _wanted(artifact: str, outcome: CheckOutcome) -> dict[str, str]:
    """The artifact's claims Coq is asked about, by relation: those SymPy left undecided ("open"), and in a step it
    verified, those it verified as identities ("identity"); not those it decided from particular values (module
    docstring). In a step SymPy left undecided only the undecided claims can change its outcome."""
    verified = outcome.status is StepStatus.VERIFIED
    numbers = {line.number: line.relation for line in parse_artifact(artifact) if line.kind == "claim"}
    out: dict[str, str] = {}
    for entry in outcome.details.get("relations", []):
        if not isinstance(entry, dict) or entry.get("line") not in numbers:
            continue
        relation = numbers[entry["line"]]
        if entry.get("verdict") == StepStatus.UNSUPPORTED.value:
            out[relation] = "open"
        elif verified and entry.get("verdict") == StepStatus.VERIFIED.value and entry.get("how") == _IDENTITY:
            out.setdefault(relation, _IDENTITY)
    return out


def _prove(prover: CoqChecker, chosen: Mapping[int, tuple[list[KeyLemma], dict[str, str]]],
           limits: CheckLimits) -> dict[int, KeyLemmaResult]:
    """Every lemma's result, by `id` of the lemma: one file per step, group (open or identity) and number domain,
    all compiled in one run. A prover that cannot run proves none of them (and refutes none)."""
    files: list[tuple[LemmaFile, list[KeyLemma]]] = []
    for lemmas, groups in chosen.values():
        grouped: dict[tuple[str, str], list[KeyLemma]] = {}
        for lemma in lemmas:
            grouped.setdefault((groups.get(lemma.relation, "open"), lemma.domain), []).append(lemma)
        files += [(lemma_file(group), group) for group in grouped.values()]
    bounded = CheckLimits(timeout_s=min(limits.timeout_s, TIMEOUT_S), memory_mb=limits.memory_mb)
    why = "the prover returned no result for it"
    runs: dict[int, LemmaRun] = {}
    try:
        runs = prover.prove({k: file.text for k, (file, _) in enumerate(files, start=1)}, limits=bounded)
    except ReasonForgeError as exc:
        why = exc.message
    except Exception as exc:  # a prover bug must cost the lemmas, not the verdict
        log.exception("the key lemmas' prover crashed")
        why = f"the prover crashed: {type(exc).__name__}: {exc}"
    out: dict[int, KeyLemmaResult] = {}
    for k, (file, lemmas) in enumerate(files, start=1):
        run = runs.get(k, LemmaRun(False, why))
        out.update({id(lemma): result for lemma, result in zip(lemmas, _per_lemma(file, lemmas, run), strict=True)})
    return out


def _per_lemma(file: LemmaFile, lemmas: list[KeyLemma], run: LemmaRun) -> list[KeyLemmaResult]:
    """What one file's run says of each of its lemmas: all proved, or the one Coq stopped at and why (a file stops
    at its first error, so the others are not proved either)."""
    if run.proved:
        said = dict(line.split(TACTIC_MARK, 1)[1].strip().split(": ", 1) for line in run.output.splitlines()
                    if TACTIC_MARK in line and ": " in line.split(TACTIC_MARK, 1)[1])
        return [KeyLemmaResult(lemma, True, tactic=said.get(lemma.name), compile_ms=run.elapsed_ms) for lemma in lemmas]
    at = _AT_LINE.match(run.message or "")
    failed = file.lemma_at(int(at.group(1))) if at else None
    out = []
    for lemma in lemmas:
        if failed is None or lemma.name == failed:
            message = run.message
        else:
            message = f"it shares a file with {failed}, which Coq did not prove, so it was not audited"
        out.append(KeyLemmaResult(lemma, False, message=message, timed_out=run.timed_out, compile_ms=run.elapsed_ms))
    return out


def _rechecked(checker: ArithmeticChecker, context: StepContext, artifact: str, outcome: CheckOutcome,
               results: tuple[KeyLemmaResult, ...], limits: CheckLimits) -> CheckOutcome:
    """SymPy's outcome again, with the artifact's claims Coq proved given as proven (only an undecided claim gains:
    `ArithmeticChecker`'s rule 4); SymPy's first outcome when nothing can gain or the re-check did not finish."""
    proved = set(_proved(results))
    if outcome.status is not StepStatus.UNSUPPORTED or not proved:
        return outcome
    lines = [line.number for line in parse_artifact(artifact) if line.kind == "claim" and line.relation in proved]
    if not lines:
        return outcome
    again = checker.check(artifact, level=context.proof_level, limits=limits, context=context, proven=lines)
    if again.status not in _SENT:
        return outcome.model_copy(update={"details": {
            **outcome.details, "key_lemmas_recheck": f"the re-check with Coq's lemmas ended {again.status.value}: "
                                                     f"{again.message}; SymPy's first outcome stands"}})
    return again


def with_proofs(outcome: CheckOutcome, lemmas: StepLemmas | None) -> CheckOutcome:
    """A verified outcome's evidence with, per relation the step asserts, which checker proved it (the note says
    which relations Coq proved); any other outcome as it is."""
    evidence = outcome.evidence
    if outcome.status is not StepStatus.VERIFIED or evidence is None:
        return outcome
    proved = lemmas.proved if lemmas is not None else {}
    proofs = []
    for entry in outcome.details.get("relations", []):
        if not isinstance(entry, dict) or entry.get("kind") not in ("claim", "define") \
                or entry.get("verdict") != StepStatus.VERIFIED.value:
            continue
        relation, how = str(entry.get("relation", "")), entry.get("how")
        sympy_how = None if how == PROVEN_ELSEWHERE else (str(how) if how else None)
        result = proved.get(relation) if entry.get("kind") == "claim" else None
        if result is not None:
            proofs.append(RelationProof(relation=relation, proved_by=ProvedBy.COQ, sympy=sympy_how,
                                        lemma=result.lemma.declaration, tactic=result.tactic))
        else:
            proofs.append(RelationProof(relation=relation, proved_by=ProvedBy.SYMPY, sympy=sympy_how))
    coq = [(p, proved[p.relation].lemma.name) for p in proofs if p.proved_by is ProvedBy.COQ]
    note = evidence.note
    if coq:
        said = "proved as Coq lemmas: " + "; ".join(f"{p.relation} ({name}, by {p.tactic or 'its proof script'})"
                                                    for p, name in coq)
        if only := [p.relation for p, _ in coq if p.sympy is None]:
            said += f" (SymPy left undecided: {'; '.join(only)})"
        note = f"{note}; {said}" if note else said
    return outcome.with_evidence(evidence.model_copy(update={"proofs": proofs, "note": note}))
