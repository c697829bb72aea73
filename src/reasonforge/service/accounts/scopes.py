"""Key scopes: a module of its own so the keys CLI can offer them without loading the store."""

from __future__ import annotations

from enum import Enum


class Scope(str, Enum):
    """What a key may do: submit verifications, read results, administer; admin implies the others."""

    VERIFY = "verify"
    READ = "read"
    ADMIN = "admin"
