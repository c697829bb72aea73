"""API errors: each carries its HTTP status and renders as `{"error": {"code", "message", "field"}}`."""

from __future__ import annotations

from reasonforge.errors import ReasonForgeError


class ServiceError(ReasonForgeError):
    """An error the API answers with `status_code` and the standard error body."""

    code = "service_error"
    status_code = 500

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message, field=field)
        self.headers = headers or {}

    def body(self) -> dict[str, dict[str, str | None]]:
        """The JSON body every API error uses."""
        return {"error": self.to_dict()}


class BadRequestError(ServiceError):
    """The request is malformed or names something invalid (a field says which)."""

    code = "bad_request"
    status_code = 400


class ValidationFailedError(ServiceError):
    """The body parsed but a field has an invalid value."""

    code = "validation_error"
    status_code = 422


class UnauthorizedError(ServiceError):
    """No API key, an unknown one, or a revoked one."""

    code = "unauthorized"
    status_code = 401


class ForbiddenError(ServiceError):
    """The key is valid but lacks the scope this endpoint needs."""

    code = "forbidden"
    status_code = 403


class PaymentRequiredError(ServiceError):
    """The key's monthly quota or credit balance does not cover the request."""

    code = "payment_required"
    status_code = 402


class NotFoundError(ServiceError):
    """No such task or certificate for this caller."""

    code = "not_found"
    status_code = 404


class ConflictError(ServiceError):
    """An `Idempotency-Key` was reused with a different body."""

    code = "conflict"
    status_code = 409


class PayloadTooLargeError(ServiceError):
    """The request body exceeds the configured limit."""

    code = "payload_too_large"
    status_code = 413


class RateLimitedError(ServiceError):
    """Too many requests for this key; `Retry-After` says when to try again."""

    code = "rate_limited"
    status_code = 429

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message, headers={"Retry-After": str(max(1, retry_after_s))})
        self.retry_after_s = max(1, retry_after_s)


class UnavailableError(ServiceError):
    """The server lacks a tool this request needs (the message says which and how to install it)."""

    code = "unavailable"
    status_code = 503
