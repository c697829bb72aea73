"""One call of an artifact function with a time limit, and the comparison of two such calls.

An outcome is what a caller can observe: the returned value (an iterator is drained, up to a bound),
or the raised exception's type, the arguments after the call (a function may change its input), and
what it printed. Two outcomes are the same when all of that is: values by type and `==` (NaN equals
NaN; containers element by element, so `1` and `1.0` differ inside a list too, dicts in iteration
order; instances of a class the artifact defines compare by class name and attributes, since original
and mutant each define their own class), exceptions by type name.

A difference is *loud* when a caller sees it without checking any value: one call raises or stops
finishing and the other does not, the exception types differ, or the type of the result (or of an
argument after the call) differs, e.g. `None` for an int. A test that only calls the code, or only
checks types, can kill a mutant with a loud difference, never one whose differences are all quiet.
"""

import contextlib
import copy
import io
import itertools
import math
import reprlib
import signal
import time

MAX_ITEMS = 10_000
MAX_OUT = 10_000
ARTIFACT_MODULES = ("rf_original", "rf_mutant")
_PLAIN = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)
_ARMED = {"on": False}


class CallTimeout(BaseException):
    """Raised in the call by SIGALRM when its time limit passes (BaseException: `except Exception` in
    artifact code does not swallow it)."""


def _alarm(signum, frame):
    if _ARMED["on"]:
        raise CallTimeout()


signal.signal(signal.SIGALRM, _alarm)


class Outcome:
    """kind: "ok" (value = result) | "raise" (value = exception type name) | "timeout"."""

    __slots__ = ("after", "elapsed", "kind", "out", "value")

    def __init__(self, kind, value, after, out, elapsed):
        self.kind, self.value, self.after, self.out, self.elapsed = kind, value, after, out, elapsed


def run_call(fn, args, kwargs, limit):
    """Call fn on deep copies of the arguments (plain data) with a wall-clock limit of `limit` seconds."""
    a, k = copy.deepcopy(args), copy.deepcopy(kwargs)
    buf = io.StringIO()
    kind, value = "ok", None
    started = time.perf_counter()
    try:
        try:
            _ARMED["on"] = True
            signal.setitimer(signal.ITIMER_REAL, max(limit, 0.001))
            with contextlib.redirect_stdout(buf):
                value = _drain(fn(*a, **k))
        finally:
            _ARMED["on"] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CallTimeout:
        kind, value = "timeout", None
    except BaseException as exc:  # what the function raises is part of its behaviour
        kind, value = "raise", type(exc).__qualname__
    return Outcome(kind, value, [a, k], buf.getvalue()[-MAX_OUT:], time.perf_counter() - started)


def _drain(value):
    if type(value).__name__ == "coroutine" and hasattr(value, "send"):  # an async implementation: await it
        import asyncio

        return asyncio.new_event_loop().run_until_complete(value)
    if type(value) not in _PLAIN and hasattr(value, "__next__") and hasattr(value, "__iter__"):
        return ("<iterator>", type(value).__qualname__, list(itertools.islice(value, MAX_ITEMS)))
    return value


def same_outcome(a, b):
    """Could no caller tell these two outcomes apart?"""
    if a.kind != b.kind or a.out != b.out:
        return False
    if a.kind == "ok" and not same(a.value, b.value):
        return False
    if a.kind == "raise" and a.value != b.value:
        return False
    return same(a.after, b.after)


def loud_difference(a, b):
    """Do the outcomes differ in kind, exception type, or the top-level type of result or arguments?"""
    if a.kind != b.kind:
        return True
    if a.kind == "raise":
        return a.value != b.value
    if a.kind == "timeout":
        return False
    return _type_name(a.value) != _type_name(b.value) or _arg_types(a.after) != _arg_types(b.after)


def _type_name(v):
    t = type(v)
    return t.__qualname__ if _artifact_class(t) else f"{t.__module__}.{t.__qualname__}"


def _arg_types(after):
    args, kwargs = after
    return [_type_name(x) for x in args], {k: _type_name(x) for k, x in kwargs.items()}


def _artifact_class(t):
    return getattr(t, "__module__", None) in ARTIFACT_MODULES


def same(a, b, depth=0):
    """Equal by type and value (see module doc)."""
    ta, tb = type(a), type(b)
    if depth > 40:
        return ta is tb and _safe_repr(a) == _safe_repr(b)
    if ta is not tb:
        return (_artifact_class(ta) and _artifact_class(tb) and ta.__qualname__ == tb.__qualname__
                and same(_state(a), _state(b), depth + 1))
    if ta is float:
        return a == b or (math.isnan(a) and math.isnan(b))
    if ta is complex:
        return same(a.real, b.real) and same(a.imag, b.imag)
    if ta is list or ta is tuple:
        return len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a, b))
    if ta is dict:  # in order: iteration order is observable (and stable) in Python
        return len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a.items(), b.items()))
    if _artifact_class(ta):
        return same(_state(a), _state(b), depth + 1)
    if callable(a) and hasattr(a, "__qualname__"):
        return getattr(a, "__qualname__", None) == getattr(b, "__qualname__", None)
    try:
        equal = a == b
        if equal is True or equal is False:
            return equal
    except Exception:  # an __eq__ that raises: fall back to the text
        pass
    return _safe_repr(a) == _safe_repr(b)


def _state(obj):
    base = next((t for t in _PLAIN if isinstance(obj, t)), None)
    plain = None if base is None or base is type(None) else base(obj)  # type: ignore[misc]
    return [plain, dict(getattr(obj, "__dict__", {}) or {})]


_SHORT = reprlib.Repr()
_SHORT.maxstring = 80
_SHORT.maxother = 80
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 8


def _safe_repr(v):
    try:
        return repr(v)
    except Exception:
        return "<unrepresentable>"


def short(v):
    """A bounded repr for evidence."""
    try:
        return _SHORT.repr(v)[:300]
    except Exception:
        return "<unrepresentable>"


def describe(o):
    """What a caller sees of an outcome, in a few words."""
    if o.kind == "timeout":
        return "does not finish in time"
    text = f"raises {o.value}" if o.kind == "raise" else f"returns {short(o.value)}"
    if o.out:
        text += f"; prints {short(o.out)}"
    return text
