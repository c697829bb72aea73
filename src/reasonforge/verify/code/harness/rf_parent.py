"""Harness parent, run inside the sandbox before any artifact code (see harness_run.py for the threat model).

stdin: one JSON object {"nonce", "children": [{"argv": [...], "input": str | null, "output_file": str}],
"timeout_s"}. The nonce is read before any child exists, never passed to one, and the process is made
non-dumpable so that a same-uid child can neither ptrace it nor open /proc/<ppid>/{mem,fd,environ}.

The children run one after the other, within one deadline (`timeout_s` for all of them), each with its own
event pipe and its own output file; a child's `input` is written to its stdin and closed. Every event is
tagged with the index of the child whose pipe it came on (`src`, set here, whatever the line said), so one
child cannot speak for another; a child's whole process group is killed before the next one starts. This
process alone writes `RFREPORT <json>` (with the nonce) to the real stdout: per child its exit status,
whether it ran out of time, and the tail of its output; the last child's also at the top level.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

MAX_EVENT_BYTES = 4 * 1024 * 1024
MAX_EVENTS = 5000
TAIL = 4000


def _non_dumpable():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE = 4
    except Exception:
        return False


def _run_child(spec, deadline, env):
    """Run one child to completion (or its deadline): (exit code, timed out, events, overflow, output tail)."""
    out_path = spec.get("output_file", "_rf_output.txt")
    r, w = os.pipe()
    env = {**env, "RF_EVENT_FD": str(w)}
    argv = [a.replace("{fd}", str(w)) for a in spec["argv"]]
    data = spec.get("input")
    with open(out_path, "wb") as out:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL if data is None else subprocess.PIPE, stdout=out,
                                 stderr=subprocess.STDOUT, pass_fds=(w,), env=env, start_new_session=True)
    os.close(w)
    events: list = []
    state = {"bytes": 0, "overflow": False}

    def reader():
        buf = b""
        with os.fdopen(r, "rb", buffering=0) as pipe:
            while True:
                try:
                    chunk = pipe.read(65536)
                except OSError:
                    break
                if not chunk:
                    break
                state["bytes"] += len(chunk)
                if state["bytes"] > MAX_EVENT_BYTES:
                    state["overflow"] = True
                    continue
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    if len(events) >= MAX_EVENTS:
                        state["overflow"] = True
                        break
                    try:
                        event = json.loads(line)
                    except ValueError:
                        event = {"ev": "garbage"}
                    events.append(event if isinstance(event, dict) else {"ev": "garbage"})

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    if data is not None and child.stdin is not None:
        try:
            child.stdin.write(data.encode("utf-8"))
        except OSError:
            pass
        try:
            child.stdin.close()
        except OSError:
            pass
    timed_out = False
    try:
        code = child.wait(timeout=max(0.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        code = child.wait()
    # Descendants that outlive the child (and hold the pipe) are killed with its process group.
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        pass
    thread.join(timeout=1.0)
    tail = ""
    try:
        with open(out_path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - TAIL))
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        pass
    return code, timed_out, list(events), state["overflow"], tail


def main():
    raw = sys.stdin.buffer.read(16 << 20)
    cfg = json.loads(raw.decode("utf-8"))
    nonce = cfg.pop("nonce")
    del raw
    try:
        sys.stdin.close()
        os.close(0)
    except OSError:
        pass
    protected = _non_dumpable()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.getcwd(),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": os.path.dirname(os.path.abspath(__file__)),
        "LANG": "C.UTF-8",
    }
    started = time.perf_counter()
    deadline = started + float(cfg.get("timeout_s", 30))
    children = []
    events = []
    for k, spec in enumerate(cfg["children"]):
        code, timed_out, evs, overflow, tail = _run_child(spec, deadline, env)
        for event in evs:
            event["src"] = k
        events.extend(evs)
        children.append({"exit": code, "timed_out": timed_out, "events_overflow": overflow, "output_tail": tail})
        if timed_out:
            break  # the deadline is shared: nothing is left for the next child
    last = children[-1]
    report = {
        "nonce": nonce,
        "child_exit": last["exit"],
        "timed_out": any(c["timed_out"] for c in children),
        "events": events,
        "events_overflow": any(c["events_overflow"] for c in children),
        "output_tail": last["output_tail"],
        "children": children,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
        "parent_protected": protected,
    }
    sys.stdout.write("RFREPORT " + json.dumps(report) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
