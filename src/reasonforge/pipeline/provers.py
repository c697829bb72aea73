"""Which proof assistant a request's formal mathematics is checked by, and refusing artifacts for the other."""

from __future__ import annotations

from collections.abc import Sequence

from reasonforge.errors import InputError
from reasonforge.translate.targets import resolve_prover
from reasonforge.types import CHAIN_LANGUAGES, Prover, StepTranslation, VerifyRequest

__all__ = ["check_prover"]

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
