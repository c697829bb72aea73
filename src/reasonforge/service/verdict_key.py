"""The service's verdict signing key: created on first start, used to sign every verdict the service records,
published as a public key (GET /v1/verdict-key, `reasonforge verdict-key`) for readers to trust.

The seed lives only in its file (`ServiceSettings.resolved_verdict_signing_key`, mode 0600); what leaves this
module is the public key or a signed verdict. Workers on other machines (the Celery queue) must be given the
same file, or the verdicts they record carry a key the pages of this service do not trust."""

from __future__ import annotations

from reasonforge.certificate.verdict_signature import public_key_of, read_or_create_key, sign_verdict
from reasonforge.service.settings import ServiceSettings
from reasonforge.types import VerificationVerdict

__all__ = ["ensure_verdict_key", "sign"]


def ensure_verdict_key(settings: ServiceSettings) -> str:
    """Create the key file when there is none (first start); its public key. CertificateError when unusable."""
    return public_key_of(read_or_create_key(settings.resolved_verdict_signing_key()))


def sign(settings: ServiceSettings, verdict: VerificationVerdict) -> VerificationVerdict:
    """`verdict` signed with this service's key (created here if the process that records it started none)."""
    return sign_verdict(verdict, read_or_create_key(settings.resolved_verdict_signing_key()))
