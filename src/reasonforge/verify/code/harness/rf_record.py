"""Recorder: while the tests run on the original implementation, keep the arguments each top-level
implementation function is called with (the differential run's seed inputs).

Each named module-level function is replaced by a wrapper that encodes its arguments before the call
(so a function that mutates its input is recorded with the input it received) and then calls the real
function. While a function runs, its global name points back to the real function: recursive calls add
no wrapper frames (the tests' recursion depth is unchanged) and are not recorded (the outermost call
is the interesting one). Recording never changes what the call does: any failure to encode just skips
the record. Caps: calls kept per function, calls looked at per function, bytes in all.
"""

import functools
import json

import rf_values

MAX_PER_FUNCTION = 32
MAX_SEEN = 2000
MAX_CALL_BYTES = 16_000
MAX_BYTES = 128_000  # the whole report must fit the sandbox's 1 MiB stdout cap


class Recorder:
    """Holds the kept calls: [{"function", "args", "kwargs"}] with tagged (rf_values) arguments."""

    def __init__(self):
        self.calls = []
        self.dropped = 0
        self._bytes = 0
        self._seen = {}
        self._kept = {}
        self._keys = set()

    def install(self, namespace, names):
        """Wrap the functions `names` of a module's globals `namespace` (callables that are not classes)."""
        for name in names:
            fn = namespace.get(name)
            if callable(fn) and not isinstance(fn, type):
                namespace[name] = self._wrap(namespace, name, fn)

    def _wrap(self, namespace, name, fn):
        recorder = self

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            recorder.note(name, args, kwargs)
            if namespace.get(name) is not wrapper:  # the artifact rebound the name: leave it alone
                return fn(*args, **kwargs)
            namespace[name] = fn
            try:
                return fn(*args, **kwargs)
            finally:
                if namespace.get(name) is fn:
                    namespace[name] = wrapper

        return wrapper

    def note(self, name, args, kwargs):
        """Keep this call if it is plain data, new, and within the caps."""
        seen = self._seen.get(name, 0)
        if seen >= MAX_SEEN or self._kept.get(name, 0) >= MAX_PER_FUNCTION:
            return
        self._seen[name] = seen + 1
        try:
            entry = {"function": name, "args": rf_values.encode(list(args)),
                     "kwargs": {str(k): rf_values.encode(v) for k, v in kwargs.items()}}
            key = json.dumps(entry, sort_keys=True)
        except (rf_values.Unsupported, RecursionError, TypeError, ValueError):
            self.dropped += 1
            return
        if key in self._keys:
            return
        if len(key) > MAX_CALL_BYTES or self._bytes + len(key) > MAX_BYTES:
            self.dropped += 1
            return
        self._keys.add(key)
        self._bytes += len(key)
        self._kept[name] = self._kept.get(name, 0) + 1
        self.calls.append(entry)
