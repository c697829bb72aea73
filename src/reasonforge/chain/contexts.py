"""What each step of a chain is checked against: its text, the question and its ancestors (`types.StepContext`)."""

from __future__ import annotations

from collections.abc import Mapping

from reasonforge.chain.dag import StepGraph
from reasonforge.types import StepContext, VerifyRequest

__all__ = ["step_contexts"]


def step_contexts(request: VerifyRequest, graph: StepGraph,
                  written_examples: Mapping[int, str] | None = None) -> dict[int, StepContext]:
    """Each step's text, the question and the step's ancestors: all a step may be checked against (and, for
    code, the examples a translator wrote from the texts alone, by step id)."""
    written = written_examples or {}
    steps = {step.step_id: step for step in request.reasoning_chain}
    last = request.reasoning_chain[-1].step_id
    return {
        sid: StepContext(
            step_id=sid,
            content=step.content,
            claimed_conclusion=step.claimed_conclusion,
            original_query=request.original_query,
            ancestors=[steps[a] for a in graph.ancestors(sid)],
            domain=request.domain,
            proof_level=request.proof_level,
            claimed_answer=request.claimed_answer,
            final=sid == last,
            written_examples=written.get(sid, ""),
        )
        for sid, step in steps.items()
    }
