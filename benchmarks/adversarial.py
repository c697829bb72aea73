"""The adversarial corpus: requests (and supplied artifacts) written to obtain a verdict they must not get.

    python benchmarks/adversarial.py [--cases DIR] [--family F] [--json]

Each case (tests/adversarial/cases/<family>.jsonl, one JSON object per line) is one of:
- a verification: `{"id", "family", "why", "request": VerifyRequest, "must_not": ["verified", ...],
  "step": N}`: the status of step N (or, without `step`, of every step) must not be one of `must_not`; with
  `"overall_not": ["VERIFIED"]` the chain's overall verdict must not be one of those either, and with
  `"assurance_not": ["proven"]` its assurance must not be one of those.
  An input error (the request refused with a clear message) never counts as wrong: nothing was verified.
  `"level"` / `"translations"` may sit beside `request` for convenience (merged into it). With
  `"question_programs": [...]` the question's formalisations are those programs (as if a fooled model wrote
  them), the steps translated by the rules.
- a command: `{"id", "family", "why", "cli": {"argv": [...], "stdin": "..."}, "exit": 2}`: the `reasonforge`
  command (run in this process by Typer's runner) must exit with that code and raise no uncaught exception.

Prints cases, wrong and a per-family table (or one JSON object with `--json`); exit 1 when any case is wrong.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from reasonforge.errors import ReasonForgeError
from reasonforge.types import CheckLimits

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "adversarial" / "cases"


def load_cases(folder: Path = CASES, family: str | None = None) -> list[dict[str, Any]]:
    """Every case under `folder`, in file then line order, each with its `source` (file:line)."""
    cases = []
    for path in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            case = json.loads(line)
            case["source"] = f"{path.name}:{number}"
            if family is None or case.get("family") == family:
                cases.append(case)
    ids = Counter(case["id"] for case in cases)
    duplicated = sorted(i for i, n in ids.items() if n > 1)
    if duplicated:
        raise SystemExit(f"duplicate case ids: {', '.join(duplicated)}")
    return cases


def run_case(case: dict[str, Any]) -> tuple[bool, str]:
    """(ok, what happened) for one case."""
    if "cli" in case:
        return _run_cli(case)
    return _run_request(case)


def _run_request(case: dict[str, Any]) -> tuple[bool, str]:
    from reasonforge.chain import parse_request
    from reasonforge.pipeline import verify_chain

    body = dict(case["request"])
    if "translations" in case:
        body["translations"] = case["translations"]
    if "level" in case:
        body["proof_level"] = case["level"]
    try:
        # The CLI's and the API's own reader: what they would refuse is refused here too.
        request = parse_request(json.dumps(body))
        translator = None
        if "question_programs" in case:
            from reasonforge.translate import default_translator

            from _common import FixedFormaliser, RulesWithQuestionModel

            rules = default_translator(request.domain, level=request.proof_level, prover=request.prover)
            programs = case["question_programs"]
            translator = RulesWithQuestionModel(rules, FixedFormaliser(programs), len(programs))
        verdict = verify_chain(request, translator=translator,
                               limits=CheckLimits(timeout_s=case.get("timeout_s", 10.0)))
    except ReasonForgeError as exc:
        return True, f"refused: {exc.message}"
    must_not = set(case["must_not"])
    steps = [v for v in verdict.step_verdicts if case.get("step") in (None, v.step_id)]
    if not steps:
        return False, f"no step {case.get('step')} in the verdict"
    bad = [v for v in steps if v.status.value in must_not]
    got = ", ".join(f"step {v.step_id} {v.status.value}" + (f" ({v.error_message[:80]})" if v.error_message else "")
                    for v in steps)
    if verdict.overall.value in set(case.get("overall_not", ())):
        return False, f"overall {verdict.overall.value}; {got}"
    assurance = verdict.assurance.value if verdict.assurance is not None else ""
    if assurance in set(case.get("assurance_not", ())):
        return False, f"assurance {assurance}; {got}"
    return not bad, got


def _run_cli(case: dict[str, Any]) -> tuple[bool, str]:
    """The command run in this process (Typer's runner: the same parsing, error hook and exit codes as the installed
    `reasonforge`, without an interpreter start per case); an uncaught exception is a traceback."""
    from typer.testing import CliRunner

    from reasonforge.cli import app

    spec = case["cli"]
    with contextlib.chdir(REPO):  # paths in a case are the repository's
        result = CliRunner().invoke(app, spec["argv"], input=spec.get("stdin", ""))
    traceback = result.exception is not None and not isinstance(result.exception, SystemExit)
    ok = result.exit_code == case.get("exit", 2) and not traceback
    stderr = result.stderr if result.stderr_bytes is not None else result.output
    first = (repr(result.exception) if traceback else (stderr.strip().splitlines() or [""])[0])[:160]
    return ok, f"exit {result.exit_code}{' with a traceback' if traceback else ''}: {first}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, default=CASES, help="folder of <family>.jsonl case files")
    parser.add_argument("--family", default=None, help="run one family only")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    cases = load_cases(args.cases, args.family)
    started = time.perf_counter()
    by_family: dict[str, Counter] = {}
    wrong = []
    for case in cases:
        ok, got = run_case(case)
        tally = by_family.setdefault(case["family"], Counter())
        tally["cases"] += 1
        if not ok:
            tally["wrong"] += 1
            wrong.append({"id": case["id"], "source": case["source"], "why": case.get("why", ""), "got": got})
    report = {
        "cases": len(cases),
        "wrong": len(wrong),
        "families": {f: {"cases": t["cases"], "wrong": t["wrong"]} for f, t in sorted(by_family.items())},
        "wrong_cases": wrong,
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"adversarial corpus: {report['cases']} cases, {report['wrong']} wrong ({report['elapsed_s']} s)")
        for family, t in report["families"].items():
            print(f"  {family:<12} {t['cases']:>4} cases  {t['wrong']:>3} wrong")
        for w in wrong:
            print(f"  WRONG {w['id']} ({w['source']}): {w['got']}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
