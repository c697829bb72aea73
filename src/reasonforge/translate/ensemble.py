"""`Ensemble`: several independent translators of one chain (rules and a model, or k model samples).

Each member translates the chain on its own; the pipeline checks every member's translations and combines the
verdicts per step (`pipeline.agreement`): verified only when `min_agree` members prove the step and none refutes
it. Where one proof is enough, a member that can (`protocol.Completing`, the model) is asked only for the steps
the rules' checked reading left open. As a plain `Translator` (one translation per step), it gives each step the
first member's artifact, or the next member's where the first produced none ("rules where they can read the step,
the model for the rest").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reasonforge.errors import InputError
from reasonforge.translate.protocol import ExampleWriter, Gateable, QuestionFormaliser, StepGate, Translator
from reasonforge.translate.question import QuestionPrograms
from reasonforge.types import Spec, StepTranslation, TranslatorMode, VerifyRequest

__all__ = ["ENSEMBLE_NAME", "Ensemble"]

ENSEMBLE_NAME = "ensemble"
ENSEMBLE_VERSION = "1.0"


class Ensemble:
    """Independent translators whose translations are each checked, and agreed on per step."""

    def __init__(self, members: Sequence[Translator], *, min_agree: int = 1) -> None:
        if not members:
            raise InputError("an ensemble needs at least one translator", field="translator")
        if not 1 <= min_agree <= len(members):
            raise InputError(f"min_agree must be between 1 and {len(members)} (the ensemble's members), not "
                             f"{min_agree}", field="min_agree")
        self.members = list(members)
        self.min_agree = min_agree
        self.spec = Spec(name=ENSEMBLE_NAME, version=ENSEMBLE_VERSION, args={
            "members": [m.spec.model_dump(mode="json") for m in self.members], "min_agree": min_agree})

    @property
    def writers(self) -> list[TranslatorMode]:
        """Who writes each member's artifacts: a model (a translator whose `writer` says so) or the rules."""
        return [getattr(m, "writer", TranslatorMode.RULES) for m in self.members]

    def with_gate(self, gate: StepGate) -> Ensemble:
        """The same ensemble (same spec) with each member that can hold its artifacts to `gate` doing so."""
        members = [m.with_gate(gate) if isinstance(m, Gateable) else m for m in self.members]
        return Ensemble(members, min_agree=self.min_agree)

    def formalise_question(self, request: VerifyRequest) -> QuestionPrograms | None:
        """The question's formalisations by the first member that writes any (the model; the rules write none)."""
        for member in self.members:
            if isinstance(member, QuestionFormaliser) and (programs := member.formalise_question(request)) is not None:
                return programs
        return None

    def write_examples(self, request: VerifyRequest) -> dict[int, str] | None:
        """Code examples written from the texts by the first member that writes any (the model)."""
        for member in self.members:
            if isinstance(member, ExampleWriter) and (written := member.write_examples(request)) is not None:
                return written
        return None

    def translate_all(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]
                      ) -> list[list[StepTranslation]]:
        """Every member's translations of the chain, in member order."""
        return [member.translate_chain(request, ancestors) for member in self.members]

    def translate_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> list[StepTranslation]:
        """One translation per step: the first member's, or the first that has an artifact for the step."""
        sets = self.translate_all(request, ancestors)
        chosen: dict[int, StepTranslation] = {}
        for translations in sets:
            for t in translations:
                if t.step_id not in chosen or (not chosen[t.step_id].formal_representation.strip()
                                               and t.formal_representation.strip()):
                    chosen[t.step_id] = t
        order = [t.step_id for t in sets[0]]
        order += [sid for sid in chosen if sid not in order]
        return [chosen[sid] for sid in order]
