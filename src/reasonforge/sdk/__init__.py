"""Python client for the ReasonForge verification API (sync `ReasonForge`, asyncio `AsyncReasonForge`).

    from reasonforge import ReasonForge

    with ReasonForge(api_key="rf_...", base_url="http://127.0.0.1:8000") as rf:
        result = rf.verify(reasoning_chain=[...], domain="mathematics", proof_level="quick")
        print(result.verdict, result.certificate_url)

Answers are the API's own models (`reasonforge.types.VerifyResponse`); error answers raise
`ReasonForgeAPIError` subclasses carrying status, code, message and field.
"""

from __future__ import annotations

from reasonforge.sdk.async_client import AsyncReasonForge
from reasonforge.sdk.client import ReasonForge
from reasonforge.sdk.errors import (
    APIConnectionError,
    AuthenticationError,
    BadRequestError,
    ClientClosedError,
    ConflictError,
    InvalidRequestError,
    InvalidResponseError,
    NotFoundError,
    PayloadTooLargeError,
    PaymentRequiredError,
    PermissionDeniedError,
    RateLimitError,
    ReasonForgeAPIError,
    ServerError,
    VerificationTimeoutError,
)
from reasonforge.sdk.models import Certificate, CertificateCheck, Stats
from reasonforge.types import FailureDetail, JobStatus, VerifyResponse

__all__ = [
    "APIConnectionError",
    "AsyncReasonForge",
    "AuthenticationError",
    "BadRequestError",
    "Certificate",
    "CertificateCheck",
    "ClientClosedError",
    "ConflictError",
    "FailureDetail",
    "InvalidRequestError",
    "InvalidResponseError",
    "JobStatus",
    "NotFoundError",
    "PayloadTooLargeError",
    "PaymentRequiredError",
    "PermissionDeniedError",
    "RateLimitError",
    "ReasonForge",
    "ReasonForgeAPIError",
    "ServerError",
    "Stats",
    "VerificationTimeoutError",
    "VerifyResponse",
]
