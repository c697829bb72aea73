"""Plain data values <-> a JSON-safe tagged form, for recorded call arguments (never pickle: the verifier
passes these along, and only plain data can be rebuilt without running code).

Scalars (None, bool, int, finite float, str) stay as they are, lists are JSON lists, everything else is
tagged: {"$": "tuple"|"set"|"frozenset"|"dict"|"bytes"|"complex"|"float", "v": ...}. Only exact builtin
types are supported (a subclass such as OrderedDict or a namedtuple may behave differently when rebuilt).
"""

import math

MAX_NODES = 2000
MAX_DEPTH = 12
MAX_STR = 4000
MAX_INT_BITS = 1024  # json refuses ints past 4300 digits; far smaller ones are plenty for arguments


class Unsupported(Exception):
    """The value is not plain data, or exceeds the size bounds."""


def encode(value, max_nodes=MAX_NODES):
    """The tagged JSON-safe form of `value`, or Unsupported."""
    count = [0]

    def enc(v, depth):
        count[0] += 1
        if count[0] > max_nodes or depth > MAX_DEPTH:
            raise Unsupported("too large")
        t = type(v)
        if v is None or t is bool:
            return v
        if t is int:
            if v.bit_length() > MAX_INT_BITS:
                raise Unsupported("int too large")
            return v
        if t is float:
            return v if math.isfinite(v) else {"$": "float", "v": repr(v)}
        if t is str:
            if len(v) > MAX_STR:
                raise Unsupported("str too long")
            return v
        if t is list:
            return [enc(x, depth + 1) for x in v]
        if t is tuple:
            return {"$": "tuple", "v": [enc(x, depth + 1) for x in v]}
        if t is set or t is frozenset:
            return {"$": t.__name__, "v": [enc(x, depth + 1) for x in v]}
        if t is dict:
            return {"$": "dict", "v": [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in v.items()]}
        if t is bytes:
            if len(v) > MAX_STR:
                raise Unsupported("bytes too long")
            return {"$": "bytes", "v": v.hex()}
        if t is complex:
            return {"$": "complex", "v": [enc(v.real, depth + 1), enc(v.imag, depth + 1)]}
        raise Unsupported(t.__name__)

    return enc(value, 0)


def decode(obj, max_nodes=10 * MAX_NODES):
    """Rebuild a value from its tagged form; ValueError on anything malformed, too deep or too large (the
    verifier decodes what a sandboxed run reported with this too, so it is bounded)."""
    budget = [max_nodes]

    def dec(o, depth):
        budget[0] -= 1
        if depth > MAX_DEPTH + 2 or budget[0] < 0:
            raise ValueError("too large")
        if o is None or isinstance(o, (bool, int, float, str)):
            return o
        if isinstance(o, list):
            return [dec(x, depth + 1) for x in o]
        if not isinstance(o, dict) or set(o) != {"$", "v"}:
            raise ValueError("malformed value")
        tag, v = o["$"], o["v"]
        if tag == "float" and v in ("nan", "inf", "-inf"):
            return float(v)
        if tag == "bytes" and isinstance(v, str):
            return bytes.fromhex(v)
        if not isinstance(v, list):
            raise ValueError("malformed value")  # noqa: TRY004 - the decoder's one error type for bad input
        items = [dec(x, depth + 1) for x in v]
        try:
            if tag == "tuple":
                return tuple(items)
            if tag == "set":
                return set(items)
            if tag == "frozenset":
                return frozenset(items)
            if tag == "complex" and len(items) == 2:
                return complex(items[0], items[1])
            if tag == "dict" and all(isinstance(p, list) and len(p) == 2 for p in items):
                return {k: x for k, x in items}
        except TypeError as exc:  # an unhashable element of a set or key of a dict
            raise ValueError("malformed value: " + str(exc)) from exc
        raise ValueError("unknown tag " + repr(tag))

    return dec(obj, 0)
