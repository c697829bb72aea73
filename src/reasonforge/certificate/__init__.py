"""Verification certificates: hashes, signatures, Merkle commitment, Groth16 proof, EVM registry."""

from reasonforge.certificate.check import CheckResult, check_certificate
from reasonforge.certificate.common import CertificateError
from reasonforge.certificate.issue import Issuer, issue
from reasonforge.certificate.params import FULL, SMALL, CircuitParams
from reasonforge.certificate.schema import (
    CommitmentOpening,
    ProofSegment,
    VerificationCertificate,
)

__all__ = [
    "FULL",
    "SMALL",
    "CertificateError",
    "CheckResult",
    "CircuitParams",
    "CommitmentOpening",
    "Issuer",
    "ProofSegment",
    "VerificationCertificate",
    "check_certificate",
    "issue",
]
