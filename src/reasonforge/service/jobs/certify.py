"""Certificates for finished verdicts, issued with the local validator keys under the service home."""

from __future__ import annotations

import logging
import shutil
import threading
import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from reasonforge.errors import ReasonForgeError
from reasonforge.service.jobs.leases import IssuedCertificate
from reasonforge.service.settings import ServiceSettings
from reasonforge.types import VerificationVerdict

if TYPE_CHECKING:
    from reasonforge.certificate.issue import Issuer

log = logging.getLogger(__name__)

KEYS_PENDING_DETAIL = (
    "waiting for the certificate keys: this server is building them (a one-off on a fresh home, about a "
    "minute; GET /healthz shows certificate_keys), and the certificate follows once they are ready"
)


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


class KeyState(StrEnum):
    """Where the server's certificate keys are (GET /healthz `certificate_keys`)."""

    READY = "ready"
    BUILDING = "building keys"
    NOT_BUILT = "not built"  # build_keys_at_start is off: the first certificate job builds them
    FAILED = "failed"
    UNAVAILABLE = "unavailable"  # no Node or npm tools: certificates are refused at submission


def keys_ready(settings: ServiceSettings) -> bool:
    """Are the circuit keys built, so a certificate job waits for no compile or setup?"""
    from reasonforge.certificate.common import certificate_dir
    from reasonforge.certificate.prover import keys_ready as built

    return built(circuit_params(settings), certificate_dir(settings.home) / "keys")


class KeyBuilder:
    """Builds the certificate keys in a background thread when the server starts, so the first certificate
    request does not sit for the compile and setup; job processes that need them meanwhile wait on the same
    build (ensure_keys holds a file lock) instead of starting another."""

    def __init__(self, settings: ServiceSettings, unavailable: str | None) -> None:
        self._settings, self._unavailable = settings, unavailable
        self._thread: threading.Thread | None = None
        self._error: str | None = None
        self._ready = False  # once true it stays true: state() is asked on every request and must not hit the disk
        self._checked_at = -1e9  # when the disk last said "not ready" (asked again at most once a second)

    def start(self) -> None:
        """Start building unless the keys are there already (or certificates are off)."""
        if self._settings.build_keys_at_start and self._unavailable is None and not self._keys_ready():
            self._thread = threading.Thread(target=self._build, name="reasonforge-keys", daemon=True)
            self._thread.start()

    def _keys_ready(self) -> bool:
        now = time.monotonic()
        if not self._ready and now - self._checked_at >= 1.0:
            self._ready = keys_ready(self._settings)
            self._checked_at = now
        return self._ready

    def _build(self) -> None:
        from reasonforge.certificate.common import certificate_dir
        from reasonforge.certificate.prover import ensure_keys

        log.info("certificate keys: building them now (a one-off; certificate jobs wait for them)")
        try:
            ensure_keys(circuit_params(self._settings), certificate_dir(self._settings.home) / "keys",
                        progress=lambda message: log.info("certificate keys: %s", message))
        except ReasonForgeError as exc:
            self._error = exc.message
            log.error("certificate keys could not be built: %s", exc.message)
            return
        except Exception as exc:  # a crash here must not take the server down; jobs will report it
            self._error = f"{type(exc).__name__}: {exc}"
            log.exception("certificate keys could not be built")
            return
        self._ready = True

    def state(self) -> KeyState:
        """Ready, building, failed, or unavailable on this server."""
        if self._unavailable is not None:
            return KeyState.UNAVAILABLE
        if self._error is not None:
            return KeyState.FAILED
        if self._ready:
            return KeyState.READY
        if self._thread is not None and self._thread.is_alive():
            return KeyState.BUILDING
        if self._keys_ready():
            return KeyState.READY
        # not started here: another process of this home may be building them, or the first job will
        return KeyState.BUILDING if self._settings.build_keys_at_start else KeyState.NOT_BUILT


class CertificateIssuer:
    """Issues certificates for one process, loading the validator set and proving key on first use."""

    def __init__(self, settings: ServiceSettings) -> None:
        self._settings = settings
        self._issuer: Issuer | None = None
        self._lock = threading.Lock()

    def _loaded(self) -> Issuer:
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
        issuer = self._loaded()  # loading the keys is not proving: the clock starts after it
        started = time.perf_counter()
        try:
            cert, opening = issuer.issue(verdict, verify_base=verify_base)
        except ReasonForgeError as exc:
            raise CertificateFailure(
                f"the certificate could not be issued: {exc.message}"
            ) from exc
        return IssuedCertificate(
            certificate_id=cert.certificate_id,
            certificate_json=cert.model_dump_json(),
            opening_json=opening.model_dump_json(),
            prove_seconds=round(time.perf_counter() - started, 4),
        )
