"""Certificates for finished verdicts, issued with the local validator keys under the service home."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from reasonforge.errors import ReasonForgeError
from reasonforge.service.jobs.leases import IssuedCertificate
from reasonforge.service.settings import ServiceSettings
from reasonforge.types import VerificationVerdict


class CertificateFailure(ReasonForgeError):
    """The verdict is fine but its certificate could not be issued (toolchain, keys, proving)."""

    code = "certificate_failed"


def circuit_params(settings: ServiceSettings):
    """The circuit instance the service proves with."""
    from reasonforge.certificate.params import FULL, SMALL

    return SMALL if settings.certificate_circuit == "small" else FULL


def certificates_unavailable(settings: ServiceSettings) -> str | None:
    """Why this server cannot issue certificates (Node or the npm tools missing), or None when it can."""
    from reasonforge.certificate import toolchain

    if shutil.which("node") is None:
        return "node is not installed on this server (scripts/install-system.sh installs it)"
    try:
        toolchain.node_modules()
    except ReasonForgeError as exc:
        return exc.message
    return None


def verification_key_path(settings: ServiceSettings, circuit: str) -> Path:
    """Where the service keeps the verification key of `circuit`."""
    from reasonforge.certificate.common import certificate_dir

    return certificate_dir(settings.home) / "keys" / circuit / "verification_key.json"


class CertificateIssuer:
    """Issues certificates for one process, loading the validator set and proving key on first use."""

    def __init__(self, settings: ServiceSettings) -> None:
        self._settings = settings
        self._issuer = None
        self._lock = threading.Lock()

    def _loaded(self):
        from reasonforge.certificate.issue import Issuer

        with self._lock:
            if self._issuer is None:
                self._issuer = Issuer(
                    self._settings.home, circuit_params(self._settings)
                )
            return self._issuer

    def issue(self, verdict: VerificationVerdict) -> IssuedCertificate:
        """Prove and sign `verdict`; its verify_url is the service's certificate page."""
        verify_base = f"{self._settings.public_base_url.rstrip('/')}/verify"
        try:
            cert, opening = self._loaded().issue(verdict, verify_base=verify_base)
        except ReasonForgeError as exc:
            raise CertificateFailure(
                f"the certificate could not be issued: {exc.message}"
            ) from exc
        return IssuedCertificate(
            certificate_id=cert.certificate_id,
            certificate_json=cert.model_dump_json(),
            opening_json=opening.model_dump_json(),
        )
