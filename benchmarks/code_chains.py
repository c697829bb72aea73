"""HumanEval and MBPP tasks submitted as chains and judged through `verify_chain` (not only the checker): how many
come out VERIFIED, and why the others do not.

Each task is a one-step code chain, the way a user would submit it:
- HumanEval: the prompt (signature and docstring) is the question, the canonical solution (with its prompt) is the
  step, and the artifact is that code with the dataset's `check` as a pytest test;
- MBPP: the task text with its `test_list` asserts is the question (the way MBPP poses it), the reference code is
  the step, and the artifact is that code with the asserts as a pytest test.
VERIFIED needs evidence the author cannot supply: the question's examples (doctests, prose examples such as
`f(x) should return y`, asserts), never the artifact's own tests alone (those are `self_tested`: PARTIAL).

With `--examples-model`, a model (the local one unless named) also writes examples of each task from its texts
alone, never seeing the code (`translate.examples`): independent evidence, the way `verify --translator model`
adds it. Its examples that the code fails are disputed, never a refutation.

    python benchmarks/code_chains.py                     # the committed slices
    python benchmarks/code_chains.py --humaneval FILE --mbpp FILE --json
    python benchmarks/code_chains.py --examples-model local --limit 40
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.protocol import Translator
from reasonforge.types import CheckLimits, Domain, Overall, ProofLevel, VerifyRequest

from _common import REPO, display_path, read_rows, share

DEFAULT_HUMANEVAL = REPO / "data" / "humaneval" / "HumanEval.slice.jsonl"
DEFAULT_MBPP = REPO / "data" / "mbpp-sanitized" / "sanitized-mbpp.slice.jsonl"
_MAX_LISTED = 20


def humaneval_request(row: dict[str, Any]) -> VerifyRequest:
    """A HumanEval task as a chain: the prompt asks, the canonical solution answers, the dataset's check tests."""
    code = f"{row['prompt']}{row['canonical_solution'].rstrip()}\n"
    test = textwrap.indent(row["test"].strip("\n"), "    ")
    artifact = f"{code}\n\ndef test_check():\n{test}\n    check({row['entry_point']})\n"
    return _request(row["prompt"], code, artifact)


def mbpp_request(row: dict[str, Any]) -> VerifyRequest:
    """An MBPP task as a chain: the task text with its asserts asks, the reference code answers and is tested."""
    imports = "".join(f"{line}\n" for line in row.get("test_imports", []))
    code = f"{imports}{row['code'].rstrip()}\n"
    tests = "".join(f"    {line.strip()}\n" for line in row["test_list"])
    return _request(row["prompt"] + "\n" + "\n".join(row["test_list"]), code,
                    f"{code}\n\ndef test_dataset():\n{tests}")


def _request(question: str, code: str, artifact: str) -> VerifyRequest:
    return VerifyRequest(
        original_query=question, domain=Domain.CODE, proof_level=ProofLevel.QUICK,
        reasoning_chain=[{"step_id": 1, "content": f"```python\n{code}```"}],  # type: ignore[list-item]
        translations=[{"step_id": 1, "language": "python", "formal_representation": artifact}],  # type: ignore[list-item]
    )


class Other(BaseModel):
    """A task that did not come out VERIFIED."""

    id: str
    overall: str
    assurance: str
    reason: str


class DatasetReport(BaseModel):
    """One dataset's figures."""

    data: str
    tasks: int
    verified: int
    verified_share: float
    refuted: int  # assurance `refuted`: a canonical solution refuted is a false refutation or a dataset error
    assurance: dict[str, int]
    others: list[Other]


class CodeChainsReport(BaseModel):
    """Everything the benchmark prints (`--json`)."""

    datasets: dict[str, DatasetReport]
    elapsed_s: float


def run_dataset(path: Path, to_request: Any, *, limit: int | None = None, limits: CheckLimits | None = None,
                writer: Translator | None = None) -> DatasetReport:
    """Every task of `path` (or the first `limit`) through `verify_chain` (`writer`: who writes examples from the
    texts beside the supplied artifacts)."""
    rows = read_rows(path)[:limit] if limit else read_rows(path)
    assurance: Counter[str] = Counter()
    verified = refuted = 0
    others: list[Other] = []
    for row in rows:
        verdict = verify_chain(to_request(row), translator=writer, limits=limits or CheckLimits())
        assurance[verdict.assurance.value] += 1
        verified += verdict.overall is Overall.VERIFIED
        refuted += verdict.assurance.value == "refuted"
        if verdict.overall is not Overall.VERIFIED and len(others) < _MAX_LISTED:
            step = verdict.step_verdicts[0]
            reason = step.error_message or (f"verified on {step.evidence.kind.value} evidence supplied by "
                                            f"{step.evidence.supplied_by.value}" if step.evidence else "")
            others.append(Other(id=str(row.get("task_id")), overall=verdict.overall.value,
                                assurance=verdict.assurance.value, reason=reason[:240]))
    return DatasetReport(data=display_path(path), tasks=len(rows), verified=verified,
                         verified_share=share(verified, len(rows)), refuted=refuted,
                         assurance=dict(sorted(assurance.items())), others=others)


def render(report: CodeChainsReport) -> str:
    """The human-readable report."""
    out = []
    for name, data in report.datasets.items():
        out.append(f"{name} as chains ({data.data}): VERIFIED {data.verified}/{data.tasks} ({data.verified_share:.2%}); "
                   f"refuted {data.refuted}; assurance {data.assurance}")
        out.extend(f"  {o.id}: {o.overall} ({o.assurance}): {o.reason}" for o in data.others)
    out.append(f"elapsed {report.elapsed_s:.1f} s")
    return "\n".join(out)


def _example_writer(model: str) -> Translator:
    from reasonforge.errors import InputError
    from reasonforge.translate.engine import TranslationEngine
    from reasonforge.translate.select import model_backend

    try:
        return TranslationEngine(model_backend(model), strict=True)
    except InputError as exc:
        raise SystemExit(f"error: --examples-model {model}: {exc.message}") from None


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--humaneval", type=Path, default=DEFAULT_HUMANEVAL, help="a HumanEval JSONL file")
    parser.add_argument("--mbpp", type=Path, default=DEFAULT_MBPP, help="a sanitized-MBPP JSONL file")
    parser.add_argument("--limit", type=int, default=None, help="first N tasks of each file")
    parser.add_argument("--timeout", type=float, default=10.0, help="per check, seconds")
    parser.add_argument("--examples-model", default=None, metavar="MODEL", help=(
        "a model that writes examples of each task from its texts (local: the installed one; a URL or a name as "
        "--model takes it)"))
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    limits = CheckLimits(timeout_s=args.timeout)
    writer = _example_writer(args.examples_model) if args.examples_model else None
    datasets = {"HumanEval": run_dataset(args.humaneval, humaneval_request, limit=args.limit, limits=limits,
                                         writer=writer),
                "MBPP": run_dataset(args.mbpp, mbpp_request, limit=args.limit, limits=limits, writer=writer)}
    report = CodeChainsReport(datasets=datasets, elapsed_s=round(time.perf_counter() - started, 1))
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
