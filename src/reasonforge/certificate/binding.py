"""What a certificate binds besides the step bits: the verdict digest, the checkers, the domain, the proof level,
the overall verdict and its assurance, folded into the task input the validators sign; and the certificate id
the registry recomputes. Both recipes are mirrored byte for byte in contracts/CertificateRegistry.sol.

The circuit treats its task input as opaque, so binding more costs no constraints: segment 0 proves
`bound_task_input` instead of the bare task hash, the validators sign Poseidon(bits, total, that input, salt),
and the registry recomputes the input from the fields it stores. A certificate whose level, domain or digest
was edited no longer matches the input its proof and signatures are for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from reasonforge.certificate.canonical import canonical_json
from reasonforge.chain import digest_of, spec_hash
from reasonforge.types import Spec, VerificationVerdict

if TYPE_CHECKING:
    from reasonforge.certificate.schema import VerificationCertificate

# On-chain codes (the plan's Certificate struct: 0 = mathematics / formal / VERIFIED).
DOMAINS = {"mathematics": 0, "code": 1, "logic": 2}
LEVELS = {"formal": 0, "standard": 1, "quick": 2}
VERDICTS = {"VERIFIED": 0, "PARTIAL": 1, "FAILED": 2}
ASSURANCES = {"proven": 0, "corroborated": 1, "arithmetic": 2, "self_tested": 3, "unproven": 4, "refuted": 5,
              "conditional": 6}

CERTIFICATE_VERSION = 2
"""Version 1 certificates signed only the task hash and the step bits; version 2 binds what was proven."""


def checkers_digest(specs: Iterable[Spec]) -> str:
    """sha256 hex of the canonical JSON list of the certificate's checker and translator Specs, in order."""
    return hashlib.sha256(canonical_json([spec.model_dump(mode="json") for spec in specs])).hexdigest()


def _word(hex_digest: str) -> bytes:
    """A 64-hex-digit digest (optionally 0x-prefixed) as 32 bytes; refuses anything else."""
    raw = bytes.fromhex(hex_digest.removeprefix("0x"))
    if len(raw) != 32:
        raise ValueError(f"expected a 32-byte digest, got {len(raw)} bytes")
    return raw


def bound_task_input(
    *, task_hash: str, verdict_digest: str, checkers: str, domain: str, proof_level: str, overall: str, assurance: str
) -> int:
    """Segment 0's task input: top 248 bits of sha256(taskHash ‖ verdictDigest ‖ checkersDigest ‖ domain ‖
    proofLevel ‖ verdict ‖ assurance), the digests as 32 bytes and the codes as one byte each (Solidity's
    abi.encodePacked of bytes32 ×3, uint8 ×4)."""
    data = (
        _word(task_hash) + _word(verdict_digest) + _word(checkers)
        + bytes([DOMAINS[domain], LEVELS[proof_level], VERDICTS[overall], ASSURANCES[assurance]])
    )
    return int.from_bytes(hashlib.sha256(data).digest(), "big") >> 8


def expected_overall(assurance: str, verified: int, total: int) -> str | None:
    """The only overall verdict these counts and this assurance allow (chain.overall_of's rule); None when the
    assurance cannot go with the counts at all.

    Every step verified: VERIFIED when the chain is proven or corroborated, PARTIAL when some step was checked
    only on the arithmetic inside its prose, on its author's own tests or from premises nobody gave (a chain the
    registry must never call VERIFIED). Some step not verified: the assurance is unproven or refuted, and the verdict FAILED when no
    step was verified, else PARTIAL."""
    if verified == total:
        return {"proven": "VERIFIED", "corroborated": "VERIFIED", "arithmetic": "PARTIAL",
                "self_tested": "PARTIAL", "conditional": "PARTIAL"}.get(assurance)
    if assurance not in ("unproven", "refuted"):
        return None
    return "FAILED" if verified == 0 else "PARTIAL"


def certificate_id(
    *,
    verification_key_sha256: str,
    task_hash: str,
    verdict_digest: str,
    checkers: str,
    verdict_commitment: str,
    validator_root: str,
    domain: str,
    proof_level: str,
    overall: str,
    assurance: str,
    total_steps: int,
    verified_steps: int,
    validator_count: int,
    validator_threshold: int,
    timestamp: int,
    stake_threshold: int,
    segments: int,
) -> str:
    """0x sha256 of the fields the registry stores, packed as Solidity's abi.encodePacked does (version byte,
    6 × bytes32, 4 × uint8 codes, 2 × uint16 counts, 2 × uint8 validator counts, 2 × uint64, uint8 segments).

    The verdict commitment accumulates every segment (each links the one before), so it stands for them all."""
    data = (
        bytes([CERTIFICATE_VERSION])
        + _word(verification_key_sha256) + _word(task_hash) + _word(verdict_digest) + _word(checkers)
        + _word(verdict_commitment) + _word(validator_root)
        + bytes([DOMAINS[domain], LEVELS[proof_level], VERDICTS[overall], ASSURANCES[assurance]])
        + total_steps.to_bytes(2, "big") + verified_steps.to_bytes(2, "big")
        + bytes([validator_count, validator_threshold])
        + timestamp.to_bytes(8, "big") + stake_threshold.to_bytes(8, "big")
        + bytes([segments])
    )
    return "0x" + hashlib.sha256(data).hexdigest()


def checker_specs(verdict: VerificationVerdict) -> list[Spec]:
    """Distinct checker and translator specs of the steps, for replay."""
    seen: dict[str, Spec] = {}
    for sv in verdict.step_verdicts:
        for spec in (sv.checker_spec, sv.translator_spec):
            if spec is not None:
                seen.setdefault(spec_hash(spec), spec)
    return list(seen.values())


def check_against_verdict(cert: VerificationCertificate, verdict: VerificationVerdict) -> list[str]:
    """The verdict JSON must be the one certified: its recomputed digest, task, level, domain, counts, checkers."""
    reasons = []
    pairs = {
        "task_hash": (verdict.task_hash, cert.task_hash),
        "domain": (verdict.domain.value, cert.domain),
        "proof_level": (verdict.proof_level.value, cert.proof_level),
        "overall_verdict": (verdict.overall.value, cert.overall_verdict),
        "verified_steps": (verdict.verified_steps, cert.verified_steps),
        "total_steps": (verdict.total_steps, cert.total_steps),
    }
    for name, (theirs, ours) in pairs.items():
        if theirs != ours:
            reasons.append(f"the verdict's {name} is {theirs}, the certificate's {ours}")
    if digest_of(verdict) != cert.verdict_digest:
        reasons.append("the verdict's recomputed verdict_digest is not the certificate's: this is not the verdict "
                       "that was certified (or it was edited)")
    if checkers_digest(checker_specs(verdict)) != cert.checkers_digest:
        reasons.append("the checkers recorded in the verdict are not the certificate's")
    return reasons
