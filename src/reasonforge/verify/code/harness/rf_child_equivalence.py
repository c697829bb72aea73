"""Harness child: the differential run. Can any input tell a mutant from the original implementation?

argv: path of a JSON config {"original": source, "mutants": [{"source", "span": [l1, c1, l2, c2] | null,
"judge": bool}], "calls": [recorded calls], "seed", "variants", "max_inputs", "per_call_s",
"mutant_budget_s", "classify_budget_s", "prepass_budget_s", "budget_s", "preimport": [module names]}.
Everything is read before any artifact code runs, so a mutant cannot rewrite what a later one is
judged on.

Inputs: every recorded call, then up to `variants` perturbations of each (rf_perturb), deduplicated.
Prepass (one fork): the original runs each input twice; inputs it does not finish within `per_call_s`,
or answers differently the second time (randomness, hidden state), are dropped: they are no evidence
either way. Then one fork per mutant imports the original and the mutant side by side and calls both
on each kept input (the recorded function itself: an entry point or a helper). The first differing
outcome (rf_compare) is the evidence, after the original confirms its outcome once more. A mutant
call that exceeds its limit while the original finished differs too (a loop that no longer ends).

Loudness (every mutant, also those the tests killed): before judging, the fork compares original and
mutant on the recorded inputs alone (the tests' own calls) and reports whether some call differs
loudly (rf_compare.loud_difference: raises, stops finishing, or changes a result's type). The verifier
uses it to tell tests that check values from tests that only run the code. Mutants with "judge":
false (killed by the tests) get only this pass.

Reach: the mutant's changed code (`span`, in the mutant's source) is watched with opcode tracing until
it first executes. "No difference" only means something when the change ran; the verifier claims
equivalence only for a reached mutant whose inputs all ran ("complete"). Tracing stops once reached.

Events: {"ev": "inputs", ...}; per mutant {"ev": "loud", "mutant": k, "loud": true | false | null (budget
spent), "calls": compared}, then, when judged, {"ev": "verdict", "mutant": k, "verdict": "distinguished" |
"no_difference", "reached", "traced" (was the change watched at all), "complete", "inputs", "evidence"} then the fork server's {"ev":
"mutant_end", "mutant": k, "exit", "timed_out"}. A fork that crashes or is killed leaves no verdict.
"""

import dis
import importlib
import json
import os
import random
import select
import sys
import time
import types

import rf_compare
import rf_events
import rf_fork
import rf_perturb
import rf_values

emit = rf_events.emit


def build_inputs(cfg):
    """[(function, args, kwargs, perturbed)] from the recorded calls: recorded ones first, then variants."""
    recorded, seen = [], set()
    for call in cfg["calls"]:
        try:
            args = rf_values.decode(call["args"])
            kwargs = {str(k): rf_values.decode(v) for k, v in call["kwargs"].items()}
            key = rf_perturb.key_of([call["function"], args, kwargs])
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError, rf_values.Unsupported):
            continue
        if isinstance(args, list) and key not in seen:
            seen.add(key)
            recorded.append((str(call["function"]), args, kwargs, False))
    rng = random.Random(f"rf-equivalence:{cfg.get('seed', 0)}")
    per_call = [rf_perturb.perturbed_calls(a, k, rng, int(cfg.get("variants", 40))) for _, a, k, _ in recorded]
    inputs = list(recorded)
    for round_ in range(max((len(v) for v in per_call), default=0)):  # round-robin: every call gets variants
        for (name, _, _, _), variants in zip(recorded, per_call):
            if round_ < len(variants):
                args, kwargs = variants[round_]
                try:
                    key = rf_perturb.key_of([name, args, kwargs])
                except (rf_values.Unsupported, TypeError, ValueError, RecursionError):
                    continue
                if key not in seen:
                    seen.add(key)
                    inputs.append((name, args, kwargs, True))
    return inputs[: int(cfg.get("max_inputs", 1000))]


