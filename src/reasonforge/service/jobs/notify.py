"""Send a finished job's webhook once (under a lease, so a crashed sender's webhook is re-sent)."""

from __future__ import annotations

import logging

from reasonforge.errors import ReasonForgeError
from reasonforge.service.jobs import webhook_state
from reasonforge.service.jobs.context import JobContext
from reasonforge.service.jobs.views import to_response
from reasonforge.service.settings import ServiceSettings

log = logging.getLogger(__name__)


def webhook_lease_s(settings: ServiceSettings) -> float:
    """Longer than a delivery with every retry and backoff can take."""
    backoff = settings.webhook_backoff_s * (2**settings.webhook_max_attempts)
    return (
        backoff
        + (settings.webhook_timeout_s + 5.0) * settings.webhook_max_attempts
        + 60.0
    )


def deliver_pending(ctx: JobContext, task_id: str) -> bool:
    """Deliver the job's webhook if it is due and nobody else holds it; True when this call sent it."""
    from reasonforge.service.webhooks import deliver_webhook

    row = webhook_state.claim_webhook(
        ctx.sessionmaker, task_id, lease_s=webhook_lease_s(ctx.settings)
    )
    if row is None or not row.callback_url:
        return False
    payload = to_response(row, ctx.settings.public_base_url).model_dump(mode="json")
    try:
        deliver_webhook(
            ctx.sessionmaker,
            task_id=task_id,
            url=row.callback_url,
            payload=payload,
            settings=ctx.settings,
            # Signed with the owner's own secret; without authentication there is no owner key.
            key_id=row.owner_key_id if ctx.settings.require_auth else None,
        )
    except ReasonForgeError as exc:
        # Refused for good (e.g. the host now resolves to a private address): recorded, not retried.
        log.warning("webhook for %s refused: %s", task_id, exc.message)
    except Exception:
        log.exception(
            "webhook for %s crashed; it is re-sent when its lease expires", task_id
        )
        return False
    webhook_state.finish_webhook(ctx.sessionmaker, task_id)
    return True
