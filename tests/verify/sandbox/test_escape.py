"""Adversarial programs against the sandbox: every one must be contained, with the right result.

Programs print LEAK when an attack worked; the host side checks what the program cannot lie about.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

from reasonforge.verify.sandbox.runner import Limits, SandboxResult, run_sandboxed, sandbox_python, unavailable_reason
from reasonforge.verify.sandbox.uids import SLOTS, UID_BASE

_WHY = unavailable_reason()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=f"sandbox unavailable: {_WHY}")
REPO = Path(__file__).resolve().parents[3]


def py(code: str, limits: Limits | None = None, **kw) -> SandboxResult:
    return run_sandboxed([sandbox_python(), "-c", textwrap.dedent(code)], kw.pop("files", {}), limits, **kw)


def contained(code: str, limits: Limits | None = None, **kw) -> SandboxResult:
    r = py(code, limits, **kw)
    assert "LEAK" not in r.stdout, r.stdout
    assert r.exit_code == 0 and "CONTAINED" in r.stdout, (r.stdout, r.stderr)
    return r


def pool_processes(nonce: str | None = None) -> int:
    """Live processes under the sandbox uid range (optionally: whose command line carries `nonce`)."""
    n = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        uid = int(status.split("Uid:")[1].split()[0])
        state = status.split("State:")[1].split()[0]
        if state != "Z" and UID_BASE <= uid < UID_BASE + SLOTS and (nonce is None or nonce in cmdline):
            n += 1
    return n


# --- network -----------------------------------------------------------------------------------

def test_tcp_connect_to_host_listener_fails() -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    srv.settimeout(0.2)
    port = srv.getsockname()[1]
    contained(f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2); print("LEAK")
        except OSError:
            print("CONTAINED")
    """)
    with pytest.raises(socket.timeout):
        srv.accept()
    srv.close()


def test_udp_to_host_listener_is_not_delivered() -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    srv.bind(("127.0.0.1", 0))
    srv.settimeout(0.3)
    port = srv.getsockname()[1]
    py(f"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'hi', ('127.0.0.1', {port}))")
    with pytest.raises(socket.timeout):
        srv.recvfrom(10)
    srv.close()


def test_connect_to_outside_address_fails() -> None:
    contained("""
        import socket
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=2); print("LEAK")
        except OSError:
            print("CONTAINED")
    """)


def test_dns_lookup_fails() -> None:
    contained("""
        import socket
        try:
            socket.getaddrinfo("example.com", 80); print("LEAK")
        except OSError:
            print("CONTAINED")
    """)


def test_only_loopback_interface_exists() -> None:
    r = contained("""
        import socket
        names = [n for _, n in socket.if_nameindex()]
        print("LEAK" if set(names) - {"lo"} else "CONTAINED")
    """)
    assert r.exit_code == 0


# --- file system -------------------------------------------------------------------------------

def test_write_to_tmp_stays_private() -> None:
    name = f"rf-escape-{secrets.token_hex(6)}"
    contained(f"open('/tmp/{name}', 'w').write('x'); print('CONTAINED')")
    assert not Path("/tmp", name).exists()


@pytest.mark.parametrize("target", ["/usr/rf-escape", "/etc/rf-escape", "/rf-escape", "/proc/sys/kernel/hostname"])
def test_write_to_system_fails(target: str) -> None:
    contained(f"""
        try:
            open({target!r}, 'w').write('x'); print("LEAK")
        except OSError:
            print("CONTAINED")
    """)
    assert not Path(target).exists() or target.startswith("/proc")


def test_write_to_repo_and_venv_fails() -> None:
    marker = REPO / f"rf-escape-{secrets.token_hex(6)}"
    venv_marker = Path(sandbox_python()).parent / "rf-escape"
    # The venv is bound read-only, so writing into it must fail inside. The repository is not bound
    # at all: a write to its path may land in the sandbox's private /tmp (when the checkout lives
    # under /tmp), so what counts there is that nothing appears on the host.
    r = py(f"""
        try:
            open({str(venv_marker)!r}, 'w').write('x'); print("LEAK")
        except OSError:
            print("CONTAINED")
        try:
            open({str(marker)!r}, 'w').write('x')
        except OSError:
            pass
    """)
    assert "LEAK" not in r.stdout and "CONTAINED" in r.stdout, (r.stdout, r.stderr)
    assert not marker.exists() and not venv_marker.exists()


