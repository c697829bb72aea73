"""Signed HTTP between validators and miners (bittensor `http_auth`, btauth/1): what both ends share.

The miner's server is `miner_server.py` (FastAPI), the validator's client `validator_client.py` (httpx);
this module holds what they must agree on: the paths, the size caps and how an answer is signed.

Answers are signed too: a 200 from POST /task carries btauth/1 headers over the response body, with
method `RESPONSE`, target `/task#<request nonce>` and the caller as receiver (`sign_response`). A
validator therefore accepts only an answer made by the hotkey it queried, for this very request: an
endpoint that relays another miner's answers, or an old answer replayed, is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bittensor import http_auth

from reasonforge.subnet.keys import Identity
from reasonforge.subnet.protocol import LIMITS

__all__ = ["HEALTH_PATH", "MAX_BODY_BYTES", "MAX_RESPONSE_BYTES", "RESPONSE_METHOD", "RESULT_PATH", "TASK_PATH",
           "describe_errors", "response_target", "sign_response"]

RESPONSE_METHOD = "RESPONSE"
"""The btauth/1 method of a signed answer: never a request method, so a signed request is no answer."""
TASK_PATH = "/task"
RESULT_PATH = "/result"
HEALTH_PATH = "/health"
MAX_BODY_BYTES = LIMITS.max_request_bytes
"""Largest request a miner accepts (1 MiB, DESIGN §3.1)."""
MAX_RESPONSE_BYTES = 4 * LIMITS.max_request_bytes
"""Largest response a validator reads: a filled task carries the chain plus its artifacts."""


def response_target(path: str, request_nonce: str) -> str:
    """The signed target of an answer: the request's path bound to the request's nonce."""
    return f"{path}#{request_nonce}"


def sign_response(identity: Identity, *, path: str, request_headers: Mapping[str, str], body: bytes) -> dict[str, str]:
    """btauth/1 headers that bind an answer `body` to the request it answers (its nonce and its caller)."""
    lowered = {key.lower(): value for key, value in request_headers.items()}
    nonce = lowered.get(http_auth.HEADER_NONCE.lower(), "")
    caller = lowered.get(http_auth.HEADER_HOTKEY.lower())
    return http_auth.sign(
        identity, method=RESPONSE_METHOD, path=response_target(path, nonce), body=body, receiver_ss58=caller
    )


def describe_errors(errors: list[Any], limit: int = 3) -> str:
    """'field.path: message; ...' for the first few pydantic errors."""
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(body)'}: {e['msg']}" for e in errors[:limit]]
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(parts) + more

