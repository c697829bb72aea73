"""A local stand-in for leanprover-community/repl that replays recorded real REPL sessions.

Usage: python fake_repl.py TRANSCRIPT_DIR

It speaks the REPL's wire protocol: it reads JSON requests separated by blank lines on stdin and
answers each with the recorded response text, byte for byte, followed by a blank line. The recorded
sessions are the REPL's own test files (`<name>.in` requests, `<name>.expected.out` answers, see
SOURCE.md). A `cmd` is answered with the next recorded answer to that same `cmd`; the environment id in
the answer is renumbered to this process's own counter, as the real REPL numbers environments per
process. It knows nothing about Lean: an unrecorded command makes it exit with status 3 (a crash).

Test hooks (environment): FAKE_REPL_LOG=path appends every request as one JSON line;
FAKE_REPL_HANG_ON=text makes a command containing `text` never answer.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections import defaultdict, deque
from pathlib import Path


def _blocks(text: str) -> list[str]:
    return [b for b in re.split(r"\n\s*\n", text) if b.strip()]


def load(directory: Path) -> dict[str, deque[str]]:
    answers: dict[str, deque[str]] = defaultdict(deque)
    for request_file in sorted(directory.glob("*.in")):
        answer_file = request_file.with_suffix(".expected.out")
        if not answer_file.exists():
            continue
        requests = [json.loads(b) for b in _blocks(request_file.read_text(encoding="utf-8"))]
        replies = _blocks(answer_file.read_text(encoding="utf-8"))
        for request, reply in zip(requests, replies):
            if "cmd" in request:
                answers[request["cmd"]].append(reply.strip("\n"))
    return answers


def read_request(stream) -> dict | None:
    lines: list[str] = []
    for line in stream:
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line)
    if not lines:
        return None
    return json.loads("".join(lines))


def main() -> int:
    answers = load(Path(sys.argv[1]))
    last: dict[str, str] = {}
    next_env = 0
    log = os.environ.get("FAKE_REPL_LOG")
    hang_on = os.environ.get("FAKE_REPL_HANG_ON")
    while (request := read_request(sys.stdin)) is not None:
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(request) + "\n")
        cmd = request.get("cmd")
        if hang_on and isinstance(cmd, str) and hang_on in cmd:
            time.sleep(3600)
        if cmd not in answers and cmd not in last:
            print(f"fake_repl: no recorded answer for {cmd!r}", file=sys.stderr)
            return 3
        queue = answers.get(cmd)
        reply = queue.popleft() if queue else last[cmd]
        last[cmd] = reply
        if re.search(r'"env": \d+\}$', reply):
            reply = re.sub(r'"env": \d+\}$', f'"env": {next_env}}}', reply)
            next_env += 1
        sys.stdout.write(reply + "\n\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
