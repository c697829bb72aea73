"""Run a Python module (`-m name args...`) under the process filter (rf_seccomp): for tools that import and
execute artifact code themselves (CrossHair), so that the artifact cannot exec or fork there either."""

import os
import runpy
import sys

import rf_events
import rf_seccomp


def main():
    if len(sys.argv) < 3 or sys.argv[1] != "-m":
        sys.stderr.write("usage: rf_filtered.py -m module [args...]\n")
        os._exit(2)
    module = sys.argv[2]
    try:
        rf_seccomp.install()
    except rf_seccomp.FilterUnavailable as exc:
        rf_events.emit({"ev": "filter_error", "message": str(exc)})
        os._exit(3)
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
