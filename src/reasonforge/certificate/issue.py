"""Issue certificates from verdicts: sign, prove each segment, assemble, attest (`Issuer` keeps keys loaded)."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reasonforge.certificate import attest, binding, merkle, validators, witness
from reasonforge.certificate.common import CertificateError, certificate_dir
from reasonforge.certificate.params import FIELD_MODULUS, CircuitParams
from reasonforge.certificate.prover import Progress, Prover, ensure_keys
from reasonforge.certificate.schema import (
    CommitmentOpening,
    ProofSegment,
    VerificationCertificate,
    VerificationKeyRef,
)
from reasonforge.chain import assurance_of, digest_of, overall_of
from reasonforge.types import Domain, ProofLevel, VerificationVerdict

# Checkers whose verdict is a formal proof: a mathematics verdict at the formal level must rest on them.
FORMAL_CHECKERS = frozenset({"coq", "lean4"})


def plan_verdict_hash(verdict: VerificationVerdict) -> str:
    """The plan's sha256 verdict hash (default json separators, sorted keys)."""
    body = {
        "task_id": verdict.task_id,
        "overall": verdict.overall.value,
        "steps": [{"id": sv.step_id, "verified": sv.verified} for sv in verdict.step_verdicts],
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _validate_verdict(verdict: VerificationVerdict) -> None:
    """Refuse verdicts whose counts, verdict, assurance, hashes or checkers disagree with their own steps."""
    if not verdict.task_hash:
        raise CertificateError(
            "the verdict has no task_hash: produce it with `reasonforge verify --json`", field="task_hash"
        )
    if not re.fullmatch(r"[0-9a-f]{64}", verdict.task_hash):
        raise CertificateError("task_hash must be 64 lowercase hex digits (a sha256)", field="task_hash")
    if verdict.total_steps != len(verdict.step_verdicts) or verdict.total_steps == 0:
        raise CertificateError(
            "total_steps must equal the number of step_verdicts (and be at least 1)", field="total_steps"
        )
    if verdict.verified_steps != sum(sv.verified for sv in verdict.step_verdicts):
        raise CertificateError("verified_steps disagrees with the step verdicts", field="verified_steps")
    if verdict.verdict_hash and verdict.verdict_hash != plan_verdict_hash(verdict):
        raise CertificateError("verdict_hash does not match the verdict's steps", field="verdict_hash")
    steps = {sv.step_id: sv for sv in verdict.step_verdicts}
    if verdict.overall is not overall_of(steps):
        raise CertificateError(
            f"overall {verdict.overall.value} is not what the steps' statuses and evidence give "
            f"({overall_of(steps).value})", field="overall",
        )
    if verdict.assurance is not None and verdict.assurance is not assurance_of(steps):
        raise CertificateError(
            f"assurance {verdict.assurance.value} is not what the steps give ({assurance_of(steps).value})",
            field="assurance",
        )
    if verdict.verdict_digest and verdict.verdict_digest != digest_of(verdict):
        raise CertificateError(
            "verdict_digest does not match the verdict (level, domain, claimed answer, steps, evidence or "
            "checkers were changed after verification)", field="verdict_digest",
        )
    if verdict.domain is Domain.MATHEMATICS and verdict.proof_level is ProofLevel.FORMAL:
        for sv in verdict.step_verdicts:
            spec = sv.checker_spec
            if sv.verified and (spec is None or spec.name not in FORMAL_CHECKERS):
                raise CertificateError(
                    f"step {sv.step_id} is verified at the formal level by "
                    f"{spec.name if spec else 'no recorded checker'}, not by a proof assistant "
                    f"({', '.join(sorted(FORMAL_CHECKERS))}): a formal certificate needs a formal proof",
                    field=f"step_verdicts[{sv.step_id}].details.spec",
                )


def verify_url_for(base: str, certificate_id: str) -> str:
    """`base`/`certificate_id`, the plan's verify_url shape (https://verify.example/0xabc...)."""
    if not base.startswith(("https://", "http://")) or any(c.isspace() for c in base):
        raise CertificateError(f"verify URL base {base!r} is not an http(s) URL", field="verify_base")
    return f"{base.rstrip('/')}/{certificate_id}"


class Issuer:
    """Issues certificates with the validator set and the proving key loaded once.

    Loading the full proving key takes seconds, so a long-running service builds one Issuer at
    start-up and keeps it. It is thread-safe: each request signs and computes its witness (a C++ or
    Node subprocess) concurrently; proofs are serialised by the prover's lock, since groth16py proves on
    one core and holds the GIL (a witness still runs on the other core meanwhile). The validator
    set is read once: build a new Issuer after changing it.
    """

    def __init__(self, home: Path, params: CircuitParams, progress: Progress | None = None) -> None:
        folder = certificate_dir(home)
        vset, created = validators.load_or_create(folder / "validators.json", params)
        if created and progress:
            progress(f"created {len(vset.validators)} local validator keys in {folder / 'validators.json'}")
        self.params = params
        self.validators = vset
        self.signers = list(range(min(len(vset.validators), params.max_validators)))
        if len(self.signers) < vset.threshold:
            raise CertificateError(f"{len(self.signers)} local validators cannot meet the threshold {vset.threshold}")
        levels = vset.levels(params.merkle_depth)
        self.root = merkle.root(levels)
        self.opening = merkle.opening(levels, params.open_bits)
        self.keys = ensure_keys(params, folder / "keys", progress)
        self.prover = Prover(self.keys)
        self.key_ref = VerificationKeyRef(
            circuit=params.name,
            params=params,
            sha256=hashlib.sha256(self.prover.verification_key_json.encode()).hexdigest(),
            insecure_development_key=(self.keys.folder / "INSECURE-DEVELOPMENT-KEYS.txt").exists(),
        )

    def _statements(self, verdict: VerificationVerdict, stamp: int, bound: int) -> list[witness.Statement]:
        """One statement per segment of max_steps steps: the first for the bound task input, each later one
        linked to the one before."""
        bits = [sv.verified for sv in verdict.step_verdicts]
        statements: list[witness.Statement] = []
        for index, start in enumerate(range(0, len(bits), self.params.max_steps)):
            previous = statements[-1].commitment if statements else None
            statements.append(
                witness.Statement(
                    task_input=witness.segment_task_input(verdict.task_hash, previous, index, bound),
                    step_bits=tuple(bits[start : start + self.params.max_steps]),
                    salt=secrets.randbelow(FIELD_MODULUS),
                    timestamp=stamp,
                    threshold=self.validators.threshold,
                    stake_threshold=self.validators.stake_threshold,
                    validator_root=self.root,
                )
            )
        return statements

    def _witness(self, statement: witness.Statement, workdir: Path) -> tuple[Path, list[int]]:
        """Sign the statement with every local validator and compute the circuit witness."""
        slots = witness.sign_statement(self.validators, statement, self.params.merkle_depth, self.signers)
        inputs = witness.circuit_inputs(self.params, statement, slots, self.opening)
        return self.prover.witness(inputs, workdir), witness.public_inputs(statement, len(slots))

    def issue(
        self, verdict: VerificationVerdict, *, timestamp: int | None = None, verify_base: str | None = None
    ) -> tuple[VerificationCertificate, CommitmentOpening]:
        """Sign the verdict commitment with the local validators, prove every segment, build the certificate."""
        _validate_verdict(verdict)
        if verify_base is not None:
            verify_url_for(verify_base, "0x")  # refuse a bad base before proving
        stamp = int(time.time()) if timestamp is None else timestamp
        if not 0 < stamp < 1 << 64:
            raise CertificateError(f"timestamp {stamp} is not a positive 64-bit Unix time", field="timestamp")
        specs = binding.checker_specs(verdict)
        steps = {sv.step_id: sv for sv in verdict.step_verdicts}
        assurance = verdict.assurance or assurance_of(steps)
        digest = digest_of(verdict)
        checkers = binding.checkers_digest(specs)
        bound = binding.bound_task_input(
            task_hash=verdict.task_hash, verdict_digest=digest, checkers=checkers, domain=verdict.domain.value,
            proof_level=verdict.proof_level.value, overall=verdict.overall.value, assurance=assurance.value,
        )
        statements = self._statements(verdict, stamp, bound)
        segments = []
        # Witnesses for later segments are computed while earlier ones are proved (two cores).
        with tempfile.TemporaryDirectory(prefix="rf-witness-") as tmp, ThreadPoolExecutor(max_workers=1) as pool:
            pending = [pool.submit(self._witness, st, Path(tmp) / str(i)) for i, st in enumerate(statements)]
            first = 0
            for statement, future in zip(statements, pending):
                wtns, public = future.result()
                proof = self.prover.prove_witness(wtns, public)
                segments.append(
                    ProofSegment(
                        proof=proof.hex(),
                        public_inputs=[str(x) for x in public],
                        first_step=first,
                        total_steps=len(statement.step_bits),
                        verified_steps=sum(statement.step_bits),
                    )
                )
                first += len(statement.step_bits)

        cert = VerificationCertificate(
            task_hash=verdict.task_hash,
            domain=verdict.domain.value,
            proof_level=verdict.proof_level.value,
            total_steps=verdict.total_steps,
            verified_steps=verdict.verified_steps,
            overall_verdict=verdict.overall.value,
            assurance=assurance.value,
            verdict_digest=digest,
            checkers_digest=checkers,
            timestamp=stamp,
            validator_count=len(self.signers),
            validator_threshold=self.validators.threshold,
            stake_threshold=self.validators.stake_threshold,
            validator_commitment=f"0x{self.root:064x}",
            verdict_commitment=f"0x{statements[-1].commitment:064x}",
            verdict_hash=plan_verdict_hash(verdict),
            zk_proof=segments,
            verification_key=self.key_ref,
            checker_specs=specs,
        )
        cert.certificate_id = cert.content_hash()
        cert.attestations = [
            attest.attest(bytes.fromhex(self.validators.validators[i].ed25519_seed), cert.certificate_id)
            for i in self.signers
        ]
        if verify_base is not None:
            cert.verify_url = verify_url_for(verify_base, cert.certificate_id)
        bits = [sv.verified for sv in verdict.step_verdicts]
        opening = CommitmentOpening(
            certificate_id=cert.certificate_id, step_bits=bits, salts=[str(st.salt) for st in statements]
        )
        return cert, opening


def issue(
    verdict: VerificationVerdict,
    *,
    home: Path,
    params: CircuitParams,
    timestamp: int | None = None,
    progress: Progress | None = None,
    verify_base: str | None = None,
) -> tuple[VerificationCertificate, CommitmentOpening]:
    """One certificate with keys loaded for this call only (the CLI's path; services keep an Issuer)."""
    _validate_verdict(verdict)
    if verify_base is not None:
        verify_url_for(verify_base, "0x")  # refuse a bad base before the keys load, not after proving
    return Issuer(home, params, progress).issue(verdict, timestamp=timestamp, verify_base=verify_base)
