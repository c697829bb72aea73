"""Harness child: run pytest on the artifact with the reporting plugin loaded before the artifact.

argv: artifact path, JSON options {"examples": int, "coverage": bool, "hypothesis": bool, "record": [names],
"not_tests": [names]}. The original and every mutant are run by the same command line with
the same options, each in its own fresh sandbox (see harness_run.run_variants): nothing in a run says which
it is.

Before pytest imports the artifact, the process filter (rf_seccomp) is installed: artifact code cannot
exec, fork or ptrace. If it cannot be installed, the child reports `filter_error` and exits without
running artifact code.

`not_tests`: top-level functions named `test*` that the verifier classed as implementation (they take
arguments no fixture supplies and other code calls them); they are deselected, never run as tests.
`record` (first run only): top-level implementation functions whose calls `rf_record` keeps while the
tests run; the kept calls go out as one `calls` event when the session finishes.
The step's own checks (the examples and claims of its text and question) do not run here: they run in a
process of their own before this one (rf_child_step.py), out of reach of the tests and of this plugin.

The property profile: every collected hypothesis test is run with the harness's profile (its own
`@settings`, `@seed` and `@reproduce_failure` are replaced just before it runs), and hypothesis's run
statistics for it are reported as a `property` event, so that the verifier can check that generated
examples ran (not only `@example`s, not a profile the artifact set up).
"""

import json
import os
import sys

import pytest
import rf_events
import rf_record
import rf_seccomp

emit = rf_events.emit


def _short(text, limit=1500):
    text = str(text)
    return text if len(text) <= limit else text[: limit // 2] + "\n…\n" + text[-limit // 2:]


def _hypothesis_test(item):
    obj = getattr(item, "obj", None)
    fn = getattr(obj, "__func__", obj)
    return fn if getattr(fn, "is_hypothesis_test", False) else None


def _enforce(fn, profile):
    """The harness's profile for test `fn`, whatever @settings, @seed or @reproduce_failure said."""
    fn._hypothesis_internal_use_settings = profile
    fn._hypothesis_internal_use_seed = None
    fn._hypothesis_internal_use_reproduce_failure = None


def _summary(stats):
    cases = []
    for key, phase in stats.items():
        if key.endswith("-phase") and key not in ("shrink-phase", "explain-phase") and isinstance(phase, dict):
            cases.extend(phase.get("test-cases", []))
    statuses = [str(c.get("status")) for c in cases if isinstance(c, dict)]
    return {"generate": "generate-phase" in stats, "stopped": str(stats.get("stopped-because", "")),
            "valid": statuses.count("valid"), "invalid": statuses.count("invalid") + statuses.count("overrun"),
            "interesting": statuses.count("interesting")}


class ReportPlugin:
    def __init__(self, opts, profile):
        self.not_tests = set(opts.get("not_tests") or ())
        self.record = list(opts.get("record") or ())
        self.recorder = None
        self.profile = profile

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
            prop = _hypothesis_test(item) is not None
            items.append({"id": item.nodeid, "name": getattr(item, "originalname", None) or item.name,
                          "cls": item.cls.__name__ if getattr(item, "cls", None) else None, "property": prop})
        emit({"ev": "collected", "items": items})
        module = next((getattr(i, "module", None) for i in session.items if getattr(i, "module", None)), None)
        if self.record and module is not None:
            self.recorder = rf_record.Recorder()
            self.recorder.install(module.__dict__, self.record)
        for item in session.items:
            fn = _hypothesis_test(item)
            if fn is not None and self.profile is not None:
                _enforce(fn, self.profile)

    # innermost wrapper (trylast): its profile and statistics callback are the ones in force for the call
    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_call(self, item):
        fn = _hypothesis_test(item)
        if fn is None or self.profile is None:
            yield
            return
        from hypothesis.statistics import collector

        _enforce(fn, self.profile)
        runs: list = []
        with collector.with_value(runs.append):  # type: ignore[arg-type]  # hypothesis types the variable as None
            yield
        emit({"ev": "property", "id": item.nodeid, "runs": [_summary(s) for s in runs if isinstance(s, dict)]})

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


def main():
    target = sys.argv[1]
    opts = json.loads(sys.argv[2])
    use_hypothesis = bool(opts.get("hypothesis", True))
    profile = None
    if use_hypothesis:
        try:
            from hypothesis import HealthCheck, settings

            settings.register_profile("rf", max_examples=int(opts.get("examples", 100)), deadline=None,
                                      database=None, derandomize=True, suppress_health_check=list(HealthCheck),
                                      print_blob=False)
            settings.load_profile("rf")
            profile = settings.get_profile("rf")
        except ImportError:
            pass
    cov = None
    if opts.get("coverage"):
        try:
            import coverage

            cov = coverage.Coverage(data_file=None, include=[os.path.abspath(target)], config_file=False)
        except Exception:
            cov = None
    try:
        rf_seccomp.install()
    except rf_seccomp.FilterUnavailable as exc:
        emit({"ev": "filter_error", "message": str(exc)})
        os._exit(3)
    if cov is not None:
        cov.start()
    code = pytest.main(_pytest_args(target, use_hypothesis), plugins=[ReportPlugin(opts, profile)])
    if cov is not None:
        cov.stop()
        try:
            _, statements, _, missing, _ = cov.analysis2(os.path.abspath(target))
            emit({"ev": "coverage", "statements": sorted(statements), "missing": sorted(missing)})
        except Exception as exc:
            emit({"ev": "coverage_error", "message": repr(exc)})
    sys.stdout.flush()
    os._exit(int(code))


if __name__ == "__main__":
    main()
