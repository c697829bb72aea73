"""The audit hook a harness child installs before it imports artifact code (rf_child_step.py,
rf_child_complexity.py).

Once installed it cannot be removed. It refuses, writes a tamper line on the child's event descriptor for, and
raises PermissionError on: the audit events starting with one of `denied` (tracing and profiling, which could
rewrite or read a running frame's locals; ctypes; gc's object walks; other threads' frames; links), the events
in `exact` and reading the attributes in `attrs` (CPython's `object.__getattr__` event): a child that keeps a
secret in its locals refuses frame access, `sys._getframe` and the attributes that lead to a frame (`tb_frame`,
`gi_frame`, `cr_frame`, `ag_frame`, `f_back`), but not `__code__` or `__defaults__`, which dataclasses read
and which hold no frame),
importing a module of `modules` (ctypes writes memory without an audit event of its own, so it is taken out of
sys.modules and kept out), opening a path through a part of `parts` (/proc/self/mem, /dev/fd/../mem) or a path
that is neither str, bytes nor a descriptor, and replacing the hook's own code or defaults.

Everything the hook uses is a parameter default or a method of a builtin type, so it reads no global or builtin
name the artifact could rebind.
"""

import sys

import rf_seccomp

DENIED = ("ctypes.", "sys.settrace", "sys.setprofile", "gc.get_", "sys._current_frames", "sys._current_exceptions",
          "os.symlink", "os.link")
DENIED_IMPORTS = frozenset({"ctypes", "_ctypes"})
PATH_EVENTS = frozenset({"open", "os.chdir"})
# a path through one of these names can lead into /proc (/proc/self/mem, /dev/fd/../mem); without creating
# symlinks (refused) there is no other way there
PROC_PARTS = frozenset({"proc", "fd"})
TAMPER_HEAD = b'{"ev":"tamper","m":"'


def hook(event, args, _me=None, _write=None, _fd=-1, _dumps=None, _denied=(), _paths=frozenset(),
         _parts=frozenset(), _modules=frozenset(), _str=str, _bytes=bytes, _int=int, _type=type,
         _refuse=PermissionError, _exact=frozenset(), _attrs=frozenset(), _head=TAMPER_HEAD):
    bad = event.startswith(_denied) or event in _exact
    if not bad and event == "object.__getattr__" and _type(args[1]) is _str:
        bad = args[1] in _attrs
    if not bad and event == "object.__setattr__":
        bad = args[0] is _me
    if not bad and event == "import" and _type(args[0]) is _str:
        bad = args[0].split(".")[0] in _modules
    if not bad and event in _paths:
        path = args[0]
        kind = _type(path)
        parts: list[str] = []
        if kind is _str:
            parts = path.split("/")
        elif kind is _bytes:
            parts = path.decode("utf-8", "replace").split("/")
        elif kind is not _int:
            bad = True  # a path-like object could name one file here and another when opened
        for part in parts:
            if part in _parts:
                bad = True
    if bad:
        line = _head + _dumps(event).hex().encode() + b'"}\n'
        while line:
            line = line[_write(_fd, line):]
        raise _refuse("the harness refuses " + event + ": it reaches into the harness")


def install(write, fd, dumps, *, exact=frozenset(), attrs=frozenset(), modules=DENIED_IMPORTS):
    """Take ctypes (and `modules`) out of reach and install `hook`; call after rf_seccomp.install, which needs
    ctypes, and before the artifact is imported. `write` and `dumps` are the child's captured os.write and
    marshal.dumps."""
    for name in [m for m in sys.modules if m.split(".")[0] in modules]:
        del sys.modules[name]
    rf_seccomp.ctypes = None
    hook.__defaults__ = (hook, write, fd, dumps, DENIED, PATH_EVENTS, PROC_PARTS, modules, str, bytes, int, type,
                         PermissionError, frozenset(exact), frozenset(attrs), TAMPER_HEAD)
    sys.addaudithook(hook)
