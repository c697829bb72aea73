"""Hashes anyone can recompute from a verdict or request (DESIGN §3.2)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from reasonforge.types import Assurance, Domain, Overall, ProofLevel, Spec, StepVerdict, VerifyRequest

DIGEST_RECIPE = "reasonforge-verdict-digest/2"
"""Names the verdict_digest recipe inside what it hashes, so a changed recipe can never collide with this one."""


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


def canonical_json(value: Any) -> bytes:
    """Sorted keys, compact separators, UTF-8: one byte string per value (the recipe every digest uses)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def spec_hash(spec: Spec | Mapping[str, Any] | None) -> str:
    """sha256 hex of a checker or translator Spec's canonical JSON ({name, version, args}); "" when none ran."""
    if isinstance(spec, Spec):
        spec = spec.model_dump(mode="json")
    if not isinstance(spec, Mapping):
        return ""
    return hashlib.sha256(canonical_json(dict(spec))).hexdigest()


def step_digest_fields(verdict: StepVerdict) -> dict[str, Any]:
    """What verdict_digest hashes for one step: its outcome, what it rests on and which tools said so."""
    evidence = verdict.evidence
    return {
        "id": verdict.step_id,
        "status": verdict.status.value,
        "verified": verdict.verified,
        "evidence_kind": evidence.kind.value if evidence is not None else "",
        "formaliser": evidence.formaliser.value if evidence is not None else "",
        "supplied_by": evidence.supplied_by.value if evidence is not None else "",
        "aligned_claim": evidence.aligned_claim if evidence is not None else "",
        "assumptions": list(evidence.assumptions) if evidence is not None else [],
        "artifact_sha256": hashlib.sha256(verdict.formal_representation.encode("utf-8")).hexdigest(),
        "checker_spec_sha256": spec_hash(verdict.checker_spec),
        "translator_spec_sha256": spec_hash(verdict.translator_spec),
    }


def verdict_digest(
    *,
    task_hash: str,
    claimed_answer: str,
    domain: Domain,
    proof_level: ProofLevel,
    overall: Overall,
    assurance: Assurance | None,
    step_verdicts: Iterable[StepVerdict],
) -> str:
    """sha256 hex of the canonical JSON of everything a verdict proved (the certificate signs this, DESIGN §3.2).

    Unlike verdict_hash it differs whenever what was proven differs: the level, the domain, the claimed
    answer, and per step the status, the evidence (kind, formaliser, supplier, aligned claim, assumptions), the
    artifact's sha256
    and the sha256 of the checker's and the translator's Spec."""
    body = {
        "recipe": DIGEST_RECIPE,
        "task_hash": task_hash,
        "claimed_answer": claimed_answer,
        "domain": Domain(domain).value,
        "proof_level": ProofLevel(proof_level).value,
        "overall": Overall(overall).value,
        "assurance": Assurance(assurance).value if assurance is not None else "",
        "steps": [step_digest_fields(sv) for sv in step_verdicts],
    }
    return hashlib.sha256(canonical_json(body)).hexdigest()
