"""Credentials never leave: what strips them from everything the process writes out.

A credential reaches the process three ways: in a URL (`https://user:secret@host/v1`, `?api_key=…`), in a setting
or variable named for one (`REASONFORGE_MODEL_API_KEY`, `webhook_secret`, `token`), or in a header built from
those (`Authorization: Bearer …`, `x-api-key`). Three rules strip them:

- `redact_url`: a URL's userinfo becomes `***` and the values of secret-named query parameters too;
- `redact_args`: in a structure (a `Spec`'s args, a settings dump), a secret-named key's text value becomes `***`
  and every string is scrubbed as text;
- `scrub`: in free text (an error message, a log line, a server's error body that echoes our request), URL
  userinfo, secret-named query parameters, bearer tokens and `x-api-key`-style header values become `***`, and so
  does every known secret value (`env_secrets`: the values of the environment's secret-named variables and the
  passwords of its URLs), wherever it appears.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

__all__ = ["MASK", "env_secrets", "is_secret_name", "redact_args", "redact_url", "scrub", "url_secrets"]

MASK = "***"
MIN_SECRET_CHARS = 6  # a shorter "secret" would mask ordinary words wherever they appear
_SECRET_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "passphrase",
                           "authorization", "credential", "credentials", "cookie", "signature", "sig", "dsn"})
_WORD = re.compile(r"[a-z0-9]+")
# The shell's working directories: named like a password ("pwd"), but masking them hid every path under them
_SHELL_DIRECTORIES = frozenset({"PWD", "OLDPWD"})
# scheme://userinfo@ (userinfo: everything up to the authority's last '@'; a password may hold a raw '@')
_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^\s/?#@\"'<>]*(?:@[^\s/?#@\"'<>]*)*)@")
_QUERY_SECRET = re.compile(r"(?P<name>[?&;](?P<key>[A-Za-z0-9_.-]+)=)(?P<value>[^&;#\s\"'<>]+)")
_BEARER = re.compile(r"(?P<lead>\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{8,}"
                     r"|(?P<basic>\bBasic\s+)(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{8,}={0,2}")
_HEADER = re.compile(r"(?P<lead>\b(?:x-api-key|api-key|authorization|x-goog-api-key|cookie)\"?\s*[:=]\s*\"?)"
                     r"(?P<value>(?!\*\*\*)[^\s\"',;}]+)", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """Does a setting, variable, header or parameter named `name` hold a credential (`api_key`, `OPENAI_API_KEY`,
    `webhook_secret`, `x-api-key`, `token`)? `max_tokens` does not: only the last word counts, in the singular."""
    words = _WORD.findall(name.lower())
    return bool(words) and (words[-1] in _SECRET_WORDS or "".join(words[-2:]) in _SECRET_WORDS)


def redact_url(url: str) -> str:
    """`url` with its userinfo and the values of its secret-named query parameters replaced by `***`; text that
    is not a URL is returned as it is."""
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:  # an unbalanced IPv6 bracket and the like: scrub it as text
        return _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rpartition('@')[2]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_name(key) for key, _ in pairs):
            query = urlencode([(key, MASK if is_secret_name(key) else value) for key, value in pairs], safe="*")
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def url_secrets(url: str) -> set[str]:
    """The credentials written into `url`: its password and userinfo (raw, percent-decoded, and base64-encoded as
    HTTP Basic credentials), the values of its secret-named query parameters."""
    out: set[str] = set()
    if "://" not in url:
        return out
    try:
        parts = urlsplit(url)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return out
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        user, _, password = userinfo.partition(":")
        # as written, percent-decoded, and as the Basic credentials an HTTP client sends for it
        basic = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
        out |= {userinfo, password, unquote(password), unquote(userinfo), basic}
        if not password:
            out |= {user, unquote(user)}  # a token sent as the user name (https://TOKEN@host)
    out |= {value for key, value in pairs if is_secret_name(key)}
    return {secret for secret in out if len(secret) >= MIN_SECRET_CHARS}


def env_secrets(env: Mapping[str, str] | None = None) -> frozenset[str]:
    """Every credential the environment holds: the values of its secret-named variables and the credentials in
    its URL-valued ones."""
    env = os.environ if env is None else env
    out: set[str] = set()
    for name, value in env.items():
        if is_secret_name(name) and name not in _SHELL_DIRECTORIES and len(value.strip()) >= MIN_SECRET_CHARS:
            out.add(value.strip())
        if "://" in value:
            out |= url_secrets(value.strip())
    return frozenset(out)


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every credential it shows replaced by `***`: URL userinfo, secret-named query parameters,
    bearer tokens, api-key headers, and each of `secrets` (longest first) wherever it appears."""
    if not text:
        return text
    out = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    out = _QUERY_SECRET.sub(lambda m: f"{m['name']}{MASK}" if is_secret_name(m["key"]) else m[0], out)
    out = _BEARER.sub(lambda m: f"{m['lead'] or m['basic']}{MASK}", out)
    out = _HEADER.sub(lambda m: f"{m['lead']}{MASK}", out)
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True):
        out = out.replace(secret, MASK)
    return out


def redact_args(value: Any, secrets: Iterable[str] = (), *, depth: int = 0) -> Any:
    """`value` (JSON-like: dicts, lists, strings, numbers) with credentials stripped: a secret-named key's string
    value becomes `***`, every other string is `scrub`bed. Deeper than 32 levels it is left as it is (specs and
    settings are shallow)."""
    known = secrets if isinstance(secrets, frozenset) else frozenset(secrets)
    if isinstance(value, str):
        return scrub(value, known)
    if depth > 32:
        return value
    if isinstance(value, Mapping):
        return {key: (MASK if isinstance(key, str) and is_secret_name(key) and isinstance(item, str) and item
                      else redact_args(item, known, depth=depth + 1))
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_args(item, known, depth=depth + 1) for item in value)
    return value
