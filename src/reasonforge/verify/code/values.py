"""The verifier's side of the harness's tagged plain-data form: the one codec is `harness/rf_values.py` (plain
standard-library Python, so the sandbox's interpreter runs it too), imported here as a module of data functions.

Scalars (None, bool, int, finite float, str) and lists stand for themselves; anything else is
{"$": "tuple"|"set"|"frozenset"|"dict"|"bytes"|"complex"|"float", "v": ...}. Decoding reads what a sandboxed
run reported, so it is bounded (depth, size) and raises ValueError on anything malformed.
"""

from __future__ import annotations

from typing import Any

from reasonforge.verify.code.harness import rf_values

__all__ = ["decode_value", "encode_value"]


def encode_value(value: Any) -> Any:
    """The tagged form of plain data `value` (ValueError for anything else or too large)."""
    try:
        return rf_values.encode(value)
    except rf_values.Unsupported as exc:
        raise ValueError(f"not plain data: {exc}") from exc


def decode_value(obj: Any) -> Any:
    """The value a tagged form stands for; ValueError when it is malformed or too large."""
    return rf_values.decode(obj)
