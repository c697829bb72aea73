"""`MathTranslator`: the offline translator of mathematics chains into `sympy` artifacts (quick level): each step's
artifact is its plan (`verify.math.plan.plan_step`, whose docstring says what the artifact holds and why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.reading import read_question
from reasonforge.registry import Spec
from reasonforge.types import ArtifactLanguage, ReasoningStep, StepTranslation, VerifyRequest
from reasonforge.verify.math import StepPlan, parse_artifact, plan_step, read_step

__all__ = ["MathTranslator"]

TRANSLATOR_NAME = "math-rules"
TRANSLATOR_VERSION = "1.4"  # 1.3: alternatives, sibling cases, suppositions, functions; 1.4: LaTeX labels


class MathTranslator:
    """Mathematics-domain offline translator (see the module docstring)."""

    def __init__(self) -> None:
        self.spec = Spec(name=TRANSLATOR_NAME, version=TRANSLATOR_VERSION)

    def translate_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> list[StepTranslation]:
        """One `sympy` translation per step, in request order."""
        question = read_question(request.original_query)
        readings = {step.step_id: read_step(step) for step in request.reasoning_chain}
        steps = {step.step_id: step for step in request.reasoning_chain}
        out = []
        for index, step in enumerate(request.reasoning_chain):
            if step.dependencies is not None:
                direct = list(step.dependencies)
            else:
                direct = [request.reasoning_chain[index - 1].step_id] if index else []
            before = [(steps[sid], readings[sid]) for sid in ancestors.get(step.step_id, ())]
            plan = plan_step(step, question, before, readings[step.step_id])
            out.append(self._translation(step, direct, plan))
        return out

    @staticmethod
    def _translation(step: ReasoningStep, direct: list[int], plan: StepPlan) -> StepTranslation:
        notes = list(plan.notes)
        artifact = plan.artifact
        if not artifact:
            reason = f"no checkable relation in \"{_clip(step.content)}\""
            return StepTranslation(step_id=step.step_id, original_content=step.content, formal_representation="",
                                   language=ArtifactLanguage.SYMPY, dependencies=direct, translation_confidence=0.0,
                                   notes="; ".join([reason, *notes]))
        try:
            parse_artifact(artifact)
            compiles = True
        except ArtifactSyntaxError as exc:
            compiles = False
            notes.append(f"the artifact does not parse ({exc.message}): a translator bug")
        return StepTranslation(step_id=step.step_id, original_content=step.content, formal_representation=artifact,
                               language=ArtifactLanguage.SYMPY, dependencies=direct,
                               translation_confidence=1.0 if not notes else 0.5, compilation_check=compiles,
                               notes="; ".join(notes) or None)


def _clip(text: str, limit: int = 160) -> str:
    text = " ".join(text.split()).replace("#", "")
    return text if len(text) <= limit else text[:limit - 1] + "…"
