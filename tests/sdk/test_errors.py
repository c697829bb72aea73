"""Error bodies to typed exceptions, including bodies a proxy or a hostile server might send."""

from __future__ import annotations

import json

import pytest

from reasonforge.sdk import errors
from reasonforge.sdk.protocol import parse_body
from reasonforge.types import VerifyResponse


def make(status, body, headers=None):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return errors.error_from_response(status, headers or {}, raw)


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, errors.BadRequestError),
        (401, errors.AuthenticationError),
        (402, errors.PaymentRequiredError),
        (403, errors.PermissionDeniedError),
        (404, errors.NotFoundError),
        (409, errors.ConflictError),
        (413, errors.PayloadTooLargeError),
        (422, errors.InvalidRequestError),
        (429, errors.RateLimitError),
        (500, errors.ServerError),
        (503, errors.ServerError),
        (418, errors.ReasonForgeAPIError),
    ],
)
def test_status_picks_the_class(status, kind):
    error = make(status, {"error": {"code": "c", "message": "m", "field": "f"}})
    assert type(error) is kind
    assert (error.status, error.code, error.message, error.field) == (
        status,
        "c",
        "m",
        "f",
    )
    assert str(error) == f"HTTP {status} c: m (field: f)"


def test_retry_after_is_read_in_seconds_and_junk_is_ignored():
    assert (
        make(
            429,
            {"error": {"code": "rate_limited", "message": "slow down"}},
            {"retry-after": "7"},
        ).retry_after
        == 7
    )
    for junk in ("soon", "-3", "nan", "inf", ""):
        assert make(429, {}, {"retry-after": junk}).retry_after is None


def test_fastapi_validation_detail_becomes_message_and_field():
    error = make(
        422, {"detail": [{"loc": ["body", "domain"], "msg": "Input should be 'logic'"}]}
    )
    assert (
        error.field == "domain" and "domain: Input should be 'logic'" in error.message
    )


@pytest.mark.parametrize(
    "raw",
    [
        b"<html>Bad Gateway</html>",
        b"",
        b"[1, 2]",
        b'{"error": "flat string"}',
        b'{"error": {"code": 5, "message": null, "field": []}}',
        b"\xff\xfe",
        b"[" * 100_000,  # deeper than the decoder recurses
    ],
    ids=["html", "empty", "list", "flat", "odd-types", "not-utf8", "deep"],
)
def test_unexpected_bodies_still_give_a_readable_error(raw):
    error = make(502, raw)
    assert isinstance(error, errors.ServerError)
    assert error.message.startswith("the server answered HTTP 502")
    assert error.code == "http_502" and error.field is None


def test_huge_error_text_is_cut():
    error = make(500, {"error": {"code": "x", "message": "A" * 100_000}})
    assert len(error.message) == 2000


def test_a_2xx_body_nested_deeper_than_the_decoder_recurses_is_an_invalid_response():
    with pytest.raises(errors.InvalidResponseError, match="not a valid VerifyResponse.*check that base_url"):
        parse_body(VerifyResponse, b"[" * 100_000, "GET /v1/verify/t1")
