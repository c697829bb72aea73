"""Basic behaviour of the sandbox: files in, collect out, empty environment, each limit hit with its flag."""

from __future__ import annotations

import signal
import sys

import pytest

from reasonforge.verify.sandbox import runner as sb
from reasonforge.verify.sandbox.runner import Limits, SandboxResult, SandboxUnavailable, run_sandboxed, sandbox_python

_WHY = sb.unavailable_reason()
needs_sandbox = pytest.mark.skipif(_WHY is not None, reason=f"sandbox unavailable: {_WHY}")


def py(code: str, files: dict[str, str | bytes] | None = None, limits: Limits | None = None, **kw) -> SandboxResult:
    return run_sandboxed([sandbox_python(), "-c", code], files or {}, limits, **kw)


@needs_sandbox
def test_runs_and_reports_exit_code_and_output() -> None:
    r = py("import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)")
    assert (r.exit_code, r.signal, r.stdout, r.stderr) == (3, None, "out\n", "err\n")
    assert not (r.timed_out or r.cpu_exceeded or r.memory_exceeded or r.output_truncated)
    assert r.sandboxed and r.elapsed_ms > 0 and not r.ok


@needs_sandbox
def test_files_in_and_collect_out() -> None:
    code = "import pathlib; p = pathlib.Path('pkg/data.txt'); pathlib.Path('out/r.bin').parent.mkdir(); " \
           "pathlib.Path('out/r.bin').write_bytes(p.read_bytes()[::-1]); print(open('b.bin','rb').read())"
    r = py(code, {"pkg/data.txt": "abc", "b.bin": b"\x00\xff"}, collect=["out/r.bin", "pkg/data.txt", "missing"])
    assert r.ok, r.stderr
    assert r.stdout == "b'\\x00\\xff'\n"
    assert r.files == {"out/r.bin": b"cba", "pkg/data.txt": b"abc"}
    assert "missing" in r.collect_errors


@needs_sandbox
def test_cwd_home_uid_and_environment_are_fixed() -> None:
    r = py("import os, json; print(json.dumps([os.getcwd(), os.getuid(), os.getgid(), dict(os.environ)]))")
    cwd, uid, gid, env = __import__("json").loads(r.stdout)
    assert (cwd, uid, gid) == (sb.WORK_DIR, 65534, 65534)
    assert set(env) <= {"PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PWD"}
    assert env["HOME"] == sb.WORK_DIR and env["PYTHONHASHSEED"] == "0"


@needs_sandbox
def test_pytest_and_hypothesis_run_inside() -> None:
    test = ("from hypothesis import given, strategies as st\n"
            "@given(st.integers())\ndef test_prop(x):\n    assert x + 0 == x\n"
            "def test_plain():\n    assert 1 + 1 == 2\n")
    r = run_sandboxed([sandbox_python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_m.py"],
                      {"test_m.py": test})
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "2 passed" in r.stdout


@needs_sandbox
def test_stdin_is_fed() -> None:
    r = py("import sys; print(sys.stdin.read().upper())", stdin=b"hello")
    assert r.stdout == "HELLO\n"


@needs_sandbox
def test_no_stdin_means_eof() -> None:
    assert py("import sys; print(repr(sys.stdin.read()))").stdout == "''\n"


@needs_sandbox
def test_cpu_limit_sets_cpu_exceeded() -> None:
    r = py("while True: pass", limits=Limits(cpu_s=1, wall_s=20))
    assert r.cpu_exceeded and not r.timed_out and r.signal == signal.SIGXCPU and r.exit_code is None


@needs_sandbox
def test_memory_limit_sets_memory_exceeded() -> None:
    r = py("x = []\nwhile True: x.append(bytearray(10**7))", limits=Limits(memory_mb=256))
    assert r.memory_exceeded and not r.cpu_exceeded and r.exit_code == 1
    assert "MemoryError" in r.stderr


@needs_sandbox
def test_wall_limit_sets_timed_out() -> None:
    r = py("import time; time.sleep(60)", limits=Limits(wall_s=1))
    assert r.timed_out and not r.cpu_exceeded and r.exit_code is None
    assert r.elapsed_ms >= 900


@needs_sandbox
def test_output_is_capped() -> None:
    r = py("import sys; sys.stdout.write('x' * 5000); sys.stderr.write('y' * 5000)", limits=Limits(output_bytes=1000))
    assert r.output_truncated and r.stdout == "x" * 1000 and r.stderr == "y" * 1000 and r.exit_code == 0


@needs_sandbox
def test_file_size_limit() -> None:
    code = "import errno\ntry:\n    open('big','wb').write(b'0' * (3 << 20))\nexcept OSError as e:\n    print(errno.errorcode[e.errno])"
    r = py(code, limits=Limits(file_size_mb=1))
    assert r.stdout.strip() == "EFBIG"


@needs_sandbox
def test_open_files_limit() -> None:
    code = ("import errno\nfs = []\ntry:\n    while True: fs.append(open('f', 'w'))\n"
            "except OSError as e:\n    print(errno.errorcode[e.errno], len(fs))")
    r = py(code, limits=Limits(open_files=40))
    name, n = r.stdout.split()
    assert name == "EMFILE" and int(n) < 40


@needs_sandbox
def test_process_limit() -> None:
    code = ("import os, errno\nn = 0\ntry:\n    for _ in range(200):\n        if os.fork() == 0:\n"
            "            import time; time.sleep(5); os._exit(0)\n        n += 1\nexcept OSError as e:\n"
            "    print(errno.errorcode[e.errno], n)")
    r = py(code, limits=Limits(processes=20, wall_s=10))
    name, n = r.stdout.split()
    assert name == "EAGAIN" and int(n) < 20


def test_limits_validate_and_are_frozen() -> None:
    with pytest.raises(ValueError):
        Limits(cpu_s=0)
    with pytest.raises(ValueError):
        Limits(bogus=1)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        Limits().cpu_s = 3  # type: ignore[misc]


@pytest.mark.parametrize("bad", ["/abs", "../up", "a/../../b", "", "."])
def test_file_names_must_stay_inside(bad: str) -> None:
    with pytest.raises(ValueError):
        run_sandboxed(["/bin/true"], {bad: "x"}, unsafe_no_sandbox=True)


def test_empty_argv_rejected() -> None:
    with pytest.raises(ValueError):
        run_sandboxed([], {})


def test_unsafe_mode_logs_a_warning_every_time(caplog: pytest.LogCaptureFixture) -> None:
    for _ in range(2):
        r = run_sandboxed([sys.executable, "-c", "import os; print(open('f').read(), sorted(os.environ))"],
                          {"f": "data"}, Limits(wall_s=20), unsafe_no_sandbox=True)
        assert r.exit_code == 0 and r.stdout.startswith("data") and not r.sandboxed
    assert sum("WITHOUT a sandbox" in m for m in caplog.messages) == 2


def test_unavailable_host_raises_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    probe = sb._Availability()
    monkeypatch.setattr(sb.shutil, "which", lambda *a, **k: None)
    with pytest.raises(SandboxUnavailable, match="bwrap"):
        probe.require()
    monkeypatch.setattr(sb, "_AVAILABILITY", probe)
    with pytest.raises(SandboxUnavailable):
        run_sandboxed(["/bin/true"], {})


def test_missing_venv_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("REASONFORGE_SANDBOX_VENV", str(tmp_path / "nope"))
    with pytest.raises(SandboxUnavailable, match="run `reasonforge sandbox install` once"):
        sandbox_python()
