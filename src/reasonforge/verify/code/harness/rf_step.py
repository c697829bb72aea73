"""Run the step's own checks (examples and claims the verifier read from the step text or question) in the
artifact's module namespace, inside the test run, and report what came out; the verifier compares.

spec: {"examples": [{"id", "lines": [[source, has_expected], ...]}], "claims": [{"id", "function",
"inputs": [tagged values]}]}. Each example block runs in a fresh copy of the module's globals, line by
line (an expression's value, and what the line prints, are reported); a statement that raises ends its
block. Each claim input is deep-copied and passed to the function. Every call has its own
time limit. Events: {"ev": "step_check", "id", "lines": [{"i", "value"?, "repr", "printed", "error"}]} or
{"ev": "step_check", "id", "calls": [{"value"?, "repr", "error"}]}.
"""

import contextlib
import copy
import io
import signal

import rf_values

MAX_TEXT = 1500


class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def _timed(fn, seconds):
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _describe(value):
    out = {}
    try:
        out["value"] = rf_values.encode(value)
    except (rf_values.Unsupported, RecursionError, TypeError, ValueError):
        pass
    try:
        out["repr"] = repr(value)[:MAX_TEXT]
    except BaseException as exc:
        out["repr"] = f"<repr raised {type(exc).__name__}>"
    return out


def _error(exc):
    if isinstance(exc, _Timeout):
        return "timeout"
    return f"{type(exc).__name__}: {exc}"[:MAX_TEXT]


def _run_line(source, namespace, seconds):
    buf = io.StringIO()
    try:
        code = compile(source, "<step example>", "eval")
        is_expr = True
    except SyntaxError:
        is_expr = False
    try:
        with contextlib.redirect_stdout(buf):
            if is_expr:
                value = _timed(lambda: eval(code, namespace), seconds)
            else:
                _timed(lambda: exec(compile(source, "<step example>", "exec"), namespace), seconds)
                value = None
    except BaseException as exc:
        return {"error": _error(exc), "printed": buf.getvalue()[:MAX_TEXT]}
    out = _describe(value) if is_expr else {}
    out["printed"] = buf.getvalue()[:MAX_TEXT]
    out["error"] = None
    return out


def _call(fn, arg, seconds):
    try:
        value = _timed(lambda: fn(copy.deepcopy(arg)), seconds)
    except BaseException as exc:
        return {"error": _error(exc)}
    out = _describe(value)
    out["error"] = None
    return out


def run(namespace, spec, emit, seconds=2.0):
    """Run every check of `spec` against `namespace` (the artifact module's globals), emitting results."""
    for example in spec.get("examples", []):
        ns = dict(namespace)
        lines = []
        for i, (source, has_expected) in enumerate(example["lines"]):
            result = _run_line(source, ns, seconds)
            if has_expected or result.get("error"):
                lines.append({"i": i, **result})
            if result.get("error") and not has_expected:
                break
        emit({"ev": "step_check", "id": example["id"], "lines": lines})
    for claim in spec.get("claims", []):
        fn = namespace.get(claim["function"])
        calls = []
        for tagged in claim["inputs"]:
            if not callable(fn):
                calls.append({"error": f"NameError: {claim['function']} is not a function of the artifact"})
                continue
            calls.append(_call(fn, rf_values.decode(tagged), seconds))
        emit({"ev": "step_check", "id": claim["id"], "calls": calls})
