"""Offline certificate check: id, claims vs public inputs, sequence links, proofs, attestations."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel

from reasonforge.certificate import attest, binding, witness
from reasonforge.certificate.params import unpack_public
from reasonforge.certificate.poseidon import poseidon
from reasonforge.certificate.prover import verify_proof
from reasonforge.certificate.schema import CommitmentOpening, VerificationCertificate
from reasonforge.types import VerificationVerdict


class CheckResult(BaseModel):
    """valid is True only when reasons is empty."""

    valid: bool
    reasons: list[str]


def _check_segments(cert: VerificationCertificate, vk_json: str) -> list[str]:
    """Each segment's public inputs must say what the certificate claims, and its proof must verify."""
    reasons: list[str] = []
    root = int(cert.validator_commitment, 16)
    bound = cert.bound_task_input()
    previous: int | None = None
    next_step = 0
    for index, seg in enumerate(cert.zk_proof):
        task_input, commitment, seg_root, packed = seg.public_ints()
        label = f"segment {index}"
        if task_input != witness.segment_task_input(cert.task_hash, previous, index, bound):
            reasons.append(
                f"{label}: the proof's task input is not derived from this certificate's task hash, verdict "
                "digest, checkers, domain, proof level, verdict and assurance: a field was changed after the "
                "validators signed" if index == 0 else f"{label}: task input does not link to the previous segment"
            )
        if seg_root != root:
            reasons.append(f"{label}: validator root differs from validator_commitment")
        if seg.first_step != next_step:
            reasons.append(f"{label}: starts at step {seg.first_step}, expected {next_step}")
        try:
            fields = unpack_public(packed)
        except ValueError as exc:
            reasons.append(f"{label}: {exc}")
            fields = {}
        claimed = {
            "verified_steps": seg.verified_steps,
            "total_steps": seg.total_steps,
            "validator_count": cert.validator_count,
            "threshold": cert.validator_threshold,
            "timestamp": cert.timestamp,
            "stake_threshold": cert.stake_threshold,
        }
        for name, value in claimed.items():
            if fields and fields[name] != value:
                reasons.append(f"{label}: proof's {name} is {fields[name]}, certificate says {value}")
        if not verify_proof(vk_json, bytes.fromhex(seg.proof), seg.public_ints()):
            reasons.append(f"{label}: Groth16 proof does not verify")
        previous, next_step = commitment, next_step + seg.total_steps
    if next_step != cert.total_steps:
        reasons.append(f"segments cover {next_step} steps, certificate says {cert.total_steps}")
    if sum(s.verified_steps for s in cert.zk_proof) != cert.verified_steps:
        reasons.append("segments' verified steps do not add up to verified_steps")
    if previous is not None and f"0x{previous:064x}" != cert.verdict_commitment:
        reasons.append("verdict_commitment is not the last segment's commitment")
    return reasons


def check_opening(cert: VerificationCertificate, opening: CommitmentOpening) -> list[str]:
    """The issuer's private opening must reproduce every segment commitment and count."""
    reasons = []
    if opening.certificate_id != cert.certificate_id:
        reasons.append("opening is for a different certificate")
    if len(opening.step_bits) != cert.total_steps or len(opening.salts) != len(cert.zk_proof):
        return reasons + ["opening has the wrong number of steps or salts"]
    for index, (seg, salt) in enumerate(zip(cert.zk_proof, opening.salts)):
        bits = opening.step_bits[seg.first_step : seg.first_step + seg.total_steps]
        packed_bits = sum(int(b) << i for i, b in enumerate(bits))
        task_input, commitment = seg.public_ints()[:2]
        if poseidon([packed_bits, len(bits), task_input, int(salt)]) != commitment:
            reasons.append(f"segment {index}: step verdicts do not open the commitment")
    return reasons


def check_certificate(
    cert: VerificationCertificate,
    vk_json: str,
    *,
    opening: CommitmentOpening | None = None,
    trusted_root: int | None = None,
    verdict: VerificationVerdict | None = None,
) -> CheckResult:
    """Everything a holder can check without a chain: hashes, proofs, signatures, optional opening and verdict."""
    reasons: list[str] = []
    if hashlib.sha256(vk_json.encode()).hexdigest() != cert.verification_key.sha256:
        reasons.append("verification key does not match the certificate's key reference")
    if cert.content_hash() != cert.certificate_id:
        reasons.append("certificate_id is not the hash of the certificate's fields (binding.certificate_id)")
    if binding.checkers_digest(cert.checker_specs) != cert.checkers_digest:
        reasons.append("checker_specs are not the checkers the validators signed (checkers_digest differs)")
    expected = binding.expected_overall(cert.assurance, cert.verified_steps, cert.total_steps)
    if cert.overall_verdict != expected:
        reasons.append(
            f"overall_verdict {cert.overall_verdict} contradicts {cert.verified_steps}/{cert.total_steps} steps "
            f"with assurance {cert.assurance}"
        )
    if cert.validator_count < cert.validator_threshold:
        reasons.append("validator_count is below validator_threshold")
    reasons += _check_segments(cert, vk_json)
    bad = [a.public_key[:16] for a in cert.attestations if not attest.check_attestation(a, cert.certificate_id)]
    if bad:
        reasons.append(f"Ed25519 attestation(s) do not sign this certificate id: {', '.join(bad)}")
    if opening is not None:
        reasons += check_opening(cert, opening)
    if verdict is not None:
        reasons += binding.check_against_verdict(cert, verdict)
    if trusted_root is not None and int(cert.validator_commitment, 16) != trusted_root:
        reasons.append("validator_commitment is not the trusted validator root")
    if cert.verify_url is not None and not cert.verify_url.endswith("/" + cert.certificate_id):
        reasons.append("verify_url does not point at this certificate id")
    return CheckResult(valid=not reasons, reasons=reasons)
