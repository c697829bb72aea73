"""Harness child: time one function of the artifact over a geometric range of input sizes.

argv: artifact path, JSON options {"function", "n0", "max_n", "budget_s", "max_call_s", "repeats"}.
Input builder: the artifact's `complexity_input_<function>(n)` or `complexity_input(n)` returning the
argument tuple (a non-tuple is one argument); otherwise, for a one-parameter function annotated `int`,
n itself; annotated `str`, a pseudo-random string of length n; else one list of n pseudo-random ints
(seed 0).
"""

import importlib.util
import json
import os
import random
import statistics
import sys
import time

import rf_events
import rf_seccomp

emit = rf_events.emit


def main():
    artifact = sys.argv[1]
    opts = json.loads(sys.argv[2])
    try:
        rf_seccomp.install()
    except rf_seccomp.FilterUnavailable as exc:
        emit({"ev": "filter_error", "message": str(exc)})
        os._exit(3)
    spec = importlib.util.spec_from_file_location("rf_artifact_module", artifact)
    assert spec is not None and spec.loader is not None  # a path to a .py file always has a loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["rf_artifact_module"] = module
    spec.loader.exec_module(module)
    name = opts["function"]
    func = getattr(module, name)
    builder = getattr(module, "complexity_input_" + name, None) or getattr(module, "complexity_input", None)

    kind = "list"
    try:
        import inspect

        params = list(inspect.signature(func).parameters.values())
        if len(params) == 1 and params[0].annotation is not inspect.Parameter.empty:
            ann = str(getattr(params[0].annotation, "__name__", params[0].annotation)).lower()
            kind = "int" if ann == "int" else "str" if ann == "str" else "list"
    except (TypeError, ValueError):
        pass

    def build(n):
        if builder is None:
            rng = random.Random(0)
            if kind == "int":
                return (n,)
            if kind == "str":
                return ("".join(rng.choice("abcdefghij") for _ in range(n)),)
            return ([rng.randrange(n) for _ in range(n)],)
        value = builder(n)
        return value if isinstance(value, tuple) else (value,)

    # Sizes step by a factor of sqrt(2): twice the points of doubling in the same time budget, so the
    # slope's standard error stays small even on a slow, shared machine.
    n0 = int(opts.get("n0", 64))
    step = 0
    n = n0
    max_n = int(opts.get("max_n", 1 << 20))
    budget = float(opts.get("budget_s", 4.0))
    max_call = float(opts.get("max_call_s", 0.05))
    repeats = int(opts.get("repeats", 5))
    started = time.perf_counter()
    points = []
    while n <= max_n:
        args = build(n)
        func(*args)  # warm-up
        loops = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(loops):
                func(*args)
            dt = time.perf_counter() - t0
            if dt >= 0.002 or loops >= 1 << 16:
                break
            loops *= 4
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(loops):
                func(*args)
            samples.append((time.perf_counter() - t0) / loops)
        med = statistics.median(samples)
        mad = statistics.median(abs(s - med) for s in samples)
        points.append([n, med, mad, min(samples)])
        emit({"ev": "point", "n": n, "median_s": med, "mad_s": mad, "min_s": min(samples), "loops": loops})
        if med > max_call or time.perf_counter() - started > budget:
            break
        step += 1
        n = round(n0 * 2 ** (step / 2))
    emit({"ev": "complexity_done", "points": points, "elapsed_s": time.perf_counter() - started})
    os._exit(0)


if __name__ == "__main__":
    main()
