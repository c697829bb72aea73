"""The `fol` and `smtlib` checkers (Z3 in process; Z3 + cvc5 at formal level) and the FOL entailment API.

Levels: quick → `unsupported` (FOL needs standard or formal); standard → Z3; formal → Z3 with a proof
object AND cvc5 in a killable process, which must agree. See `entailment` for the decision itself.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from importlib import metadata
from itertools import islice, product
from typing import Any, Literal

import z3
from pydantic import BaseModel

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.logic import (
    FolParser,
    Formula,
    Signature,
    Z3Encoding,
    is_propositional,
    parse_fol_artifact,
    signature_of,
    to_smtlib,
)
from reasonforge.registry import Spec, checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    ProofLevel,
    StepContext,
    StepStatus,
)
from reasonforge.verify.logic.entailment import (
    Cvc5Input,
    EntailmentResult,
    Goal,
    Problem,
    SolverRun,
    decide,
    ms_since,
    to_result,
    z3_decide,
)
from reasonforge.verify.logic.fallacies import name_fallacy
from reasonforge.verify.logic.script import SmtScript, infer_logic, parse_smtlib_artifact

__all__ = [
    "CHECKER_VERSION", "Classification", "EntailmentChecker", "EntailmentResult", "FolChecker", "SmtLibChecker",
    "SolverRun", "check_fol", "check_smtlib", "classify", "entails", "fol_problem", "fol_status", "smtlib_problem",
]

CHECKER_VERSION = "1.0.0"
_MAX_FACTS = 200  # counterexample atoms listed before truncating


# ----------------------------------------------------------------------------------------- FOL side


class _FolEncoded:
    def __init__(self, sig: Signature, formulas: list[Formula], ctx: Any) -> None:
        self.enc = Z3Encoding(sig, ctx)
        terms = [self.enc.encode(f) for f in formulas]
        self.premises, self.conclusion = terms[:-1], terms[-1]

    def load(self, solver: Any, goal: Goal) -> None:
        solver.add(*self.premises)
        if goal != "premises":
            solver.add(z3.Not(self.conclusion) if goal == "not_c" else self.conclusion)

    def premise_terms(self) -> list[Any]:
        return self.premises

    def explain(self, model: Any) -> dict[str, Any]:
        return _fol_counterexample(model, self.enc)


def fol_problem(premises: Sequence[Formula], conclusion: Formula) -> Problem:
    """A Problem over FOL/propositional ASTs (raises ValueError on inconsistent arities)."""
    formulas = [*premises, conclusion]
    sig = signature_of(formulas)

    def cvc5_input() -> Cvc5Input:
        rendering = to_smtlib(formulas)
        script = "\n".join([rendering.declarations, *(f"(assert {t})" for t in rendering.terms[:-1])])
        # Uninterpreted sorts only: finite model finding lets cvc5 answer `sat` with quantifiers
        # (it agreed with Z3 on all 264 FOLIO checks of the shared validation rows).
        options = {"finite-model-find": "true"} if sig.quantified else {}
        return Cvc5Input(rendering.logic, script, rendering.terms[-1], options)

    return Problem(lambda ctx: _FolEncoded(sig, formulas, ctx), cvc5_input,
                   logic=("" if sig.quantified else "QF_") + "UF", simple_solver=True)


def fol_status(formulas: Sequence[Formula], *, timeout_s: float, memory_mb: int) -> Literal["sat", "unsat", "unknown"]:
    """Whether the conjunction of `formulas` has a model (Z3 alone, a fresh context; ValueError on clashing
    arities). The soundness gate's questions (is a premise entailed, are two formulas equivalent) are all this."""
    ctx = z3.Context()
    enc = Z3Encoding(signature_of(list(formulas)), ctx)
    solver = z3.SimpleSolver(ctx=ctx)
    solver.set("timeout", max(1, int(timeout_s * 1000)))
    solver.set("max_memory", memory_mb)
    solver.add(*[enc.encode(f) for f in formulas])
    return str(solver.check())  # type: ignore[return-value]


