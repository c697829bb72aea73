"""A process filter (seccomp) installed by every harness child before it imports artifact code.

Artifact code may not start another program or process: execve/execveat, fork/vfork, clone without
CLONE_THREAD (posix_spawn, subprocess, multiprocessing) fail with EPERM, clone3 with ENOSYS (so that
glibc's thread creation falls back to clone, which the filter can inspect), ptrace with EPERM. What this
closes: a process that exec()s into a program writing a fabricated event stream, and a forked child that
outlives the test run and writes events, or hands state from one run to a later one. Threads stay allowed.

Syscalls of a foreign ABI (i386 `int 0x80`, x32) kill the process: their numbers differ, so a filter
written for the native ABI cannot judge them. The filter is inherited by every thread and cannot be
removed; TSYNC applies it to threads that already exist.
"""

import ctypes
import os
import platform
import struct

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
EPERM = 1
ENOSYS = 38
CLONE_THREAD = 0x00010000
X32_SYSCALL_BIT = 0x40000000

# BPF opcodes
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06

# arch -> (AUDIT_ARCH, seccomp syscall, {name: number})
ARCHES = {
    "x86_64": (0xC000003E, 317, {"execve": 59, "execveat": 322, "fork": 57, "vfork": 58, "clone": 56,
                                 "clone3": 435, "ptrace": 101}),
    "aarch64": (0xC00000B7, 277, {"execve": 221, "execveat": 281, "clone": 220, "clone3": 435, "ptrace": 117}),
}


class FilterUnavailable(Exception):
    """The filter cannot be installed here: artifact code must not run."""


def _ins(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


def program(arch):
    """The BPF program for `arch` (bytes of sock_filter structs)."""
    audit, _, nrs = ARCHES[arch]
    denied = [nrs[n] for n in ("execve", "execveat", "fork", "vfork", "ptrace") if n in nrs]
    out = [_ins(LD_W_ABS, 0, 0, 4), _ins(JEQ_K, 1, 0, audit), _ins(RET_K, 0, 0, RET_KILL_PROCESS),
           _ins(LD_W_ABS, 0, 0, 0)]
    if arch == "x86_64":
        out += [_ins(JGE_K, 0, 1, X32_SYSCALL_BIT), _ins(RET_K, 0, 0, RET_KILL_PROCESS)]
    for nr in denied:
        out += [_ins(JEQ_K, 0, 1, nr), _ins(RET_K, 0, 0, RET_ERRNO | EPERM)]
    out += [_ins(JEQ_K, 0, 1, nrs["clone3"]), _ins(RET_K, 0, 0, RET_ERRNO | ENOSYS)]
    # clone: flags are the first argument (low 32 bits at offset 16 on little-endian machines)
    out += [_ins(JEQ_K, 0, 3, nrs["clone"]), _ins(LD_W_ABS, 0, 0, 16), _ins(JSET_K, 1, 0, CLONE_THREAD),
            _ins(RET_K, 0, 0, RET_ERRNO | EPERM)]
    out += [_ins(RET_K, 0, 0, RET_ALLOW)]
    return b"".join(out)


def install():
    """Install the filter on this process and all its threads, or raise FilterUnavailable."""
    arch = platform.machine()
    if arch not in ARCHES:
        raise FilterUnavailable(f"no process filter for the {arch} architecture")
    _, seccomp_nr, _ = ARCHES[arch]
    code = program(arch)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise FilterUnavailable(f"prctl(NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")
    buf = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc.syscall.restype = ctypes.c_long
    rc = libc.syscall(ctypes.c_long(seccomp_nr), ctypes.c_long(SECCOMP_SET_MODE_FILTER),
                      ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(prog))
    if rc != 0:
        raise FilterUnavailable(f"seccomp(SET_MODE_FILTER) failed: {os.strerror(ctypes.get_errno())}")
