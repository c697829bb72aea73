"""SSRF guard: callbacks only to public http(s) addresses unless private ones are allowed."""

from __future__ import annotations

import pytest

from reasonforge.service.errors import ValidationFailedError
from reasonforge.service.webhooks import validate_callback_url


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:8080/hook", "loopback"),
        ("http://127.1.2.3/", "loopback"),
        ("http://localhost:9000/hook", "loopback"),  # a name resolving to loopback
        ("http://2130706433/", "loopback"),  # 127.0.0.1 written as one decimal number
        ("http://0x7f.1/", "loopback"),  # ... and in hexadecimal shorthand
        ("http://10.1.2.3/", "private"),
        ("http://172.16.0.1/", "private"),
        ("http://192.168.1.10/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),  # cloud metadata
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://224.0.0.1/", "multicast"),
        ("http://240.0.0.1/", "reserved"),
        ("http://[::1]/", "loopback"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[fc00::5]/", "private"),
        ("http://[fec0::1]/", "site-local"),
        ("http://[ff02::1]/", "multicast"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),  # IPv4-mapped IPv6
        ("http://[::ffff:10.0.0.1]/", "private"),
        ("http://[::ffff:169.254.169.254]/", "link-local"),
        ("http://[2002:7f00:1::]/", "loopback"),  # 6to4 around 127.0.0.1
        ("http://[64:ff9b::a00:1]/", "private"),  # NAT64 around 10.0.0.1
    ],
)
def test_private_targets_are_refused(url, reason):
    with pytest.raises(ValidationFailedError) as info:
        validate_callback_url(url, allow_private=False)
    err = info.value
    assert err.field == "callback_url" and err.status_code == 422
    assert reason in err.message and "REASONFORGE_WEBHOOK_ALLOW_PRIVATE" in err.message


@pytest.mark.parametrize(
    ("url", "expect"),
    [
        ("ftp://example.com/x", "http or https"),
        ("file:///etc/passwd", "http or https"),
        ("gopher://127.0.0.1:70/", "http or https"),
        ("javascript:alert(1)", "http or https"),
        ("example.com/hook", "http or https"),
        ("http:///nohost", "no host"),
        ("http://user:pw@example.com/", "credentials"),
        ("http://example.com:99999/", "not a valid URL"),
        ("http://exa mple.com/", "whitespace"),
        ("http://[fe80::1%25eth0]/", "zone"),
        ("", "non-empty"),
        ("http://example.com/" + "a" * 3000, "longer than"),
        ("http://no-such-host.invalid/hook", "does not resolve"),
    ],
)
def test_malformed_urls_are_refused_with_a_reason(url, expect):
    with pytest.raises(ValidationFailedError) as info:
        validate_callback_url(url, allow_private=True)
    assert expect in info.value.message and info.value.field == "callback_url"


@pytest.mark.parametrize(
    "url",
    [
        "https://93.184.216.34/hooks/rf",
        "http://[2606:4700:4700::1111]:8443/cb",
        "HTTPS://1.1.1.1/x",
    ],
)
def test_public_addresses_are_accepted(url):
    assert validate_callback_url(url, allow_private=False) == url


def test_loopback_is_accepted_only_when_private_targets_are_allowed():
    url = "http://127.0.0.1:8080/hook"
    assert validate_callback_url(url, allow_private=True) == url
    assert (
        validate_callback_url("http://localhost:8080/x", allow_private=True)
        == "http://localhost:8080/x"
    )
    with pytest.raises(ValidationFailedError):
        validate_callback_url(url, allow_private=False)
