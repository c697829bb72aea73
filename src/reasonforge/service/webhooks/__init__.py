"""Completion webhooks: SSRF-safe callback URLs, HMAC-SHA256 signatures, retried and recorded delivery."""

from reasonforge.service.webhooks.delivery import DeliveryOutcome, deliver_webhook
from reasonforge.service.webhooks.signing import (
    DELIVERY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    key_webhook_secret,
    sign_payload,
    signature_headers,
    signing_secret,
    verify_signature,
    webhook_secret,
)
from reasonforge.service.webhooks.tables import (
    WebhookAttemptRow,
    WebhookDeadLetterRow,
    WebhookDeliveryRow,
)
from reasonforge.service.webhooks.urls import (
    address_refusal,
    check_callback,
    validate_callback_url,
)

__all__ = [
    "DELIVERY_HEADER",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "DeliveryOutcome",
    "WebhookAttemptRow",
    "WebhookDeadLetterRow",
    "WebhookDeliveryRow",
    "address_refusal",
    "check_callback",
    "deliver_webhook",
    "key_webhook_secret",
    "sign_payload",
    "signature_headers",
    "signing_secret",
    "validate_callback_url",
    "verify_signature",
    "webhook_secret",
]
