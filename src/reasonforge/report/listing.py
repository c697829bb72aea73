"""Many verdicts on one page: `reasonforge view` reads a results file (a `verify-batch` output, or verdict JSON
objects one per line or one per file in a folder) and writes a static page listing every verdict, with counts and
filters (overall, assurance, domain, answer against the reference), each row linking to its own verdict page
where the request was kept beside it.

Like the verdict page it runs no script (the same CSP): the filters are radio buttons that hide, by CSS alone,
the rows whose class does not match, so the page works from a file, a mail attachment or a locked-down server.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ValidationError

from reasonforge.errors import InputError
from reasonforge.report.html import page_template, verdict_page
from reasonforge.report.view import build_view
from reasonforge.types import StepStatus, VerificationVerdict, VerifyRequest

__all__ = ["MAX_RESULT_BYTES", "Listed", "listing_page", "read_results", "write_listing"]

MAX_RESULT_BYTES = 64 * 1024 * 1024  # one results file or one verdict file; larger is refused, not read
_ANSWER = {True: "right", False: "wrong", None: "none"}


class Listed(BaseModel):
    """One verdict as the listing shows it, with the request it answers when that was kept."""

    label: str
    line: int | None = None  # a batch result's input line: the listing follows the input, not completion order
    verdict: VerificationVerdict | None = None
    request: VerifyRequest | None = None
    error: str = ""
    page: str = ""  # the verdict page's path, relative to the listing

    @property
    def answer(self) -> str:
        """right, wrong or none: the final answer against the reference, where one was given."""
        return _ANSWER[self.verdict.answer_matches_reference] if self.verdict is not None else "none"

    @property
    def why(self) -> str:
        """The first failed step's message, else the first unproven one's, else the premises it assumed (why a
        chain whose every step is verified is PARTIAL), else the error."""
        if self.verdict is None:
            return self.error
        for wanted in (StepStatus.FAILED, StepStatus.UNSUPPORTED, StepStatus.ERROR):
            step = next((v for v in self.verdict.step_verdicts if v.status is wanted), None)
            if step is not None:
                return f"step {step.step_id}: {step.error_message or wanted.value}"
        if self.verdict.assumptions:
            return "proven only from premises nobody gave: " + "; ".join(
                f"{a.premise} (step {a.step_id})" for a in self.verdict.assumptions)
        return ""


def _read(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_RESULT_BYTES:
            raise InputError(f"{path} is larger than {MAX_RESULT_BYTES // 2**20} MiB; split it")
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _listed(document: object, label: str) -> Listed:
    if not isinstance(document, dict):
        raise InputError(f"{label}: not a JSON object (a verify-batch result or a verdict)")
    try:
        if "step_verdicts" in document:
            return Listed(label=label, verdict=VerificationVerdict.model_validate(document))
        if "row_sha256" in document or "verdict" in document:
            verdict = VerificationVerdict.model_validate(document["verdict"]) if document.get("verdict") else None
            request = VerifyRequest.model_validate(document["request"]) if document.get("request") else None
            line = document.get("line") if isinstance(document.get("line"), int) else None
            name = document.get("id") or (f"line {line}" if line is not None else label)
            return Listed(label=str(name), line=line, verdict=verdict, request=request,
                          error=str(document.get("error") or ""))
    except ValidationError as exc:
        raise InputError(f"{label}: not a verdict ({str(exc).splitlines()[0][:200]})") from None
    raise InputError(f"{label}: neither a verify-batch result nor a verdict (no step_verdicts)")


def read_results(source: Path) -> list[Listed]:
    """Every verdict of `source`: a JSONL file, or a folder of `.json`/`.jsonl` files (InputError naming the
    file and line of anything else)."""
    files = sorted(p for p in source.iterdir() if p.suffix in (".json", ".jsonl")) if source.is_dir() else [source]
    if not files:
        raise InputError(f"{source} holds no .json or .jsonl files")
    listed: list[Listed] = []
    for path in files:
        text = _read(path).decode("utf-8", errors="replace")
        if path.suffix == ".json" and text.lstrip().startswith("{") and not text.strip().count("\n{"):
            lines = [(path.name, text)]
        else:
            lines = [(f"{path.name}:{n}", line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
        rows: list[Listed] = []
        for label, line in lines:
            try:
                document = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{label}: not JSON ({exc.msg})") from None
            rows.append(_listed(document, label))
        listed += sorted(rows, key=lambda item: item.line or 0)  # stable: a file without lines keeps its order
    return listed


def listing_page(listed: list[Listed], title: str) -> str:
    """The listing's HTML (module docstring)."""
    verdicts = [item.verdict for item in listed if item.verdict is not None]
    counts = {
        "overall": Counter(v.overall.value for v in verdicts),
        "assurance": Counter(v.assurance.value if v.assurance else "none" for v in verdicts),
        "domain": Counter(v.domain.value for v in verdicts),
        "answer": Counter(item.answer for item in listed if item.verdict is not None),
    }
    return page_template("verdicts.html.j2").render(title=title, listed=listed, counts=counts,
                                                                  errors=sum(1 for i in listed if i.verdict is None))


def write_listing(source: Path, out: Path) -> Path:
    """Write `out/index.html` listing `source`'s verdicts and `out/verdicts/N.html` for each kept with its request;
    returns the index's path."""
    listed = read_results(source)
    pages = out / "verdicts"
    pages.mkdir(parents=True, exist_ok=True)
    for number, item in enumerate(listed, start=1):
        if item.verdict is None or item.request is None:
            continue
        try:
            page = verdict_page(build_view(item.request, item.verdict))
        except InputError:
            continue  # a request and verdict that do not belong together get no page, never a wrong one
        (pages / f"{number}.html").write_text(page, encoding="utf-8")
        item.page = f"verdicts/{number}.html"
    index = out / "index.html"
    index.write_text(listing_page(listed, source.name), encoding="utf-8")
    return index