@pytest.mark.parametrize("target", ["/root", "/etc/shadow", "/etc/passwd", "/home", "/var", "/sys"])
def test_host_files_are_invisible(target: str) -> None:
    contained(f"""
        import os
        try:
            os.listdir({target!r}) if os.path.isdir({target!r}) else open({target!r}).read()
            print("LEAK")
        except OSError:
            print("CONTAINED")
    """)


def test_repo_sources_are_invisible() -> None:
    contained(f"""
        import os
        print("LEAK" if os.path.exists({str(REPO / 'pyproject.toml')!r}) else "CONTAINED")
    """)


def test_hardlink_to_system_file_fails() -> None:
    contained("""
        import os
        try:
            os.link("/usr/bin/env", "envlink"); print("LEAK")
        except OSError:
            print("CONTAINED")
    """)


# --- environment and /proc -----------------------------------------------------------------------

def test_parent_environment_is_invisible(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = secrets.token_hex(16)
    monkeypatch.setenv("RF_ESCAPE_SECRET", secret)
    r = py("""
        import os, glob
        seen = [repr(os.environ)]
        for p in glob.glob("/proc/*/environ"):
            try:
                seen.append(open(p, "rb").read().decode(errors="replace"))
            except OSError:
                pass
        print("\\n".join(seen))
    """)
    assert r.exit_code == 0 and secret not in r.stdout and "RF_ESCAPE_SECRET" not in r.stdout


def test_host_processes_are_invisible() -> None:
    r = py("import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
    pids = eval(r.stdout)  # a list of ints printed by the program
    assert os.getpid() not in pids or os.getpid() <= 3
    assert len(pids) <= 3 and 1 in pids


def test_proc_cmdline_of_pid1_is_the_sandbox_init_not_the_host() -> None:
    r = py("print(open('/proc/1/cmdline','rb').read())")
    assert b"pytest" not in r.stdout.encode()


# --- processes and signals -----------------------------------------------------------------------

@pytest.mark.slow
def test_fork_bomb_is_contained_and_cleaned_up() -> None:
    # Forks inherit the command line, so the nonce picks out this bomb's processes from any other
    # sandbox running on the machine at the same time.
    nonce = f"rf-bomb-{secrets.token_hex(6)}"
    r = py(f"""
        import os  # {nonce}
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """, Limits(wall_s=3, processes=64))
    assert r.timed_out  # the 3 s wall limit ended it
    deadline = time.monotonic() + 30  # a wait for the kill to land, generous for a loaded machine
    while pool_processes(nonce) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pool_processes(nonce) == 0


def test_memory_hog_is_stopped() -> None:
    r = py("b = bytearray(4 << 30)", Limits(memory_mb=512))
    assert r.memory_exceeded and r.exit_code == 1


def test_cpu_spin_is_stopped() -> None:
    r = py("while True: pass", Limits(cpu_s=1, wall_s=20))
    assert r.cpu_exceeded and not r.timed_out  # the CPU limit stopped it, not the 20 s wall clock


def test_sleep_forever_is_killed_at_wall_limit() -> None:
    r = py("import time; time.sleep(10**6)", Limits(wall_s=1.5))
    assert r.timed_out and r.elapsed_ms > 1400


@pytest.mark.slow
def test_sigxcpu_ignored_still_killed() -> None:
    r = py("import signal; signal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True: pass", Limits(cpu_s=1, wall_s=20))
    assert r.cpu_exceeded and r.signal == signal.SIGKILL


def test_gigabyte_of_output_is_capped() -> None:
    r = py("""
        import sys
        b = b"x" * (1 << 20)
        for _ in range(1024):
            sys.stdout.buffer.write(b)
            sys.stderr.buffer.write(b[:1024])
    """, Limits(wall_s=60))
    assert r.output_truncated and len(r.stdout) == Limits().output_bytes and len(r.stderr) <= Limits().output_bytes
    assert r.exit_code == 0 and not r.timed_out


@pytest.mark.parametrize("code", [
    "import os, signal; os.kill(os.getppid(), signal.SIGKILL)",
    "import os, signal; os.kill(-1, signal.SIGKILL)",
    "import os, signal\nfor p in range(1, 70000):\n    try: os.kill(p, signal.SIGTERM)\n    except OSError: pass",
])
def test_killing_the_parent_or_everyone_spares_the_verifier(code: str) -> None:
    r = py(code, Limits(wall_s=20))
    assert r.exit_code is not None or r.signal is not None  # a result came back, and we are alive
    assert os.getpid() > 0


def test_ptrace_and_process_vm_readv_of_the_verifier_fail() -> None:
    contained(f"""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        hits = 0
        for pid in ({os.getpid()}, {os.getppid()}):  # the verifier and its parent, by host pid
            if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
                hits += 1
            class iovec(ctypes.Structure):
                _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
            buf = ctypes.create_string_buffer(64)
            local, remote = iovec(ctypes.addressof(buf), 64), iovec(0x400000, 64)
            if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0:
                hits += 1
        print("LEAK" if hits else "CONTAINED")
    """)


def test_daemonized_grandchild_dies_with_the_run() -> None:
    nonce = f"rf-daemon-{secrets.token_hex(6)}"
    r = py(f"""
        import os, subprocess, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", {nonce!r}])
            os._exit(0)
        print("parent done")
    """)
    assert r.exit_code == 0 and not r.timed_out  # the detached sleeper did not hold the run open
    deadline = time.monotonic() + 30  # well before the 60 s sleeper would end on its own
    while pool_processes(nonce) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool_processes(nonce) == 0


def test_background_child_and_threads_do_not_hold_the_run() -> None:
    nonce = f"rf-bg-{secrets.token_hex(6)}"
    r = py(f"""
        import os, subprocess, sys, threading, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", {nonce!r}])
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        os._exit(0)
    """, Limits(wall_s=20))
    assert r.exit_code == 0 and not r.timed_out  # the 60 s child and thread did not hold the 20 s run open
    deadline = time.monotonic() + 30  # well before the 60 s sleeper would end on its own
    while pool_processes(nonce) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool_processes(nonce) == 0


# --- collect: symlinks and special files -----------------------------------------------------------

def test_symlink_to_host_file_is_not_collected() -> None:
    r = py("import os; os.symlink('/etc/passwd', 'report.json'); os.symlink('/etc', 'd')",
           collect=["report.json", "d/passwd"])
    assert r.files == {} and set(r.collect_errors) == {"report.json", "d/passwd"}


def test_symlink_to_repo_is_not_collected() -> None:
    r = py(f"import os; os.symlink({str(REPO)!r}, 'repo'); os.symlink({str(REPO / 'pyproject.toml')!r}, 'p')",
           collect=["repo/pyproject.toml", "p"])
    assert r.files == {} and len(r.collect_errors) == 2


def test_fifo_is_not_collected_and_does_not_hang() -> None:
    r = py("import os; os.mkfifo('report.json')", collect=["report.json"])  # pytest-timeout guards a hang
    assert r.files == {} and "report.json" in r.collect_errors


def test_oversized_collect_is_refused() -> None:
    r = py("open('big', 'wb').write(b'0' * 5000)", Limits(collect_bytes=1000), collect=["big", "../../etc/passwd"])
    assert r.files == {} and set(r.collect_errors) == {"big", "../../etc/passwd"}


# --- privileges --------------------------------------------------------------------------------------

def test_setuid_and_capabilities_are_unavailable() -> None:
    contained("""
        import os
        hits = 0
        for f in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.setgroups([0])):
            try:
                f(); hits += 1
            except OSError:
                pass
        caps = [l for l in open('/proc/self/status') if l.startswith(('CapEff', 'CapPrm', 'CapAmb'))]
        hits += any(int(l.split()[1], 16) for l in caps)
        nnp = [l for l in open('/proc/self/status') if l.startswith('NoNewPrivs')][0]
        hits += nnp.split()[1] != '1'
        print("LEAK" if hits else "CONTAINED")
    """)


def test_mount_and_new_namespaces_fail() -> None:
    contained("""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        hits = 0
        hits += libc.mount(b"none", b"/sandbox", b"tmpfs", 0, None) == 0
        hits += libc.unshare(0x10000000) == 0  # CLONE_NEWUSER: would grant caps in a nested namespace
        hits += libc.unshare(0x00020000) == 0  # CLONE_NEWNS
        print("LEAK" if hits else "CONTAINED")
    """)


def test_devices_are_minimal() -> None:
    contained("""
        import os
        names = set(os.listdir('/dev'))
        print("LEAK" if names & {"mem", "kmem", "sda", "vda", "nvme0n1", "kmsg"} else "CONTAINED")
    """)


def test_huge_file_is_cut_at_file_size_limit() -> None:
    r = contained("""
        import errno
        try:
            with open('huge', 'wb') as f:
                for _ in range(64): f.write(b'0' * (1 << 20))
            print("LEAK")
        except OSError as e:
            print("CONTAINED", errno.errorcode[e.errno])
    """, Limits(file_size_mb=8))
    assert "EFBIG" in r.stdout


def test_many_open_files_hit_the_limit() -> None:
    r = contained("""
        import errno
        fs = []
        try:
            for _ in range(100000): fs.append(open('/dev/null'))
            print("LEAK")
        except OSError as e:
            print("CONTAINED", errno.errorcode[e.errno], len(fs))
    """, Limits(open_files=64))
    assert "EMFILE" in r.stdout


def test_exit_code_128_plus_is_read_as_signal_not_forged_success() -> None:
    # A program cannot turn a kill into success: the result shows a signal or a nonzero code.
    r = py("import os; os._exit(0)")
    assert r.exit_code == 0
    r = py("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    assert r.exit_code is None and r.signal == signal.SIGSEGV


def test_concurrent_runs_do_not_share_process_budget() -> None:
    # A fork bomb in one run must not make an innocent concurrent run fail to fork.
    bomb = threading.Thread(target=py, args=("import os\nwhile True:\n    try: os.fork()\n    except OSError: pass",
                                             Limits(wall_s=2, processes=32)))
    bomb.start()
    time.sleep(0.5)
    r = py("import subprocess; print(subprocess.run(['true']).returncode)")
    bomb.join()
    assert r.exit_code == 0 and r.stdout.strip() == "0"


def test_timed_out_run_takes_its_daemonized_grandchildren_along() -> None:
    nonce = f"rf-wall-{secrets.token_hex(6)}"
    r = py(f"""
        import os, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", {nonce!r}])
            os._exit(0)
        time.sleep(60)
    """, Limits(wall_s=1))
    assert r.timed_out
    assert pool_processes(nonce) == 0  # gone by the time the result is returned


def test_verifier_dying_takes_the_sandbox_along() -> None:
    # --die-with-parent: a crashed verifier must not leave untrusted code running.
    import subprocess
    import sys
    nonce = f"rf-orphan-{secrets.token_hex(6)}"
    driver = ("from reasonforge.verify.sandbox.runner import run_sandboxed, sandbox_python, Limits\n"
              f"run_sandboxed([sandbox_python(), '-c', 'import time; time.sleep(60)', {nonce!r}], {{{nonce!r}: ''}}, "
              "Limits(wall_s=60))")
    proc = subprocess.Popen([sys.executable, "-c", driver])
    deadline = time.monotonic() + 10
    while not pool_processes(nonce) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool_processes(nonce) >= 1  # bwrap, its init and the program carry the nonce
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 30  # well before the 60 s sleeper would end on its own
    while pool_processes(nonce) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool_processes(nonce) == 0
    for left in Path(tempfile.gettempdir()).glob(f"reasonforge-sbx-*/{nonce}"):  # the killed driver's work dir
        shutil.rmtree(left.parent)


def test_private_tmp_is_size_capped() -> None:
    r = contained("""
        import errno
        try:
            with open('/tmp/fill', 'wb') as f:
                for _ in range(64): f.write(b'0' * (1 << 20))
            print("LEAK")
        except OSError as e:
            print("CONTAINED", errno.errorcode[e.errno])
    """, Limits(tmp_mb=8))
    assert "ENOSPC" in r.stdout


def test_filling_the_work_dir_with_many_files_is_stopped() -> None:
    r = py("""
        import time
        for i in range(200):
            with open(f'f{i}', 'wb') as f: f.write(b'0' * (1 << 20))
        time.sleep(5)
        print("LEAK")
    """, Limits(work_mb=32, file_size_mb=4, wall_s=20))
    assert r.disk_exceeded and not r.ok and "LEAK" not in r.stdout and not r.timed_out


def test_creating_countless_empty_files_is_stopped() -> None:
    r = py("""
        import os, time
        os.mkdir('d')
        for i in range(100000): open(f'd/{i}', 'w').close()
        time.sleep(5)
        print("LEAK")
    """, Limits(work_files=500, wall_s=20))
    assert r.disk_exceeded and "LEAK" not in r.stdout
