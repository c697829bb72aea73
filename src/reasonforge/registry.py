"""Registries of checkers and translators. Modules register themselves with decorators and are
imported only when their language is first asked for, so optional heavy tools load lazily."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from reasonforge.errors import ReasonForgeError
from reasonforge.types import (
    ArtifactLanguage,
    ChainStep,
    CheckLimits,
    CheckOutcome,
    ProofLevel,
    Spec,
    StepContext,
    StepTranslation,
)


class Checker(Protocol):
    """Checks one artifact of the languages it is registered for."""

    spec: Spec

    def check(self, artifact: str, *, level: ProofLevel, limits: CheckLimits,
              context: StepContext | None = None) -> CheckOutcome:
        """Return the step's own status (never `invalidated`: the cascade decides that).

        `context` (the step's text, the question, its ancestors) is given by the pipeline; a checker that can tie
        its artifact to the step's text may record `evidence`; the family's aligner decides whether it stands."""
        ...


class ChainChecker(Protocol):
    """Checks every step of one language together, as one workspace (Coq, Lean 4: steps import each other).

    A checker with `check_chain` is called once per chain with all its steps of that language; `context`
    is the Context translation (step 0: the givens) or "". It returns one outcome per step id."""

    spec: Spec

    def check_chain(self, steps: Sequence[ChainStep], *, context: str, level: ProofLevel,
                    limits: CheckLimits) -> dict[int, CheckOutcome]:
        """Return each step's own status, keyed by step id."""
        ...


Aligner = Callable[[StepContext, StepTranslation, CheckOutcome, CheckLimits], CheckOutcome]
"""A checker family's aligner: the outcome once tied to what the step's text claims, as the family's reader reads
it (evidence recorded on a verified outcome), or downgraded; registered with `@registry.aligner(...)`."""

# The checker family (a `verify/` subpackage) for each language; imported on first use.
CHECKER_MODULES: dict[ArtifactLanguage, str] = {
    ArtifactLanguage.FOL: "reasonforge.verify.logic",
    ArtifactLanguage.SMTLIB: "reasonforge.verify.logic",
    ArtifactLanguage.PROPOSITIONAL: "reasonforge.verify.logic",
    ArtifactLanguage.PYTHON: "reasonforge.verify.code",
    ArtifactLanguage.SYMPY: "reasonforge.verify.math",
    ArtifactLanguage.COQ: "reasonforge.verify.coq",
    ArtifactLanguage.LEAN4: "reasonforge.verify.lean",
}

C = TypeVar("C")


class CheckerRegistry:
    """Language → checker factory, filled by `@registry.checker(...)` as modules import."""

    def __init__(self, modules: dict[ArtifactLanguage, str] | None = None) -> None:
        self._modules = dict(CHECKER_MODULES if modules is None else modules)
        self._factories: dict[ArtifactLanguage, Callable[[], Checker]] = {}
        self._aligners: dict[ArtifactLanguage, Aligner] = {}
        self._restating: set[ArtifactLanguage] = set()

    def checker(self, *languages: ArtifactLanguage) -> Callable[[C], C]:
        """Class decorator: register a zero-argument checker factory for these languages."""

        def register(factory: C) -> C:
            for language in languages:
                self._factories[ArtifactLanguage(language)] = factory  # type: ignore[assignment]
            return factory

        return register

    def aligner(self, *languages: ArtifactLanguage, restating: bool = False) -> Callable[[Aligner], Aligner]:
        """Function decorator: register a family's aligner for these languages. `restating`: it aligns only an
        artifact that restates its reader's own translation of the step, so another writer's artifact can prove or
        refute nothing that translation, checked, does not (`restates_reading`)."""

        def register(align: Aligner) -> Aligner:
            for language in languages:
                self._aligners[ArtifactLanguage(language)] = align
                if restating:
                    self._restating.add(ArtifactLanguage(language))
            return align

        return register

    def restates_reading(self, language: ArtifactLanguage) -> bool:
        """Whether `language`'s aligner accepts only restatements of its reader's own translation (importing its
        family if needed): then a model's translation of a step adds nothing to the rules' checked one."""
        return self.aligner_for(language) is not None and ArtifactLanguage(language) in self._restating

    def aligner_for(self, language: ArtifactLanguage) -> Aligner | None:
        """The aligner registered for `language` (importing its family if needed), or None."""
        language = ArtifactLanguage(language)
        if language not in self._aligners and language in self._modules:
            importlib.import_module(self._modules[language])
        return self._aligners.get(language)

    def get(self, language: ArtifactLanguage) -> Checker | ChainChecker:
        """Instantiate the checker for `language`, importing its module if needed."""
        language = ArtifactLanguage(language)
        if language not in self._factories and language in self._modules:
            importlib.import_module(self._modules[language])
        factory = self._factories.get(language)
        if factory is None:
            supported = ", ".join(sorted(lang.value for lang in self.languages()))
            raise ReasonForgeError(
                f"no checker is available for artifact language '{language.value}' "
                f"(available: {supported})",
                field="language",
            )
        return factory()

    def languages(self) -> set[ArtifactLanguage]:
        """Every language with a known checker (loaded or loadable)."""
        return set(self._modules) | set(self._factories)


checkers = CheckerRegistry()
"""The default registry; pass your own `CheckerRegistry` to `verify_chain` to isolate tests."""
