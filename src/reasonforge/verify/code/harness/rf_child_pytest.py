"""Harness child: run pytest on the artifact with the reporting plugin loaded before the artifact.

argv: artifact path (or a JSON list of paths: batch mode), JSON options {"examples": int, "coverage": bool,
"hypothesis": bool, "run_timeout_s": float, "record": [names], "not_tests": [names]}.

`not_tests`: top-level functions named `test*` that the verifier classed as implementation (they take
arguments no fixture supplies and other code calls them); they are deselected, never run as tests.
`record` (single runs only): top-level implementation functions whose calls `rf_record` keeps while the
tests run; the kept calls go out as one `calls` event when the session finishes.

Batch mode (mutants): pytest (and hypothesis) are imported once, then each file runs in a forked copy of
this clean process (no artifact code has run before the fork), with its own timeout; every event carries
the run's index and the fork server reports each run's exit status as a `run_end` event.
"""

import json
import os
import sys

import rf_events
import rf_fork
import rf_record

_emit = rf_events.emit
_RUN = {"index": 0}


def emit(obj):
    obj["run"] = _RUN["index"]
    _emit(obj)


def _short(text, limit=1500):
    text = str(text)
    return text if len(text) <= limit else text[: limit // 2] + "\n…\n" + text[-limit // 2:]


class ReportPlugin:
    def __init__(self, opts):
        self.not_tests = set(opts.get("not_tests") or ())
        self.record = list(opts.get("record") or ())
        self.recorder = None

    def pytest_collectreport(self, report):
        if report.failed:
            emit({"ev": "collect_error", "id": report.nodeid, "message": _short(report.longrepr)})

    def pytest_collection_modifyitems(self, session, config, items):
        if self.not_tests:
            items[:] = [i for i in items if getattr(i, "cls", None) is not None
                        or (getattr(i, "originalname", None) or i.name) not in self.not_tests]

    def pytest_collection_finish(self, session):
        items = []
        for item in session.items:
            obj = getattr(item, "obj", None)
            prop = bool(getattr(obj, "is_hypothesis_test", False))
            items.append({"id": item.nodeid, "name": getattr(item, "originalname", None) or item.name,
                          "cls": item.cls.__name__ if getattr(item, "cls", None) else None, "property": prop})
        emit({"ev": "collected", "items": items})
        module = next((getattr(i, "module", None) for i in session.items if getattr(i, "module", None)), None)
        if self.record and module is not None:
            self.recorder = rf_record.Recorder()
            self.recorder.install(module.__dict__, self.record)

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
        if self.recorder is not None:
            emit({"ev": "calls", "calls": self.recorder.calls, "dropped": self.recorder.dropped})
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
    code = pytest.main(_pytest_args(artifact, use_hypothesis), plugins=[ReportPlugin(opts)])
    if cov is not None:
        cov.stop()
        try:
            _, statements, _, missing, _ = cov.analysis2(os.path.abspath(artifact))
            emit({"ev": "coverage", "statements": sorted(statements), "missing": sorted(missing)})
        except Exception as exc:
            emit({"ev": "coverage_error", "message": repr(exc)})
    return int(code)


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
        code, timed_out = rf_fork.run_forked(lambda p=path: run_one(pytest, p, opts, use_hypothesis), timeout)
        emit({"ev": "run_end", "exit": code, "timed_out": timed_out})
    os._exit(0)


if __name__ == "__main__":
    main()
