"""Translation-benchmark data: FOLIO, ProcessBench, HumanEval, MBPP and plain VerifyRequest rows → chains to translate.

Each row becomes a `BenchItem`: the `VerifyRequest` the translator gets and the gold answer its score uses.
- FOLIO `{premises, conclusion, label}`: the premises are the query, the conclusion is the one step;
  gold = True / False / Uncertain (the NL is translated; the dataset's own FOL is never shown).
- ProcessBench `{problem, steps, label}`: one step per solution step (each on the one before); gold = the
  0-based index of the first wrong step, -1 when all are right. The subset is the file's name.
- HumanEval `{prompt, canonical_solution, test, entry_point}` and MBPP `{prompt|text, code, test_list}`:
  one step holding the reference code and the dataset's tests in fenced blocks; gold = the tests pass.
- rows with a `reasoning_chain`: used as they are (gold: none).
The format is recognised from the rows' keys; an unknown shape is an `InputError` naming the expected ones.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from reasonforge.boundary.files import DOCUMENT_JSON, read_limited
from reasonforge.boundary.jsontext import scan_json
from reasonforge.errors import InputError, not_utf8
from reasonforge.types import Domain, ProofLevel, VerifyRequest

__all__ = ["FORMAT_DOMAIN", "BenchItem", "DataFormat", "detect_format", "load_items", "read_rows"]

DataFormat = Literal["folio", "processbench", "humaneval", "mbpp", "chains"]
FORMAT_DOMAIN: dict[str, Domain] = {"folio": Domain.LOGIC, "processbench": Domain.MATHEMATICS,
                                    "humaneval": Domain.CODE, "mbpp": Domain.CODE}
_EXPECTED = ("FOLIO rows {premises, conclusion, label}, ProcessBench rows {problem, steps, label}, HumanEval rows "
             "{prompt, canonical_solution, test, entry_point}, MBPP rows {code, test_list}, or VerifyRequest rows "
             "{reasoning_chain, domain}")


class BenchItem(BaseModel):
    """One benchmark item: the chain to translate and what a correct run should find."""

    id: str
    subset: str
    request: VerifyRequest
    gold: Any = None


def read_rows(path: Path) -> list[dict[str, Any]]:
    """JSON objects of a JSONL file (or a JSON list); a bad line is an `InputError` naming it."""
    if not path.is_file():
        raise InputError(f"data file '{path}' does not exist or is not a file", field="data")
    try:
        text = read_limited(path, what="data", field="data").decode("utf-8")
    except UnicodeDecodeError:
        raise not_utf8(path, field="data") from None
    if text.lstrip().startswith("["):
        scan_json(text, path.name, DOCUMENT_JSON)  # depth, repeated keys, NaN: refused before decoding
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path.name}: not valid JSON: {exc.msg} at line {exc.lineno}", field="data") from None
    else:
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            scan_json(line, f"{path.name} line {number}", DOCUMENT_JSON)
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path.name} line {number}: not valid JSON: {exc.msg}", field="data") from None
    if not all(isinstance(row, dict) for row in rows):
        raise InputError(f"{path.name}: every row must be a JSON object", field="data")
    return rows


def detect_format(row: dict[str, Any]) -> DataFormat:
    """Which benchmark a row belongs to, from its keys."""
    if "reasoning_chain" in row:
        return "chains"
    if "premises" in row and "conclusion" in row:
        return "folio"
    if "problem" in row and "steps" in row:
        return "processbench"
    if "canonical_solution" in row and "entry_point" in row:
        return "humaneval"
    if "code" in row and "test_list" in row:
        return "mbpp"
    raise InputError(f"unrecognised data row (keys: {', '.join(sorted(row))}); expected {_EXPECTED}", field="data")


def _files(data: Path) -> list[Path]:
    if data.is_dir():
        files = sorted([*data.glob("*.jsonl"), *data.glob("*.json")])
        if not files:
            raise InputError(f"folder '{data}' holds no .jsonl or .json file", field="data")
        return files
    return [data]


def load_items(data: Path, *, level: ProofLevel | None = None, limit: int | None = None) -> tuple[DataFormat, list[BenchItem]]:
    """The items of a data file (or of every JSONL file in a folder: one subset per file), round-robin for `limit`."""
    groups: list[list[BenchItem]] = []
    formats: set[DataFormat] = set()
    for path in _files(data):
        rows = read_rows(path)
        subset = path.name.split(".")[0]
        items = []
        for index, row in enumerate(rows):
            fmt = detect_format(row)
            formats.add(fmt)
            items.append(_item(fmt, row, index, subset, level))
        groups.append(items)
    if len(formats) > 1:
        raise InputError(f"the data mixes formats ({', '.join(sorted(formats))}); run one benchmark at a time",
                         field="data")
    if not formats:
        raise InputError(f"no rows in '{data}'", field="data")
    merged = [g[i] for i in range(max(map(len, groups))) for g in groups if i < len(g)]
    return formats.pop(), merged[:limit] if limit else merged


def _item(fmt: DataFormat, row: dict[str, Any], index: int, subset: str, level: ProofLevel | None) -> BenchItem:
    try:
        if fmt == "folio":
            return _folio(row, index, subset, level)
        if fmt == "processbench":
            return _processbench(row, index, subset, level)
        if fmt == "humaneval":
            return _humaneval(row, subset, level)
        if fmt == "mbpp":
            return _mbpp(row, subset, level)
        request = VerifyRequest.model_validate(row if level is None else {**row, "proof_level": level})
        return BenchItem(id=str(row.get("task_id") or index), subset=subset, request=request)
    except (KeyError, TypeError, ValidationError) as exc:
        raise InputError(f"{subset} row {index} ({fmt}): {type(exc).__name__}: {exc}"[:400], field="data") from None


def _folio(row: dict[str, Any], index: int, subset: str, level: ProofLevel | None) -> BenchItem:
    premises = row["premises"]
    theory = premises if isinstance(premises, str) else " ".join(str(p).strip() for p in premises)
    request = VerifyRequest(original_query=theory, domain=Domain.LOGIC, proof_level=level or ProofLevel.STANDARD,
                            reasoning_chain=[{"step_id": 1, "content": str(row["conclusion"]).strip()}])  # type: ignore[list-item]
    return BenchItem(id=str(row.get("example_id", row.get("id", index))), subset=subset, request=request,
                     gold=str(row["label"]))


def _processbench(row: dict[str, Any], index: int, subset: str, level: ProofLevel | None) -> BenchItem:
    steps = [{"step_id": i + 1, "content": text if str(text).strip() else "(empty step)"}
             for i, text in enumerate(row["steps"])]
    request = VerifyRequest(original_query=str(row.get("problem", "")), domain=Domain.MATHEMATICS,
                            proof_level=level or ProofLevel.QUICK, reasoning_chain=steps)  # type: ignore[arg-type]
    return BenchItem(id=str(row.get("id", index)), subset=subset, request=request, gold=int(row["label"]))


def _code_item(task_id: str, query: str, code: str, tests: str, subset: str, level: ProofLevel | None) -> BenchItem:
    content = (f"The implementation:\n```python\n{code.rstrip()}\n```\n\n"
               f"It passes these tests:\n```python\n{tests.rstrip()}\n```")
    request = VerifyRequest(original_query=query, domain=Domain.CODE, proof_level=level or ProofLevel.QUICK,
                            reasoning_chain=[{"step_id": 1, "content": content}])  # type: ignore[list-item]
    return BenchItem(id=task_id, subset=subset, request=request, gold=True)


def _humaneval(row: dict[str, Any], subset: str, level: ProofLevel | None) -> BenchItem:
    tests = f"{row['test'].strip()}\n\n\ndef test_check():\n    check({row['entry_point']})"
    return _code_item(str(row["task_id"]), row["prompt"], row["prompt"] + row["canonical_solution"], tests, subset, level)


def _mbpp(row: dict[str, Any], subset: str, level: ProofLevel | None) -> BenchItem:
    imports = "".join(f"{line}\n" for line in row.get("test_imports") or [])
    tests = imports + "\n".join(f"\ndef test_case_{k}():\n{textwrap.indent(str(line).strip(), '    ')}\n"
                                for k, line in enumerate(row["test_list"], start=1))
    query = str(row.get("prompt") or row.get("text") or "")
    return _code_item(f"MBPP/{row['task_id']}", query, row["code"], tests, subset, level)
