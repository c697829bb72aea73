"""Harness child for the step's own checks: evaluate the expressions the verifier sends against the artifact, in
a process of their own, and send back what each gave, encoded by a serializer the artifact cannot reach.

argv: the artifact's path. stdin: JSON {"blocks": [{"id": str, "names": [str], "lines": [[source, report], ...]}]},
read, parsed and compiled before any artifact code runs, then closed.

What never enters this process: an expected output, a reference implementation, a comparison. The verifier
sends calls (`largest([3, 1, 2])`, the same call on inputs it perturbed, a claim's function on generated inputs)
and compares what comes back on its own side, by type and value. So whatever the artifact does to this
process, it can change what is reported but not learn what should be: to report the right value it has to
compute it, or hold it (a lookup of the examples, which the verifier treats as no evidence).

Run first in the sandbox, before the pytest child, so no artifact code has run there yet. Before the artifact
is imported, this process:
- captures the primitives it reports with: `marshal.dumps` (C; exact builtin types only: it refuses a str
  subclass with a forged repr, an object whose repr is the answer, anything that is not plain data), `bytes.hex`,
  `os.write` on the event descriptor, `eval`/`exec` and the compiled code of every line, as locals of `main`
  (patching `marshal`, `os`, `json`, `builtins`, `io`, this module or `sys.modules` changes none of them);
- snapshots the builtins: each block runs in a fresh copy of the module's namespace whose `__builtins__` is
  that snapshot, so an example's `print`, `eval` or `repr` is Python's whatever the artifact replaced;
- takes `ctypes` out of reach (it was needed for the process filter) and installs the audit hook of rf_guard.py (it
  cannot be removed), which refuses, and reports as tampering, what would reach into this process's frames or memory:
  tracing and profiling (which could rewrite a running frame's locals), importing `ctypes` again, `gc`'s
  object walks, other threads' frames, opening anything under /proc or /dev/fd (`/proc/self/mem`),
  creating symlinks, and replacing the hook's own code or defaults;
- installs the process filter (rf_seccomp): no exec, fork or ptrace.

Events, one JSON line each, built from the verifier's own ids and hex digits:
  {"ev": "sv", "b": id, "i": line, "r": kind, "m": hex}  kind "v": the line's value (m: marshal bytes);
      "u": a value marshal refuses (not plain builtin data, or too large); "x": it raised (m: the
      exception type's name, marshalled); "t": it ran out of time; "n": names the block uses that the
      artifact does not bind (i = -1, m: their list, marshalled; the block does not run)
  {"ev": "step_loaded"}, {"ev": "step_done"}, {"ev": "import_error", "m": hex}, {"ev": "tamper", "m": hex}
"""

import builtins
import importlib.util
import json
import marshal
import os
import signal
import sys

import rf_guard
import rf_seccomp

MAX_VALUE_BYTES = 16 * 1024  # one value; past it the value is reported unreadable
MAX_TOTAL_BYTES = 256 * 1024  # all values together: the report must fit the sandbox's 1 MiB stdout
LINE_SECONDS = 2.0
class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame, _timeout=_Timeout):
    raise _timeout()


# the audit hook, by this name in this module too (what an artifact looking for it here finds)
_hook = rf_guard.hook


def _read_spec():
    raw = sys.stdin.buffer.read()
    try:
        sys.stdin.close()
        os.close(0)
    except OSError:
        pass
    spec = json.loads(raw.decode("utf-8"))
    blocks = []
    for block in spec.get("blocks", []):
        lines = []
        for i, (source, report) in enumerate(block["lines"]):
            try:
                code, is_expr = compile(source, "<step example>", "eval"), True
            except SyntaxError:
                code, is_expr = compile(source, "<step example>", "exec"), False
            lines.append((code, is_expr, bool(report), str(i).encode("ascii")))
        head = b'{"ev":"sv","b":"' + str(block["id"]).encode("ascii") + b'","i":'
        blocks.append((head, tuple(str(n) for n in block.get("names", ())), tuple(lines)))
    return tuple(blocks)


def main():
    # Everything the loop below uses is a local bound here, before the artifact exists: a C function or a
    # method of a builtin type. Nothing is looked up in a module (this one included) once the artifact runs.
    fd = int(os.environ.pop("RF_EVENT_FD", "-1"))
    write, dumps, exit_now = os.write, marshal.dumps, os._exit
    evaluate, execute, setitimer, timer = eval, exec, signal.setitimer, signal.ITIMER_REAL
    timeout, base_exception, value_error = _Timeout, BaseException, ValueError
    b_type, b_len, b_dict = type, len, dict
    seconds, max_bytes, budget = LINE_SECONDS, MAX_VALUE_BYTES, MAX_TOTAL_BYTES
    try:
        blocks = _read_spec()
    except Exception as exc:  # the verifier's own input: a bug, reported as such
        line = b'{"ev":"import_error","m":"' + dumps("bad spec: " + type(exc).__name__).hex().encode() + b'"}\n'
        while line:
            line = line[write(fd, line):]
        exit_now(3)
    builtins_items = tuple(builtins.__dict__.items())  # immutable: each block gets a fresh dict of it
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        rf_seccomp.install()
    except rf_seccomp.FilterUnavailable as exc:
        line = b'{"ev":"filter_error","m":"' + dumps(str(exc)).hex().encode() + b'"}\n'
        while line:
            line = line[write(fd, line):]
        exit_now(3)
    rf_guard.install(write, fd, dumps)
    try:
        spec = importlib.util.spec_from_file_location("artifact", sys.argv[1])
        if spec is None or spec.loader is None:
            raise ImportError(sys.argv[1])
        module = importlib.util.module_from_spec(spec)
        sys.modules["artifact"] = module
        spec.loader.exec_module(module)
        namespace = module.__dict__
    except base_exception as exc:
        line = b'{"ev":"import_error","m":"' + dumps(b_type(exc).__name__).hex().encode() + b'"}\n'
        while line:
            line = line[write(fd, line):]
        exit_now(4)
    line = b'{"ev":"step_loaded"}\n'
    while line:
        line = line[write(fd, line):]
    for head, names, lines in blocks:
        missing = [n for n in names if n not in namespace]
        if missing:
            line = head + b'-1,"r":"n","m":"' + dumps(missing).hex().encode() + b'"}\n'
            while line:
                line = line[write(fd, line):]
            continue
        ns = b_dict(namespace)
        ns["__builtins__"] = b_dict(builtins_items)
        for code, is_expr, report, index in lines:
            kind, payload, value = b"v", b"", None
            try:
                setitimer(timer, seconds)
                try:
                    value = evaluate(code, ns) if is_expr else execute(code, ns)
                finally:
                    setitimer(timer, 0)
            except base_exception as exc:
                if b_type(exc) is timeout:
                    kind = b"t"
                else:
                    kind, payload = b"x", dumps(b_type(exc).__name__)
            if kind == b"v" and report:
                try:
                    payload = dumps(value)
                except value_error:
                    kind = b"u"
                if b_len(payload) > max_bytes or b_len(payload) > budget:
                    kind, payload = b"u", b""
                budget -= b_len(payload)
            if report or kind != b"v":
                line = head + index + b',"r":"' + kind + b'","m":"' + payload.hex().encode() + b'"}\n'
                while line:
                    line = line[write(fd, line):]
            if kind != b"v" and not report:
                break  # a statement that fails ends its block, as in a doctest
    line = b'{"ev":"step_done"}\n'
    while line:
        line = line[write(fd, line):]
    exit_now(0)


if __name__ == "__main__":
    main()
