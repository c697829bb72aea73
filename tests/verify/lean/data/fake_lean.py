#!/usr/bin/python3
"""A stand-in `lean` binary for testing the checker's plumbing where no Lean toolchain exists.

It does not check proofs. It exercises what the checker must get right around Lean: finding the
toolchain (`--print-prefix`, `--version`), running inside the sandbox with the prefix bound read-only,
reading LEAN_PATH, finding every imported module's .olean there (so the checker must hand them over),
writing `-o`, and printing `--json` messages in Lean's shape at the right lines:

- `import M` whose .olean is not on LEAN_PATH: an error at that line;
- a line containing `FAKE_ERROR`, `FAKE_SORRY`, `FAKE_TIMEOUT`: an error, the sorry warning, a heartbeat
  error at that line; `FAKE_HANG`: sleeps past any limit;
- `#print axioms N`: an information message `'N' depends on axioms: [...]`, the list read from
  `axioms.json` next to this file's `bin/` (name → list; missing: no axioms).
Exit status 1 after any error, else 0.
"""

import json
import os
import sys
import time

PREFIX = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def message(severity: str, line: int, data: str, file_name: str) -> None:
    print(json.dumps({"severity": severity, "pos": {"line": line, "column": 0},
                      "endPos": {"line": line, "column": 1}, "fileName": file_name, "data": data,
                      "caption": "", "keepFullRange": False}))


def main(argv: list[str]) -> int:
    if argv == ["--print-prefix"]:
        print(PREFIX)
        return 0
    if argv == ["--version"]:
        print("Lean (version 4.0.0-fake, fake_lean.py for plumbing tests)")
        return 0
    out, source = None, None
    args = iter(argv)
    for arg in args:
        if arg in ("-o", "-R", "-i", "-c"):
            value = next(args)
            out = value if arg == "-o" else out
        elif not arg.startswith("-"):
            source = arg
    search = [p for p in os.environ.get("LEAN_PATH", "").split(":") if p]
    with open(os.path.join(PREFIX, "axioms.json"), encoding="utf-8") as fh:
        axioms = json.load(fh)
    failed = False
    with open(source, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    for number, text in enumerate(lines, start=1):
        if text.startswith("import "):
            module = text.split()[1]
            rel = module.replace(".", "/") + ".olean"
            if not any(os.path.exists(os.path.join(p, rel)) for p in search):
                message("error", number, f"fake-lean: no {rel} on LEAN_PATH", source)
                failed = True
        elif text.startswith("#print axioms "):
            name = text.split(" ", 2)[2]
            used = axioms.get(name, [])
            data = (f"'{name}' depends on axioms: [{', '.join(used)}]" if used
                    else f"'{name}' does not depend on any axioms")
            message("information", number, data, source)
        if "FAKE_ERROR" in text:
            message("error", number, "unknown identifier 'nope'", source)
            failed = True
        if "FAKE_SORRY" in text:
            message("warning", number, "declaration uses 'sorry'", source)
        if "FAKE_TIMEOUT" in text:
            message("error", number, "(deterministic) timeout at `whnf`, maximum number of heartbeats (200000) "
                    "has been reached", source)
            failed = True
        if "FAKE_HANG" in text:
            time.sleep(600)
    if out and not failed:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write("fake olean of " + source)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
