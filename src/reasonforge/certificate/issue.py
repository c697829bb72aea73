"""Issue a certificate from a verdict: sign, prove each segment, assemble, attest."""

from __future__ import annotations

import hashlib
import json
import secrets
import tempfile
import time
from pathlib import Path

from reasonforge.certificate import attest, canonical, validators, witness
from reasonforge.certificate.common import CertificateError, certificate_dir
from reasonforge.certificate.params import FIELD_MODULUS, CircuitParams
from reasonforge.certificate.prover import Progress, Prover, ensure_keys
from reasonforge.certificate.schema import (
    CommitmentOpening,
    ProofSegment,
    VerificationCertificate,
    VerificationKeyRef,
)
from reasonforge.registry import Spec
from reasonforge.types import VerificationVerdict


def plan_verdict_hash(verdict: VerificationVerdict) -> str:
    """The plan's sha256 verdict hash (default json separators, sorted keys)."""
    body = {
        "task_id": verdict.task_id,
        "overall": verdict.overall.value,
        "steps": [{"id": sv.step_id, "verified": sv.verified} for sv in verdict.step_verdicts],
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def checker_specs(verdict: VerificationVerdict) -> list[Spec]:
    """Distinct checker and translator specs recorded in the step details, for replay."""
    seen: dict[str, Spec] = {}
    for sv in verdict.step_verdicts:
        for key in ("spec", "translator"):
            raw = sv.details.get(key)
            if isinstance(raw, dict) and "name" in raw:
                spec = Spec.model_validate(raw)
                seen.setdefault(canonical.sha256_hex(spec.model_dump(mode="json")), spec)
    return list(seen.values())


def _validate_verdict(verdict: VerificationVerdict) -> None:
    """Refuse verdicts whose counts or hashes disagree with their own steps."""
    if not verdict.task_hash:
        raise CertificateError("the verdict has no task_hash: produce it with `reasonforge verify --json`", field="task_hash")
    if verdict.total_steps != len(verdict.step_verdicts) or verdict.total_steps == 0:
        raise CertificateError("total_steps must equal the number of step_verdicts (and be at least 1)", field="total_steps")
    if verdict.verified_steps != sum(sv.verified for sv in verdict.step_verdicts):
        raise CertificateError("verified_steps disagrees with the step verdicts", field="verified_steps")
    if verdict.verdict_hash and verdict.verdict_hash != plan_verdict_hash(verdict):
        raise CertificateError("verdict_hash does not match the verdict's steps", field="verdict_hash")


def issue(
    verdict: VerificationVerdict,
    *,
    home: Path,
    params: CircuitParams,
    timestamp: int | None = None,
    progress: Progress | None = None,
) -> tuple[VerificationCertificate, CommitmentOpening]:
    """Sign the verdict commitment with the local validators, prove it and build the certificate."""
    _validate_verdict(verdict)
    folder = certificate_dir(home)
    vset, created = validators.load_or_create(folder / "validators.json", params)
    if created and progress:
        progress(f"created {len(vset.validators)} local validator keys in {folder / 'validators.json'}")
    signers = list(range(min(len(vset.validators), params.max_validators)))
    if len(signers) < vset.threshold:
        raise CertificateError(f"{len(signers)} local validators cannot meet the threshold {vset.threshold}")
    keys = ensure_keys(params, folder / "keys", progress)
    prover = Prover(keys)
    root = vset.levels(params.merkle_depth)[-1][0]
    stamp = int(time.time()) if timestamp is None else timestamp
    task_field = canonical.hex_to_field(verdict.task_hash)
    bits = [sv.verified for sv in verdict.step_verdicts]

    segments, salts, previous = [], [], None
    for index, start in enumerate(range(0, len(bits), params.max_steps)):
        chunk = tuple(bits[start : start + params.max_steps])
        statement = witness.Statement(
            task_input=witness.segment_task_input(task_field, previous, index),
            step_bits=chunk,
            salt=secrets.randbelow(FIELD_MODULUS),
            timestamp=stamp,
            threshold=vset.threshold,
            stake_threshold=vset.stake_threshold,
            validator_root=root,
        )
        slots = witness.sign_statement(vset, statement, params.merkle_depth, signers)
        public = witness.public_inputs(statement, len(slots))
        with tempfile.TemporaryDirectory(prefix="rf-witness-") as tmp:
            proof = prover.prove(witness.circuit_inputs(params, statement, slots), public, Path(tmp))
        segments.append(
            ProofSegment(
                proof=proof.hex(),
                public_inputs=[str(x) for x in public],
                first_step=start,
                total_steps=len(chunk),
                verified_steps=sum(chunk),
            )
        )
        salts.append(str(statement.salt))
        previous = statement.commitment

    cert = VerificationCertificate(
        task_hash=verdict.task_hash,
        domain=verdict.domain.value,
        proof_level=verdict.proof_level.value,
        total_steps=verdict.total_steps,
        verified_steps=verdict.verified_steps,
        overall_verdict=verdict.overall.value,
        timestamp=stamp,
        validator_count=len(signers),
        validator_threshold=vset.threshold,
        stake_threshold=vset.stake_threshold,
        validator_commitment=f"0x{root:064x}",
        verdict_commitment=f"0x{previous:064x}",
        verdict_hash=plan_verdict_hash(verdict),
        zk_proof=segments,
        verification_key=VerificationKeyRef(
            circuit=params.name,
            params=params,
            sha256=hashlib.sha256(prover.verification_key_json.encode()).hexdigest(),
            insecure_development_key=(keys.folder / "INSECURE-DEVELOPMENT-KEYS.txt").exists(),
        ),
        checker_specs=checker_specs(verdict),
    )
    cert.certificate_id = cert.content_hash()
    cert.attestations = [
        attest.attest(bytes.fromhex(vset.validators[i].ed25519_seed), cert.certificate_id) for i in signers
    ]
    return cert, CommitmentOpening(certificate_id=cert.certificate_id, step_bits=bits, salts=salts)