def load(name, source):
    """Execute `source` as module `name`; (module, code)."""
    code = compile(source, f"{name}.py", "exec")
    module = types.ModuleType(name)
    module.__file__ = f"{name}.py"
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module, code


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def reach_targets(code, span):
    """{id(code object): instruction offsets} of the changed code: instructions inside `span`, or, where
    the compiler folded the change into a larger instruction (a constant expression), those overlapping it."""
    l1, c1, l2, c2 = span
    inside: dict[int, set[int]] = {}
    overlap: dict[int, set[int]] = {}
    for co in _codes(code):
        for ins in dis.get_instructions(co):
            p = ins.positions
            if p is None or None in (p.lineno, p.end_lineno, p.col_offset, p.end_col_offset):
                continue
            start, end = (p.lineno, p.col_offset), (p.end_lineno, p.end_col_offset)
            if (l1, c1) <= start and end <= (l2, c2):
                inside.setdefault(id(co), set()).add(ins.offset)
            elif start < (l2, c2) and (l1, c1) < end:
                overlap.setdefault(id(co), set()).add(ins.offset)
    return inside or overlap


class Reach:
    """Opcode tracing of the mutant's code objects until a target instruction runs."""

    def __init__(self, targets):
        self.targets = targets
        self.hit = False

    def start(self):
        if not self.hit:
            sys.settrace(self._call)

    def _call(self, frame, event, arg):
        if self.hit or id(frame.f_code) not in self.targets:
            return None
        frame.f_trace_opcodes = True
        return self._local

    def _local(self, frame, event, arg):
        if self.hit:
            return None
        if event == "opcode" and frame.f_lasti in self.targets.get(id(frame.f_code), ()):
            self.hit = True
            sys.settrace(None)
            return None
        return self._local


def prepass(cfg, inputs, write_fd):
    """In a fork: keep the inputs the original finishes in time and answers the same way twice."""
    original, _ = load("rf_original", cfg["original"])
    limit = float(cfg.get("per_call_s", 0.1))
    deadline = time.perf_counter() + float(cfg.get("prepass_budget_s", 6.0))
    for index, (name, args, kwargs, _) in enumerate(inputs):
        if time.perf_counter() > deadline:
            break
        fn = getattr(original, name, None)
        if not callable(fn):
            continue
        first = rf_compare.run_call(fn, args, kwargs, limit)
        if first.kind == "timeout":
            continue
        again = rf_compare.run_call(fn, args, kwargs, limit)
        if rf_compare.same_outcome(first, again):
            os.write(write_fd, f"{index} {max(first.elapsed, again.elapsed):.6f}\n".encode())
    return 0


def loudness(original, module, inputs, kept, limit, budget_s):
    """(loud, calls compared): does the mutant differ loudly on a recorded input? None when the budget
    ended before every recorded input ran, or no recorded input could be compared (no evidence)."""
    deadline = time.perf_counter() + budget_s
    compared = 0
    for index, prepass_s in kept:
        name, args, kwargs, perturbed = inputs[index]
        if perturbed:
            continue
        if time.perf_counter() > deadline:
            return None, compared
        fo, fm = getattr(original, name, None), getattr(module, name, None)
        if not callable(fo) or not callable(fm):
            continue
        o = rf_compare.run_call(fo, args, kwargs, max(limit, 4 * prepass_s))
        if o.kind == "timeout":
            continue
        m = rf_compare.run_call(fm, args, kwargs, min(max(2 * limit, 20 * o.elapsed), 6 * limit))
        compared += 1
        if rf_compare.loud_difference(o, m):
            return True, compared
    return (False if compared else None), compared


