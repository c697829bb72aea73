"""Harness child: time one function of the artifact over a geometric range of input sizes.

argv: artifact path, JSON options {"function", "kind", "n0", "max_n", "budget_s", "max_call_s", "repeats"}.
stdin: the run's token (hex), read and closed before any artifact code runs, kept only in a local of `main`.

Inputs: the artifact's `complexity_input_<function>(n)` or `complexity_input(n)` returning the argument tuple
(a non-tuple is one argument), else by `kind` (the verifier reads it from the function's signature): "int" gives
n itself, "str" a pseudo-random string of length n, "list" one list of n pseudo-random ints. The pseudo-random
values come from a generator of this module's own (integer arithmetic, fixed seed), so the artifact can neither
bias nor predict them by seeding or patching `random`.

What the artifact can reach: it is imported into this process and its function is called from `main`. So
everything `main` measures and reports with is a local bound before the import: the clock
(`time.perf_counter`), `os.write` on the event descriptor, the `repr` of int and float, the builtins it calls,
the token. Replacing `time.perf_counter`, `random`, `json`, builtins or this module changes nothing here;
the median is computed here; every event line is bytes built here. The audit hook of rf_guard.py (tracing,
ctypes, gc walks, /proc, plus `sys._getframe`, the attributes that lead to a frame, and importing `signal`,
whose handlers are handed the running frame) keeps the artifact out of `main`'s locals, so it cannot learn the
token; the process filter (rf_seccomp) keeps it from starting another process.

Events, one JSON line each, every one carrying the token ("t") and its place in the stream ("k", from 0):
  {"ev": "inputs", "by": "artifact" | "default"}  which builder the sizes are built by
  {"ev": "point", "n", "median_s", "mad_s", "min_s", "loops"}  one size
  {"ev": "complexity_done", "count": number of points}
  {"ev": "filter_error" | "import_error" | "error", "m": hex of the marshalled message}
A line without the token (the artifact writing on the descriptor, the hook's tamper line) or out of sequence
is tampering: the verifier counts nothing of that run.
"""

import importlib
import importlib.util
import json
import marshal
import os
import sys
import time

import rf_guard
import rf_seccomp

# modules an artifact may not import here: ctypes (see rf_guard) and signal, whose handlers are called with the
# frame that was running, `main`'s included
DENIED_IMPORTS = rf_guard.DENIED_IMPORTS | {"signal", "_signal"}
FRAME_EVENTS = frozenset({"sys._getframe"})
FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
# imported before the hook: on Python 3.11 importing these calls sys._getframe, which the hook then refuses
PRELOADED = ("abc", "bisect", "collections", "copy", "dataclasses", "decimal", "fractions", "functools", "heapq",
             "itertools", "math", "operator", "random", "statistics", "string", "typing")
# the test libraries an artifact's tests import (they stand beside the function timed), when the sandbox has them
OPTIONAL_PRELOADED = ("hypothesis", "hypothesis.strategies", "pytest")
_MASK = (1 << 64) - 1


def _read_token():
    chunks = []
    while True:
        chunk = os.read(0, 4096)
        if not chunk:
            break
        chunks.append(chunk)
    try:
        sys.stdin.close()
    except OSError:
        pass
    try:
        os.close(0)
    except OSError:
        pass
    token = b"".join(chunks).strip()
    if not (16 <= len(token) <= 128) or token.strip(b"0123456789abcdef"):
        return None
    return token


