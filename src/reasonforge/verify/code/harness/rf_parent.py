"""Harness parent, run inside the sandbox before any artifact code (see harness_run.py for the threat model).

stdin: one JSON object {"nonce", "mode", "child": [argv...], "timeout_s", ...}. The nonce is read before the
child exists, never passed to it, and the process is made non-dumpable so that a same-uid child can neither
ptrace it nor open /proc/<ppid>/{mem,fd,environ}. The child's stdout/stderr go to a file; its structured
events come on a pipe; this process alone writes `RFREPORT <json>` (with the nonce) to the real stdout.
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


def main():
    raw = sys.stdin.buffer.read(1 << 20)
    cfg = json.loads(raw.decode("utf-8"))
    nonce = cfg.pop("nonce")
    del raw
    try:
        sys.stdin.close()
        os.close(0)
    except OSError:
        pass
    protected = _non_dumpable()
    out_path = cfg.get("output_file", "_rf_output.txt")
    r, w = os.pipe()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.getcwd(),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": os.path.dirname(os.path.abspath(__file__)),
        "RF_EVENT_FD": str(w),
        "LANG": "C.UTF-8",
    }
    argv = [a.replace("{fd}", str(w)) for a in cfg["child"]]
    started = time.perf_counter()
    with open(out_path, "wb") as out:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 pass_fds=(w,), env=env, start_new_session=True)
    os.close(w)
    events = []
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
                        events.append(json.loads(line))
                    except ValueError:
                        events.append({"ev": "garbage"})

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    timed_out = False
    try:
        code = child.wait(timeout=float(cfg.get("timeout_s", 30)))
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
    report = {
        "nonce": nonce,
        "child_exit": code,
        "timed_out": timed_out,
        "events": list(events),
        "events_overflow": state["overflow"],
        "output_tail": tail,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
        "parent_protected": protected,
    }
    sys.stdout.write("RFREPORT " + json.dumps(report) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
