"""Callback URL checks: http(s) only and, unless allowed, only to public addresses (no SSRF)."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from pydantic import BaseModel

from reasonforge.service.errors import ValidationFailedError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_FIELD = "callback_url"
_MAX_URL = 2048
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_ALLOW_HINT = "use a public http(s) endpoint (set REASONFORGE_WEBHOOK_ALLOW_PRIVATE=true only for trusted local use)"


class CallbackUnresolvableError(ValidationFailedError):
    """The callback host did not resolve (possibly transient, so a delivery may retry)."""


class CallbackTarget(BaseModel):
    """A checked callback: the URL's parts and the resolved addresses allowed for it."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: list[str]


def address_refusal(ip: IPAddress) -> str | None:
    """Why a callback may not go to `ip` (None when it is a public unicast address)."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            inner = address_refusal(embedded)
            if inner is not None:
                return f"{inner} (embedded in IPv6 {ip.compressed})"
    checks = (
        (ip.is_loopback, "a loopback address"),
        (ip.is_unspecified, "the unspecified address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (
            isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT,
            "a carrier-grade NAT (100.64.0.0/10) address",
        ),
        (
            isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local,
            "a site-local address",
        ),
        (ip.is_reserved, "a reserved address"),
        (ip.is_private, "a private address"),
        (not ip.is_global, "not a globally routable address"),
    )
    return next((reason for refused, reason in checks if refused), None)


def validate_callback_url(url: str, *, allow_private: bool) -> str:
    """The URL if callbacks may go there; ValidationFailedError(field="callback_url") otherwise."""
    return check_callback(url, allow_private=allow_private).url


def check_callback(url: str, *, allow_private: bool) -> CallbackTarget:
    """Parse, resolve and check a callback URL; every resolved address must be allowed."""
    scheme, host, port = _parse(url)
    addresses = _resolve(host, port)
    if not allow_private:
        for ip in addresses:
            reason = address_refusal(ip)
            if reason is not None:
                shown = (
                    host
                    if host == ip.compressed
                    else f"{host} resolves to {ip.compressed}, which"
                )
                raise ValidationFailedError(
                    f"callback_url refused: {shown} is {reason}; {_ALLOW_HINT}",
                    field=_FIELD,
                )
    return CallbackTarget(
        url=url.strip(),
        scheme=scheme,
        host=host,
        port=port,
        addresses=[a.compressed for a in addresses],
    )


def _parse(url: str) -> tuple[str, str, int]:
    if not isinstance(url, str) or not url.strip():
        raise ValidationFailedError(
            "callback_url must be a non-empty http(s) URL", field=_FIELD
        )
    url = url.strip()
    if len(url) > _MAX_URL:
        raise ValidationFailedError(
            f"callback_url is longer than {_MAX_URL} characters", field=_FIELD
        )
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise ValidationFailedError(
            "callback_url contains whitespace or control characters", field=_FIELD
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValidationFailedError(
            f"callback_url is not a valid URL ({exc})", field=_FIELD
        ) from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValidationFailedError(
            f"callback_url must use http or https, not {scheme or 'no scheme'!r}",
            field=_FIELD,
        )
    if "@" in parts.netloc:
        raise ValidationFailedError(
            "callback_url must not carry credentials (user:password@); authenticate the webhook by its signature",
            field=_FIELD,
        )
    host = parts.hostname
    if not host:
        raise ValidationFailedError("callback_url has no host", field=_FIELD)
    if "%" in host:
        raise ValidationFailedError(
            "callback_url must not name an IPv6 zone (scoped addresses are local)",
            field=_FIELD,
        )
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError as exc:
        raise ValidationFailedError(
            f"callback_url host {host!r} is not a valid domain name", field=_FIELD
        ) from exc
    return scheme, host, port or (443 if scheme == "https" else 80)


def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise CallbackUnresolvableError(
            f"callback_url host {host!r} does not resolve ({exc})", field=_FIELD
        ) from exc
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if ip not in addresses:
            addresses.append(ip)
    if not addresses:
        raise CallbackUnresolvableError(
            f"callback_url host {host!r} has no addresses", field=_FIELD
        )
    return addresses


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, Teredo client, NAT64, compatible)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if int(ip) >> 32 == 0 and int(ip) > 1:
        return ipaddress.IPv4Address(int(ip))  # deprecated IPv4-compatible ::a.b.c.d
    return None
