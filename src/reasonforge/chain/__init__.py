"""Reasoning chains: parsing, the step DAG, the invalidation cascade and failure reports."""

from reasonforge.chain.cascade import apply_cascade, failure_report, overall_of, suggested_fix
from reasonforge.chain.dag import StepGraph
from reasonforge.chain.hashing import task_hash, verdict_hash
from reasonforge.chain.parse import (
    check_translations,
    load_json,
    parse_request,
    parse_translations,
    validate_request,
)

__all__ = [
    "StepGraph",
    "apply_cascade",
    "check_translations",
    "failure_report",
    "load_json",
    "overall_of",
    "parse_request",
    "parse_translations",
    "suggested_fix",
    "task_hash",
    "validate_request",
    "verdict_hash",
]
