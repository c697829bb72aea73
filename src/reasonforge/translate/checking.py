"""`compilation_check`: does the local checker accept an artifact's syntax / compile it, and can the model fix what it rejects?

It runs the registered checker for the language (`reasonforge.registry.checkers`) at the request's level
and reads its outcome; the checker's message is the repair feedback. Chain languages (coq, lean4) are
checked with the Context and the step's translated ancestors, as the pipeline will check them.

Two questions, answered separately:
- `compiled`: fol/propositional/smtlib/sympy parse; python compiles and its tests are collected; coq/lean4
  compile (a proof that does not go through does not compile). None when the checker could not tell
  (timeout, missing tool, an ancestor or the Context broken).
- `repairable`: the rejection is the artifact's own, of a kind a corrected translation can fix (syntax,
  compile errors, forbidden commands, no theorem, a theorem that does not state what the text says).
  A step that compiles but is refuted (counterexample, failing tests, false arithmetic) is never repaired:
  a wrong step must stay wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reasonforge.errors import ReasonForgeError
from reasonforge.registry import CheckerRegistry, checkers
from reasonforge.types import (
    ArtifactLanguage,
    ChainStep,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    ProofLevel,
    StepStatus,
)

__all__ = ["ChainPosition", "CompileResult", "classify_outcome", "compilation_check"]

_SOLVER_LANGUAGES = frozenset({ArtifactLanguage.FOL, ArtifactLanguage.PROPOSITIONAL, ArtifactLanguage.SMTLIB,
                               ArtifactLanguage.SYMPY})
_PROVER_LANGUAGES = frozenset({ArtifactLanguage.COQ, ArtifactLanguage.LEAN4})
# the python checker reports these as `failed` with no error_kind: the module did not compile or no test ran.
_PYTHON_NOT_COMPILED = ("syntax error", "the artifact failed to import or collect", "no tests were collected",
                        "collected tests do not match", "pytest did not finish")
# Prover outcomes that say nothing about this artifact (its Context, an ancestor, the machine).
_PROVER_UNKNOWN = frozenset({ErrorKind.CONTEXT, ErrorKind.DEPENDENCY, ErrorKind.TOOL_UNAVAILABLE,
                             ErrorKind.SANDBOX_UNAVAILABLE, ErrorKind.RESOURCE, ErrorKind.AUDIT, ErrorKind.HEADER,
                             ErrorKind.NOT_CHECKED})
# Prover rejections of a compiled artifact that a faithful correction can still fix.
_PROVER_FIXABLE_COMPILED = frozenset({ErrorKind.ALIGNMENT, ErrorKind.ASSUMPTIONS})


@dataclass(frozen=True)
class CompileResult:
    """The checker's verdict on one artifact, read as compile / repair information."""

    compiled: bool | None
    repairable: bool
    status: StepStatus
    message: str | None
    error_kind: ErrorKind | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        """The local checker verified the step at the request's level."""
        return self.status is StepStatus.VERIFIED

    def feedback(self) -> str:
        """What the model is told about this rejection."""
        return self.message or f"the checker returned {self.status.value} without a message"


@dataclass(frozen=True)
class ChainPosition:
    """Where a coq/lean4 step sits: the Context text and its translated ancestors (topological order)."""

    step_id: int
    content: str
    context: str = ""
    ancestors: Sequence[ChainStep] = ()
    dependencies: Sequence[int] = ()


def classify_outcome(outcome: CheckOutcome, language: ArtifactLanguage) -> CompileResult:
    """Read a checker outcome as (compiled, repairable)."""
    language = ArtifactLanguage(language)
    kind = outcome.error_kind
    message = outcome.message
    status = outcome.status

    def result(compiled: bool | None, repairable: bool) -> CompileResult:
        return CompileResult(compiled, repairable, status, message, kind, dict(outcome.details))

    if status is StepStatus.VERIFIED:
        return result(True, False)
    if language is ArtifactLanguage.PYTHON:
        if (message or "").startswith(_PYTHON_NOT_COMPILED) or kind is ErrorKind.SYNTAX:
            return result(False, True)
        return result(None if status is StepStatus.ERROR else True, False)
    if language in _SOLVER_LANGUAGES:
        if kind is ErrorKind.SYNTAX:
            return result(False, True)
        return result(None if status is StepStatus.ERROR else True, False)
    if language in _PROVER_LANGUAGES:
        if kind in _PROVER_UNKNOWN or status is StepStatus.ERROR:
            return result(None, False)
        if kind in _PROVER_FIXABLE_COMPILED:
            return result(True, status is StepStatus.FAILED)
        if kind is ErrorKind.VACUOUS or (status is StepStatus.UNSUPPORTED and kind is not ErrorKind.NO_THEOREM):
            return result(True, False)
        return result(False, True)  # lex, forbidden, compile, missing_theorem, no_theorem, refused, …
    return result(None, False)


def compilation_check(artifact: str, language: ArtifactLanguage, level: ProofLevel, *,
                      registry: CheckerRegistry | None = None, limits: CheckLimits | None = None,
                      chain: ChainPosition | None = None) -> CompileResult:
    """Run the registered checker on `artifact` and classify its outcome (never raises for checker problems)."""
    language, level = ArtifactLanguage(language), ProofLevel(level)
    registry = registry or checkers
    limits = limits or CheckLimits()
    try:
        checker = registry.get(language)
        outcome = _run(checker, artifact, language, level, limits, chain)
        if (outcome.status is StepStatus.UNSUPPORTED and level is ProofLevel.QUICK and outcome.error_kind is None
                and language in (ArtifactLanguage.FOL, ArtifactLanguage.SMTLIB)):
            # The quick level refuses fol/smtlib before parsing; ask the standard level whether it compiles.
            probe = classify_outcome(_run(checker, artifact, language, ProofLevel.STANDARD, limits, chain), language)
            return CompileResult(probe.compiled, probe.repairable, outcome.status,
                                 probe.message if probe.repairable else outcome.message, probe.error_kind,
                                 dict(outcome.details))
    except ReasonForgeError as exc:
        return CompileResult(None, False, StepStatus.ERROR, exc.message, ErrorKind.CHECKER_UNAVAILABLE)
    except Exception as exc:  # noqa: BLE001 - a checker bug must not end the translation of the chain
        return CompileResult(None, False, StepStatus.ERROR, f"checker crashed: {type(exc).__name__}: {exc}",
                             ErrorKind.CRASH)
    return classify_outcome(outcome, language)


def _run(checker: Any, artifact: str, language: ArtifactLanguage, level: ProofLevel, limits: CheckLimits,
         chain: ChainPosition | None) -> CheckOutcome:
    if hasattr(checker, "check_chain"):
        position = chain or ChainPosition(step_id=1, content="")
        step = ChainStep(step_id=position.step_id, content=position.content, artifact=artifact,
                         dependencies=list(position.dependencies),
                         ancestors=[a.step_id for a in position.ancestors])
        outcomes = checker.check_chain([*position.ancestors, step], context=position.context, level=level,
                                       limits=limits)
        found = outcomes.get(position.step_id)
        if found is None:
            raise ReasonForgeError(f"the {language.value} checker returned no result for step {position.step_id}")
        return found
    return checker.check(artifact, level=level, limits=limits)
