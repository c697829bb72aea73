"""Values that come back from a sandboxed run, read on the verifier's side, and compared by type and value.

Two forms arrive:
- the tagged plain-data form of recorded call arguments (`encode_value` / `decode_value`; the one codec is
  `harness/rf_values.py`, plain standard-library Python the sandbox's interpreter runs too): scalars (None,
  bool, int, finite float, str) and lists stand for themselves, anything else is {"$": "tuple"|"set"|
  "frozenset"|"dict"|"bytes"|"complex"|"float", "v": ...};
- the marshal bytes in which the step-check child (`harness/rf_child_step.py`) reports each value. marshal
  writes exact builtin types only (a subclass, whatever its repr, is refused in the sandbox), and
  `read_marshal` reads back only plain data (None, bool, int, float, complex, str, bytes, tuple, list, dict,
  set, frozenset): never code, never a cycle, bounded in size and depth. It is a reader of its own, in
  Python: `marshal.loads` is not meant for data an adversary wrote.

`same_value` is the comparison the verifier makes: equal types all the way down (`1`, `1.0` and `True`
differ, inside containers too), equal values; dicts and sets compare as `==` does (order aside), with keys and
elements matched by type as well.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from reasonforge.verify.code.harness import rf_values

__all__ = ["decode_value", "encode_value", "read_marshal", "same_number", "same_value"]

MAX_NODES = 100_000
MAX_DEPTH = 100
MAX_LONG_DIGITS = 10_000  # 15-bit digits: ints of up to 150 000 bits


def encode_value(value: Any) -> Any:
    """The tagged form of plain data `value` (ValueError for anything else or too large)."""
    try:
        return rf_values.encode(value)
    except rf_values.Unsupported as exc:
        raise ValueError(f"not plain data: {exc}") from exc


def decode_value(obj: Any) -> Any:
    """The value a tagged form stands for; ValueError when it is malformed or too large."""
    return rf_values.decode(obj)


# ------------------------------------------------------------------------------------------- marshal

_REF = 0x80
_BUILDING = object()  # a reference to an object still being read: a cycle


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.refs: list[Any] = []
        self.nodes = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError("truncated value")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def int32(self) -> int:
        return int(struct.unpack("<i", self.take(4))[0])

    def size(self) -> int:
        n = self.int32()
        if n < 0 or n > len(self.data):
            raise ValueError("bad size")
        return n

    def read(self, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise ValueError("value too large or too deep")
        code = self.take(1)[0]
        flag, kind = code & _REF, chr(code & ~_REF)
        slot = -1
        if flag:
            slot = len(self.refs)
            self.refs.append(_BUILDING)
        value = self.body(kind, depth)
        if flag:
            self.refs[slot] = value
        return value

    def body(self, kind: str, depth: int) -> Any:
        if kind == "N":
            return None
        if kind in "TF":
            return kind == "T"
        if kind == "i":
            return self.int32()
        if kind == "l":
            n = self.int32()
            count = abs(n)
            if count > MAX_LONG_DIGITS:
                raise ValueError("int too large")
            digits = struct.unpack(f"<{count}H", self.take(2 * count))
            if any(d >= 1 << 15 for d in digits):
                raise ValueError("bad int digit")
            value = sum(d << (15 * k) for k, d in enumerate(digits))
            return -value if n < 0 else value
        if kind == "g":
            return float(struct.unpack("<d", self.take(8))[0])
        if kind == "y":
            real, imag = struct.unpack("<dd", self.take(16))
            return complex(real, imag)
        if kind == "s":
            return bytes(self.take(self.size()))
        if kind in "tu":
            return self.take(self.size()).decode("utf-8", "surrogatepass")
        if kind in "aA":
            return self.take(self.size()).decode("ascii")
        if kind in "zZ":
            return self.take(self.take(1)[0]).decode("ascii")
        if kind == "r":
            k = self.int32()
            if not 0 <= k < len(self.refs) or self.refs[k] is _BUILDING:
                raise ValueError("a reference to nothing, or a cycle")
            return self.refs[k]
        if kind in "([<>":
            n = self.size()
            items = [self.read(depth + 1) for _ in range(n)]
            if kind == "(":
                return tuple(items)
            if kind == "[":
                return items
            try:
                return set(items) if kind == "<" else frozenset(items)
            except TypeError as exc:
                raise ValueError("an unhashable element") from exc
        if kind == ")":
            return tuple(self.read(depth + 1) for _ in range(self.take(1)[0]))
        if kind == "{":
            out: dict[Any, Any] = {}
            while True:
                if self.data[self.pos:self.pos + 1] == b"0":
                    self.pos += 1
                    return out
                key = self.read(depth + 1)
                try:
                    out[key] = self.read(depth + 1)
                except TypeError as exc:
                    raise ValueError("an unhashable key") from exc
        raise ValueError(f"not plain data (marshal type {kind!r})")


def read_marshal(data: bytes) -> Any:
    """The plain value marshal bytes hold; ValueError for anything else (code, cycles, trailing bytes, too large)."""
    reader = _Reader(data)
    value = reader.read(0)
    if reader.pos != len(data):
        raise ValueError("trailing bytes")
    return value


# ----------------------------------------------------------------------------------------- comparing


def same_value(a: Any, b: Any, depth: int = 0) -> bool:
    """Equal by type and value, all the way down (see the module doc)."""
    if depth > MAX_DEPTH or type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same_value(x, y, depth + 1) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        keyed = {_key(k): v for k, v in b.items()}
        return all(_key(k) in keyed and same_value(v, keyed[_key(k)], depth + 1) for k, v in a.items())
    if isinstance(a, set | frozenset):
        return {_key(x) for x in a} == {_key(x) for x in b}
    return bool(a == b)


def _key(value: Any) -> Any:
    """A hashable stand-in for `value` that differs whenever the types do (1, 1.0 and True are three keys)."""
    if isinstance(value, tuple):
        return ("tuple", tuple(_key(x) for x in value))
    if isinstance(value, frozenset):
        return ("frozenset", frozenset(_key(x) for x in value))
    return (type(value).__name__, value)


def same_number(got: Any, want: Any) -> bool:
    """A numeric reference's comparison: an int or a float (never a bool) close to `want`."""
    numbers = (int, float)
    if type(got) not in numbers or type(want) not in numbers:
        return same_value(got, want)
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)
