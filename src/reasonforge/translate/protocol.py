"""The translator protocol: a whole chain in, one `StepTranslation` per step out (DESIGN §3.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from reasonforge.registry import Spec
from reasonforge.types import StepTranslation, VerifyRequest


@runtime_checkable
class Translator(Protocol):
    """Turns every step of a request into a formal artifact, knowing each step's ancestors."""

    spec: Spec

    def translate_chain(
        self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]
    ) -> list[StepTranslation]:
        """Return one translation per step, in request order.

        `ancestors[step_id]` lists the step's transitive dependencies in topological order (already
        validated by the caller). An untranslatable step gets an empty `formal_representation`, a
        `translation_confidence` of 0 and `notes` that quote the sentence at fault.
        """
        ...


__all__ = ["Translator"]