def _fol_counterexample(model: Any, enc: Z3Encoding) -> dict[str, Any]:
    sig = enc.sig
    if is_propositional(sig):
        return {"assignment": {name: z3.is_true(model.eval(p, model_completion=True)) for name, p in enc.preds.items()}}
    universe = list(model.get_universe(enc.sort) or [])
    names = {e.sexpr(): f"e{i}" for i, e in enumerate(universe)}
    constants = {}
    for name, const in enc.consts.items():
        value = model.eval(const, model_completion=True).sexpr()
        constants[name] = names.setdefault(value, f"e{len(names)}")
    true: list[str] = []
    false: list[str] = []
    truncated = False
    for name, arity in sig.predicates.items():
        pred = enc.preds[name]
        if arity == 0:
            (true if z3.is_true(model.eval(pred, model_completion=True)) else false).append(name)
            continue
        for args in islice(product(universe, repeat=arity), _MAX_FACTS):
            fact = f"{name}({', '.join(names[a.sexpr()] for a in args)})"
            holds = z3.is_true(model.eval(enc.apply(pred, list(args)), model_completion=True))
            (true if holds else false).append(fact)
        truncated = truncated or len(universe) ** arity > _MAX_FACTS
    out: dict[str, Any] = {"domain": sorted(set(names.values()), key=lambda s: int(s[1:])), "constants": constants,
                           "true": true[:_MAX_FACTS], "false": false[:_MAX_FACTS]}
    if truncated or len(true) > _MAX_FACTS or len(false) > _MAX_FACTS:
        out["truncated"] = True
    return out


def entails(premises: Sequence[str | Formula] | str, conclusion: str | Formula, *, limits: CheckLimits | None = None,
            cross_check: bool = False, proof: bool = False, lenient: bool = False,
            counterexample: bool = True) -> EntailmentResult:
    """Does `premises ⊢ conclusion` hold? Strings are FOL text (a str of premises: one per line)."""
    parsed, goal = _parse_all(premises, conclusion, lenient)
    return decide(fol_problem(parsed, goal), limits=limits or CheckLimits(), cross_check=cross_check, proof=proof,
                  counterexample=counterexample)


class Classification(BaseModel):
    """FOLIO-style three-way answer: does the conclusion follow, does its negation, or neither."""

    label: Literal["True", "False", "Uncertain", "vacuous", "unknown"]
    conclusion: EntailmentResult  # premises ⊢ C
    negation: EntailmentResult | None = None  # premises ⊢ ¬C (skipped when the first settles it)
    elapsed_ms: float = 0.0


def classify(premises: Sequence[str | Formula], conclusion: str | Formula, *, limits: CheckLimits | None = None,
             lenient: bool = False) -> Classification:
    """Label `conclusion` True (entailed), False (negation entailed), Uncertain, vacuous or unknown, with one
    Z3 context and one premise-consistency check for both directions (Z3 only, no counterexamples)."""
    started = time.perf_counter()
    limits = limits or CheckLimits()
    parsed, goal = _parse_all(premises, conclusion, lenient)
    problem = fol_problem(parsed, goal)
    ctx = z3.Context()
    encoded = problem.encode(ctx)
    first = z3_decide(ctx, encoded, limits, want_proof=False, explain=False, simple=True)
    positive = to_result(first, first.run.verdict(), first.message, [first.run], problem.logic, started)
    if positive.status != "not_entailed":
        label = {"entailed": "True"}.get(positive.status, positive.status)
        return Classification(label=label, conclusion=positive, elapsed_ms=ms_since(started))  # type: ignore[arg-type]
    second_started = time.perf_counter()
    # premises ∧ ¬C was sat, so the premises are consistent: no need to ask again.
    second = z3_decide(ctx, encoded, limits, want_proof=False, explain=False, simple=True, target="c",
                       premises_known="sat")
    negative = to_result(second, second.run.verdict(), second.message, [second.run], problem.logic, second_started)
    label = {"entailed": "False", "not_entailed": "Uncertain"}.get(negative.status, negative.status)
    return Classification(label=label, conclusion=positive, negation=negative,  # type: ignore[arg-type]
                          elapsed_ms=ms_since(started))


def _parse_all(premises: Sequence[str | Formula] | str, conclusion: str | Formula,
               lenient: bool) -> tuple[list[Formula], Formula]:
    parser = FolParser(lenient=lenient)
    if isinstance(premises, str):
        lines = (ln.strip() for ln in premises.splitlines())
        items: list[str | Formula] = [ln for ln in lines if ln and not ln.startswith("#")]
    else:
        items = list(premises)
    parsed = [parser.parse(p, line=i) if isinstance(p, str) else p for i, p in enumerate(items, start=1)]
    goal = parser.parse(conclusion, line=len(items) + 1) if isinstance(conclusion, str) else conclusion
    return parsed, goal


# ------------------------------------------------------------------------------------- SMT-LIB side

_Z3_ERROR = re.compile(r"line (\d+) column (\d+):\s*(.*)")