def main():
    # Everything used below once the artifact is imported is a local bound here: a C function or a method of a
    # builtin type. Nothing is looked up in a module (this one included) or in builtins after the import.
    fd = int(os.environ.pop("RF_EVENT_FD", "-1"))
    write, dumps, exit_now, clock = os.write, marshal.dumps, os._exit, time.perf_counter
    int_repr, float_repr, encode, join = int.__repr__, float.__repr__, str.encode, "".join
    b_range, b_len, b_getattr, b_isinstance, b_tuple, b_round = range, len, getattr, isinstance, tuple, round
    b_abs, b_min, b_int, b_float, b_type, base_exception = abs, min, int, float, type, BaseException
    token = _read_token()
    if token is None:
        exit_now(3)  # the verifier's own input: without a token nothing this run reports could count
    seq = [0]

    def emit(body):
        line = b'{"t":"' + token + b'","k":' + encode(int_repr(seq[0])) + b"," + body + b"}\n"
        seq[0] += 1
        while line:
            line = line[write(fd, line):]

    def message(ev, text):
        emit(b'"ev":"' + ev + b'","m":"' + encode(dumps(text).hex()) + b'"')

    opts = json.loads(sys.argv[2])
    name = str(opts["function"])
    kind = str(opts.get("kind", "list"))
    n0 = int(opts.get("n0", 64))
    max_n = int(opts.get("max_n", 1 << 20))
    budget = float(opts.get("budget_s", 4.0))
    max_call = float(opts.get("max_call_s", 0.05))
    repeats = max(1, int(opts.get("repeats", 5)))
    letters, mask = "abcdefghij", _MASK
    try:
        rf_seccomp.install()
    except rf_seccomp.FilterUnavailable as exc:
        message(b"filter_error", str(exc))
        exit_now(3)
    for preload in PRELOADED:
        importlib.import_module(preload)
    with open(sys.argv[1], encoding="utf-8", errors="replace") as handle:
        imported = handle.read()
    for preload in OPTIONAL_PRELOADED:
        # only what the artifact imports: loaded here, these libraries change what later imports do
        if ("import " + preload.split(".")[0]) in imported or ("from " + preload.split(".")[0]) in imported:
            try:
                importlib.import_module(preload)
            except ImportError:
                pass
    rf_guard.install(write, fd, dumps, exact=FRAME_EVENTS, attrs=FRAME_ATTRS, modules=DENIED_IMPORTS)
    try:
        spec = importlib.util.spec_from_file_location("rf_artifact_module", sys.argv[1])
        if spec is None or spec.loader is None:
            raise ImportError(sys.argv[1])
        module = importlib.util.module_from_spec(spec)
        sys.modules["rf_artifact_module"] = module
        spec.loader.exec_module(module)
        func = b_getattr(module, name)
        builder = b_getattr(module, "complexity_input_" + name, None) or b_getattr(module, "complexity_input", None)
    except base_exception as exc:
        message(b"import_error", b_type(exc).__name__)
        exit_now(4)
    emit(b'"ev":"inputs","by":"' + (b"default" if builder is None else b"artifact") + b'"')

    def build(n):
        if builder is not None:
            value = builder(n)
            return value if b_isinstance(value, b_tuple) else (value,)
        if kind == "int":
            return (n,)
        state = 0x9E3779B97F4A7C15
        out = []
        for _ in b_range(n):
            state = (state * 6364136223846793005 + 1442695040888963407) & mask
            out.append(state >> 33)
        if kind == "str":
            return (join([letters[v % 10] for v in out]),)
        return ([v % n for v in out],)

    # Sizes step by a factor of sqrt(2): twice the points of doubling in the same time budget, so the slope's
    # standard error stays small even on a slow, shared machine.
    step = 0
    n = n0
    count = 0
    started = clock()
    try:
        while n <= max_n:
            args = build(n)
            func(*args)  # warm-up
            loops = 1
            while True:
                t0 = clock()
                for _ in b_range(loops):
                    func(*args)
                dt = clock() - t0
                if dt >= 0.002 or loops >= 1 << 16:
                    break
                loops *= 4
            samples = []
            for _ in b_range(repeats):
                t0 = clock()
                for _ in b_range(loops):
                    func(*args)
                samples.append((clock() - t0) / loops)
            ordered = samples[:]
            ordered.sort()
            half = b_len(ordered) // 2
            med = ordered[half] if b_len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2
            spread = [b_abs(s - med) for s in samples]
            spread.sort()
            mad = spread[half] if b_len(spread) % 2 else (spread[half - 1] + spread[half]) / 2
            fastest = b_min(samples)
            emit(b'"ev":"point","n":' + encode(int_repr(b_int(n))) + b',"median_s":' + encode(float_repr(b_float(med)))
                 + b',"mad_s":' + encode(float_repr(b_float(mad))) + b',"min_s":'
                 + encode(float_repr(b_float(fastest))) + b',"loops":' + encode(int_repr(loops)))
            count += 1
            if med > max_call or clock() - started > budget:
                break
            step += 1
            n = b_round(n0 * 2 ** (step / 2))
    except base_exception as exc:
        message(b"error", b_type(exc).__name__)
        exit_now(5)
    emit(b'"ev":"complexity_done","count":' + encode(int_repr(count)))
    exit_now(0)


if __name__ == "__main__":
    main()
