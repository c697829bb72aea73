"""Fork helpers shared by the batch children: run a function in a fresh session, wait with a deadline."""

import os
import signal
import sys
import time

import rf_events
import rf_seccomp


def wait(pid, timeout):
    """(exit code, timed out) of child `pid`, killing its process group once `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), False
        if time.monotonic() >= deadline:
            for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
                try:
                    target()
                except OSError:
                    pass
            _, status = os.waitpid(pid, 0)
            return os.waitstatus_to_exitcode(status), True
        time.sleep(0.005)


def run_forked(fn, timeout):
    """Run `fn()` in a forked child (own session, under the process filter, rf_seccomp; exits with fn's int
    result, 3 on an exception or when the filter cannot be installed); (exit, timed out)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.setsid()
            try:
                rf_seccomp.install()
            except rf_seccomp.FilterUnavailable as exc:
                rf_events.emit({"ev": "filter_error", "message": str(exc)})
                os._exit(3)
            code = int(fn() or 0)
        except BaseException:
            code = 3
        try:
            sys.stdout.flush()
        except Exception:
            pass
        os._exit(code)
    return wait(pid, timeout)