def judge(cfg, k, inputs, kept):
    """In a fork: classify mutant k's loudness, then (when asked) compare it with the original on the kept
    inputs; emit its events."""
    mutant = cfg["mutants"][k]
    original, _ = load("rf_original", cfg["original"])
    code = compile(mutant["source"], "rf_mutant.py", "exec")
    reach = Reach(reach_targets(code, mutant["span"])) if mutant.get("span") else None
    module = types.ModuleType("rf_mutant")
    module.__file__ = "rf_mutant.py"
    sys.modules["rf_mutant"] = module
    if reach:
        reach.start()
    try:
        exec(code, module.__dict__)
    finally:
        sys.settrace(None)
    limit = float(cfg.get("per_call_s", 0.1))
    loud, classified = loudness(original, module, inputs, kept, limit, float(cfg.get("classify_budget_s", 1.0)))
    emit({"ev": "loud", "mutant": k, "loud": loud, "calls": classified})
    if not mutant.get("judge", True):
        return 0
    deadline = time.perf_counter() + float(cfg.get("mutant_budget_s", 2.0))
    compared, complete = 0, True
    for index, prepass_s in kept:
        if time.perf_counter() > deadline:
            complete = False
            break
        name, args, kwargs, perturbed = inputs[index]
        fo, fm = getattr(original, name, None), getattr(module, name, None)
        if not callable(fo) or not callable(fm):
            continue
        o = rf_compare.run_call(fo, args, kwargs, max(limit, 4 * prepass_s))
        if o.kind == "timeout":
            continue
        mutant_limit = min(max(2 * limit, 20 * o.elapsed), 6 * limit)
        tracing = reach is not None and not reach.hit
        if reach is not None and tracing:
            reach.start()
        try:
            m = rf_compare.run_call(fm, args, kwargs, mutant_limit)
        finally:
            sys.settrace(None)
        if m.kind == "timeout" and tracing:  # tracing slows the mutant: judge it untraced
            m = rf_compare.run_call(fm, args, kwargs, mutant_limit)
        compared += 1
        if rf_compare.same_outcome(o, m):
            continue
        again = rf_compare.run_call(fo, args, kwargs, max(limit, 4 * prepass_s))
        if not rf_compare.same_outcome(o, again):
            continue  # the original itself is not repeatable on this input: no evidence
        evidence = {"function": name, "args": rf_compare.short(args), "kwargs": rf_compare.short(kwargs),
                    "perturbed": perturbed, "original": rf_compare.describe(o), "mutant": rf_compare.describe(m)}
        if rf_compare.describe(o) == rf_compare.describe(m):
            evidence["original_arguments_after"] = rf_compare.short(o.after)
            evidence["mutant_arguments_after"] = rf_compare.short(m.after)
        emit({"ev": "verdict", "mutant": k, "verdict": "distinguished", "reached": True, "traced": reach is not None,
              "complete": True, "inputs": compared, "evidence": evidence})
        return 0
    emit({"ev": "verdict", "mutant": k, "verdict": "no_difference", "reached": bool(reach and reach.hit),
          "traced": reach is not None, "complete": complete, "inputs": compared, "evidence": None})
    return 0


def read_kept(read_fd):
    """(index, seconds) lines the prepass wrote (it exited: the pipe holds all it wrote)."""
    data = b""
    while select.select([read_fd], [], [], 0)[0]:
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        data += chunk
    kept = []
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            try:
                kept.append((int(parts[0]), float(parts[1])))
            except ValueError:
                continue
    return kept


def main():
    with open(sys.argv[1], encoding="utf-8") as fh:
        cfg = json.load(fh)
    for name in cfg.get("preimport", []):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    started = time.perf_counter()
    inputs = build_inputs(cfg)
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    budget = float(cfg.get("prepass_budget_s", 6.0))
    prepass_started = time.perf_counter()
    code, timed_out = rf_fork.run_forked(lambda: prepass(cfg, inputs, write_fd), budget + 3.0)
    os.close(write_fd)
    kept = read_kept(read_fd)
    emit({"ev": "inputs", "generated": len(inputs), "recorded": sum(1 for i in inputs if not i[3]),
          "kept": len(kept), "prepass_exit": code, "prepass_timed_out": timed_out,
          "prepass_s": round(time.perf_counter() - prepass_started, 3), "setup_s": round(prepass_started - started, 3)})
    per_mutant = (float(cfg.get("mutant_budget_s", 2.0)) + float(cfg.get("classify_budget_s", 1.0))
                  + 14 * float(cfg.get("per_call_s", 0.1)) + 2.0)
    total = float(cfg.get("budget_s", 60.0))
    for k in range(len(cfg["mutants"])):
        if time.perf_counter() - started > total:
            break
        fork_started = time.perf_counter()
        code, timed_out = rf_fork.run_forked(lambda k=k: judge(cfg, k, inputs, kept), per_mutant)
        emit({"ev": "mutant_end", "mutant": k, "exit": code, "timed_out": timed_out,
              "elapsed_s": round(time.perf_counter() - fork_started, 3)})
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
