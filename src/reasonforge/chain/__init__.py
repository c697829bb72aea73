"""Reasoning chains: parsing (requests, and model outputs into steps), the step DAG, the invalidation cascade
and failure reports."""

from reasonforge.chain.cascade import (
    apply_cascade,
    arithmetic_only,
    assumptions_of,
    assurance_of,
    failure_report,
    overall_of,
    suggested_fix,
)
from reasonforge.chain.contexts import step_contexts
from reasonforge.chain.dag import StepGraph
from reasonforge.chain.hashing import (
    DIGEST_RECIPE,
    canonical_json,
    spec_hash,
    step_digest_fields,
    task_hash,
    verdict_digest,
    verdict_hash,
)
from reasonforge.chain.parse import (
    check_translations,
    load_json,
    parse_request,
    parse_translations,
    validate_request,
)
from reasonforge.chain.providers import Reasoning, ReasoningChainError
from reasonforge.chain.reasoning import (
    final_answer,
    parse_reasoning_chain,
    read_reasoning,
    reasoning_from_bytes,
    request_from_reasoning,
    split_reasoning,
)
from reasonforge.chain.verdict import build_verdict, digest_of

__all__ = [
    "DIGEST_RECIPE",
    "Reasoning",
    "ReasoningChainError",
    "StepGraph",
    "apply_cascade",
    "arithmetic_only",
    "assumptions_of",
    "assurance_of",
    "build_verdict",
    "canonical_json",
    "check_translations",
    "digest_of",
    "failure_report",
    "final_answer",
    "load_json",
    "overall_of",
    "parse_reasoning_chain",
    "parse_request",
    "parse_translations",
    "read_reasoning",
    "reasoning_from_bytes",
    "request_from_reasoning",
    "spec_hash",
    "split_reasoning",
    "step_contexts",
    "step_digest_fields",
    "suggested_fix",
    "task_hash",
    "validate_request",
    "verdict_digest",
    "verdict_hash",
]