class _SmtEncoded:
    """Z3 reads the rebuilt text itself (`Solver.from_string`): no per-assertion Python calls, which
    made a 1.5 MB script take seconds."""

    def __init__(self, script: SmtScript, ctx: Any) -> None:
        self.script = script
        self.ctx = ctx
        try:
            # Parsed once up front to report errors with the artifact's line numbers.
            self.vector = z3.parse_smt2_string(script.text(script.conclusion), ctx=ctx)
        except z3.Z3Exception as exc:
            raise _z3_parse_error(exc, script) from None
        if len(self.vector) != len(script.premise_lines) + 1:
            expected = len(script.premise_lines) + 1
            raise ArtifactSyntaxError(f"expected {expected} assertions, Z3 read {len(self.vector)}",
                                      line=script.conclusion_line, column=1)

    def load(self, solver: Any, goal: Goal) -> None:
        extra = {"premises": None, "not_c": f"(not {self.script.conclusion})", "c": self.script.conclusion}[goal]
        solver.from_string(self.script.text(extra))

    def premise_terms(self) -> list[Any]:
        return [self.vector[i] for i in range(len(self.vector) - 1)]

    def explain(self, model: Any) -> dict[str, Any]:
        return _smt_counterexample(model)


def smtlib_problem(script: SmtScript) -> Problem:
    """A Problem over a parsed `smtlib` artifact."""

    def cvc5_input() -> Cvc5Input:
        logic, quantified, arithmetic = infer_logic(script)
        options: dict[str, str] = {}
        if quantified:
            # Finite model finding answers `sat` for uninterpreted sorts; with arithmetic it cannot help, and
            # mbqi only spent the whole time limit on the cases measured, so cvc5 keeps its defaults there.
            options = {} if arithmetic else {"finite-model-find": "true"}
        return Cvc5Input(logic, script.text(), script.conclusion, options)

    return Problem(lambda ctx: _SmtEncoded(script, ctx), cvc5_input)


def _z3_parse_error(exc: Exception, script: SmtScript) -> ArtifactSyntaxError:
    raw = exc.args[0] if exc.args else str(exc)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    first = text.strip().splitlines()[0] if text.strip() else "unknown error"
    m = _Z3_ERROR.search(first)
    if not m:
        return ArtifactSyntaxError(f"Z3 rejected the script: {first}", line=script.conclusion_line, column=1)
    detail = m.group(3).strip().rstrip(')').rstrip('"')
    line = script.line_of_replay(int(m.group(1)), script.conclusion)
    return ArtifactSyntaxError(f"Z3 rejected the command starting on this line: {detail}", line=line, column=1)


def _smt_counterexample(model: Any) -> dict[str, Any]:
    values: dict[str, str] = {}
    decls = model.decls()
    for decl in decls[:50]:
        value = model[decl]
        # Function interpretations have no sexpr(); z3's printer elides deep terms, so str() is bounded.
        text = value.sexpr() if hasattr(value, "sexpr") else str(value)
        values[decl.name()] = text if len(text) <= 200 else text[:200] + "…"
    out: dict[str, Any] = {"model": values}
    sorts = {s.name(): [e.sexpr() for e in list(model.get_universe(s))[:20]] for s in model.sorts()}
    if sorts:
        out["universes"] = sorts
    if len(decls) > 50:
        out["truncated"] = True
    return out


# ------------------------------------------------------------------------------------------ checkers

_Z3_VERSION = z3.get_version_string()
try:
    _CVC5_VERSION = metadata.version("cvc5")
except metadata.PackageNotFoundError:  # pragma: no cover - cvc5 is a declared dependency
    _CVC5_VERSION = "missing"


