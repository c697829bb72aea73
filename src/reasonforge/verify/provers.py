"""Which proof assistant checks formal mathematics: the request's `prover`, resolved against what is installed."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from reasonforge.errors import InputError
from reasonforge.types import CHAIN_LANGUAGES, ArtifactLanguage, Prover, StepTranslation, VerifyRequest

__all__ = ["check_prover", "lean_installed", "resolve_prover"]


def lean_installed() -> bool:
    """True when a Lean 4 toolchain (`lean`) is on PATH."""
    return shutil.which("lean") is not None


def resolve_prover(prover: Prover) -> ArtifactLanguage:
    """The artifact language for `prover`; `auto` is Lean 4 when installed, else Coq."""
    prover = Prover(prover)
    if prover is Prover.AUTO:
        return ArtifactLanguage.LEAN4 if lean_installed() else ArtifactLanguage.COQ
    return ArtifactLanguage.COQ if prover is Prover.COQ else ArtifactLanguage.LEAN4


def check_prover(request: VerifyRequest, translations: Sequence[StepTranslation]) -> None:
    """A request naming a prover must not carry proof artifacts for the other one."""
    if Prover(request.prover) is Prover.AUTO:
        return
    wanted = resolve_prover(request.prover)
    for index, translation in enumerate(translations):
        if translation.language in CHAIN_LANGUAGES and translation.language is not wanted:
            raise InputError(
                f"the request asks for prover '{request.prover.value}' but this translation is "
                f"'{translation.language.value}'; send {wanted.value} artifacts or set prover to 'auto'",
                field=f"translations[{index}].language",
                step_id=translation.step_id,
            )
