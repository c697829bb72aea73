"""Hashes anyone can recompute from a verdict or request (DESIGN §3.2)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from reasonforge.types import StepVerdict, VerifyRequest


def verdict_hash(task_id: str, overall: str, step_verdicts: Iterable[StepVerdict]) -> str:
    """sha256 of the plan's canonical verdict JSON: task_id, overall and (id, verified) per step."""
    canonical = json.dumps(
        {
            "task_id": task_id,
            "overall": overall,
            "steps": [{"id": sv.step_id, "verified": sv.verified} for sv in step_verdicts],
        },
        sort_keys=True,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def task_hash(request: VerifyRequest) -> str:
    """sha256 of canonical JSON of {original_query, reasoning_chain, claimed_answer} (sorted keys, compact, UTF-8).

    The claimed answer is part of the task: a verdict checks it against the chain's final value, so a
    certificate for one answer must not serve another."""
    body = {
        "original_query": request.original_query,
        "reasoning_chain": [step.model_dump(mode="json") for step in request.reasoning_chain],
        "claimed_answer": request.claimed_answer,
    }
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