class EntailmentChecker:
    """Shared checker flow: level gate, parse, decide, map the result to a CheckOutcome."""

    language: ArtifactLanguage = ArtifactLanguage.FOL
    quick_supported = False

    def __init__(self) -> None:
        self.spec = Spec(name=f"reasonforge.{self.language.value}", version=CHECKER_VERSION,
                         args={"z3": _Z3_VERSION, "cvc5": _CVC5_VERSION})

    def check(self, artifact: str, *, level: ProofLevel, limits: CheckLimits,
              context: StepContext | None = None) -> CheckOutcome:
        """Verify one artifact at `level` within `limits`."""
        started = time.perf_counter()
        level = ProofLevel(level)
        details: dict[str, Any] = {
            "checker": self.spec.name, "checker_version": self.spec.version,
            "level": level.value, "language": self.language.value,
        }

        def done(status: StepStatus, message: str, error_kind: ErrorKind | None = None, **extra: Any) -> CheckOutcome:
            details.update(extra)
            details["elapsed_ms"] = ms_since(started)
            return CheckOutcome(status=status, message=message, error_kind=error_kind, details=details)

        if level == ProofLevel.QUICK and not self.quick_supported:
            return done(StepStatus.UNSUPPORTED, f"{self.language.value} needs proof_level standard or formal; "
                        "the quick level checks only propositional artifacts", solver={})
        try:
            problem, info = self.problem(artifact)
            details.update(info)
            formal = level == ProofLevel.FORMAL
            result = decide(problem, limits=limits, cross_check=formal, proof=formal)
        except ArtifactSyntaxError as exc:
            return done(StepStatus.ERROR, exc.message, line=exc.line, column=exc.column, solver={},
                        error_kind=ErrorKind.SYNTAX)
        extra: dict[str, Any] = {"solver": {run.solver: run.model_dump(exclude={"solver"}) for run in result.runs},
                                 "logic": result.logic, "entailment": result.status}
        if result.proof is not None:
            extra["proof"] = result.proof
        if result.status == "entailed":
            agreed = " (Z3 and cvc5 agree)" if len(result.runs) > 1 else ""
            return done(StepStatus.VERIFIED, result.message + agreed, **extra)
        if result.status == "not_entailed":
            fallacy = self.fallacy(artifact)
            message = result.message + (f" ({fallacy.replace('_', ' ')})" if fallacy else "")
            message += summarise_counterexample(result.counterexample)
            return done(StepStatus.FAILED, message, counterexample=result.counterexample,
                        error_kind=fallacy or ErrorKind.COUNTEREXAMPLE, **extra)
        if result.status == "vacuous":
            lines = info.get("premise_lines", [])
            core = [lines[i] for i in result.unsat_core or [] if i < len(lines)]
            where = f"; the contradiction involves the premises on lines {core}" if core else ""
            return done(StepStatus.FAILED, result.message + where, ErrorKind.VACUOUS, vacuous=True,
                        unsat_core_lines=core, **extra)
        return done(StepStatus.ERROR, result.message, **extra)

    def fallacy(self, artifact: str) -> ErrorKind | None:
        """Name the classic invalid inference a failed artifact commits, if it is one."""
        parsed = parse_fol_artifact(artifact, propositional=self.language == ArtifactLanguage.PROPOSITIONAL)
        return name_fallacy(parsed.premises, parsed.conclusion)

    def problem(self, artifact: str) -> tuple[Problem, dict[str, Any]]:
        """Parse the artifact into a Problem plus details worth reporting."""
        parsed = parse_fol_artifact(artifact, propositional=self.language == ArtifactLanguage.PROPOSITIONAL)
        info = {"premise_lines": parsed.premise_lines, "conclusion_line": parsed.conclusion_line}
        return fol_problem(parsed.premises, parsed.conclusion), info


@checkers.checker(ArtifactLanguage.FOL)
class FolChecker(EntailmentChecker):
    """Checks `fol` artifacts (premise lines, then `⊢ conclusion`)."""

    language = ArtifactLanguage.FOL


@checkers.checker(ArtifactLanguage.SMTLIB)
class SmtLibChecker(EntailmentChecker):
    """Checks `smtlib` artifacts (premises asserted, last `(assert (not C))`)."""

    language = ArtifactLanguage.SMTLIB

    def fallacy(self, artifact: str) -> ErrorKind | None:
        """SMT-LIB scripts are not matched against the FOL fallacy patterns."""
        return None

    def problem(self, artifact: str) -> tuple[Problem, dict[str, Any]]:
        """Read the script keeping only declarations and assertions."""
        script = parse_smtlib_artifact(artifact)
        info: dict[str, Any] = {"premise_lines": script.premise_lines, "conclusion_line": script.conclusion_line}
        if script.ignored:
            info["ignored_commands"] = script.ignored
        if script.declared_logic:
            info["declared_logic"] = script.declared_logic
        return smtlib_problem(script), info


def summarise_counterexample(counterexample: dict[str, Any] | None, limit: int = 6) -> str:
    """A short human reading of a FOL/propositional counterexample, e.g. `; e.g. Mortal(socrates), ¬Man(socrates)`."""
    if not counterexample or not isinstance(counterexample.get("true"), list):
        return ""
    # Name domain elements by the constants that denote them, so the reader sees their own words.
    names: dict[str, str] = {}
    for const, element in (counterexample.get("constants") or {}).items():
        names.setdefault(str(element), str(const))

    def readable(literal: str) -> str:
        return re.sub(r"\b(e\d+)\b", lambda m: names.get(m.group(1), m.group(1)), literal)

    literals = [readable(a) for a in counterexample["true"]] + [f"¬{readable(a)}" for a in counterexample.get("false", [])]
    if not literals:
        return ""
    more = f", … ({len(literals) - limit} more)" if len(literals) > limit else ""
    return "; e.g. " + ", ".join(literals[:limit]) + more


def check_fol(artifact: str, *, level: ProofLevel = ProofLevel.STANDARD,
              limits: CheckLimits | None = None) -> CheckOutcome:
    """Check a `fol` artifact text (FolChecker without the registry)."""
    return FolChecker().check(artifact, level=level, limits=limits or CheckLimits())


def check_smtlib(artifact: str, *, level: ProofLevel = ProofLevel.STANDARD,
                 limits: CheckLimits | None = None) -> CheckOutcome:
    """Check an `smtlib` artifact text (SmtLibChecker without the registry)."""
    return SmtLibChecker().check(artifact, level=level, limits=limits or CheckLimits())

