"""Harness child: run pytest on the artifact with the reporting plugin loaded before the artifact.

argv: artifact path (or a JSON list of paths: batch mode), JSON options {"examples": int, "coverage": bool,
"hypothesis": bool, "run_timeout_s": float}.

Batch mode (mutants): pytest (and hypothesis) are imported once, then each file runs in a forked copy of
this clean process (no artifact code has run before the fork), with its own timeout; every event carries
the run's index and the fork server reports each run's exit status as a `run_end` event.
"""

import json
import os
import signal
import sys
import time

import rf_events

_emit = rf_events.emit
_RUN = {"index": 0}


def emit(obj):
    obj["run"] = _RUN["index"]
    _emit(obj)


def _short(text, limit=1500):
    text = str(text)
    return text if len(text) <= limit else text[: limit // 2] + "\n…\n" + text[-limit // 2:]


class ReportPlugin:
    def pytest_collectreport(self, report):
        if report.failed:
            emit({"ev": "collect_error", "id": report.nodeid, "message": _short(report.longrepr)})

    def pytest_collection_finish(self, session):
        items = []
        for item in session.items:
            obj = getattr(item, "obj", None)
            prop = bool(getattr(obj, "is_hypothesis_test", False))
            items.append({"id": item.nodeid, "name": getattr(item, "originalname", None) or item.name,
                          "cls": item.cls.__name__ if getattr(item, "cls", None) else None, "property": prop})
        emit({"ev": "collected", "items": items})

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            message = ""
            if report.outcome != "passed":
                crash = getattr(report.longrepr, "reprcrash", None)
                message = _short(report.longrepr if crash is None else f"{crash.message}\n{report.longreprtext}")
            emit({"ev": "test", "id": report.nodeid, "when": report.when, "outcome": report.outcome,
                  "xfail": hasattr(report, "wasxfail"), "message": message,
                  "falsifying": "Falsifying example" in (report.longreprtext or "")})

    def pytest_sessionfinish(self, session, exitstatus):
        emit({"ev": "finish", "exitstatus": int(exitstatus), "testscollected": session.testscollected,
              "testsfailed": session.testsfailed})


def _pytest_args(artifact, use_hypothesis):
    args = [artifact, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--noconftest", "--rootdir", ".",
            "-c", "/dev/null", "-o", "python_files=*.py", "-o", "addopts=",  # no ini the artifact could plant
            "--tb=short", "-o", "console_output_style=classic"]
    if not use_hypothesis:
        args += ["-p", "no:hypothesispytest"]
    return args


def run_one(pytest, artifact, opts, use_hypothesis):
    cov = None
    if opts.get("coverage"):
        try:
            import coverage

            cov = coverage.Coverage(data_file=None, include=[os.path.abspath(artifact)], config_file=False)
            cov.start()
        except Exception:
            cov = None
    code = pytest.main(_pytest_args(artifact, use_hypothesis), plugins=[ReportPlugin()])
    if cov is not None:
        cov.stop()
        try:
            _, statements, _, missing, _ = cov.analysis2(os.path.abspath(artifact))
            emit({"ev": "coverage", "statements": sorted(statements), "missing": sorted(missing)})
        except Exception as exc:
            emit({"ev": "coverage_error", "message": repr(exc)})
    return int(code)


def _wait(pid, timeout):
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


def main():
    target = sys.argv[1]
    opts = json.loads(sys.argv[2])
    use_hypothesis = bool(opts.get("hypothesis", True))
    try:
        if not use_hypothesis:
            raise ImportError
        from hypothesis import HealthCheck, settings

        settings.register_profile("rf", max_examples=int(opts.get("examples", 100)), deadline=None, database=None,
                                  derandomize=True, suppress_health_check=list(HealthCheck), print_blob=False)
        settings.load_profile("rf")
    except ImportError:
        pass
    import pytest

    if not target.startswith("["):
        code = run_one(pytest, target, opts, use_hypothesis)
        sys.stdout.flush()
        os._exit(code)
    files = json.loads(target)
    timeout = float(opts.get("run_timeout_s", 10))
    for index, path in enumerate(files):
        _RUN["index"] = index
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                code = run_one(pytest, path, opts, use_hypothesis)
            except BaseException:
                code = 3
            try:
                sys.stdout.flush()
            except Exception:
                pass
            os._exit(code)
        code, timed_out = _wait(pid, timeout)
        emit({"ev": "run_end", "exit": code, "timed_out": timed_out})
    os._exit(0)


if __name__ == "__main__":
    main()
