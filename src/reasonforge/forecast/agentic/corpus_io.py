"""Loading articles for the dated corpus: JSONL / JSON-array / CSV files, two row adapters.

Adapters (`load_articles(path, adapter)`):
- `plain`: rows `{id, title, text, published_at, source?, url?}`. `published_at` is an ISO date (read as
  23:59:59 UTC that day) or datetime (no offset → UTC). A missing or empty title is the text's first
  sentence. Extra fields are ignored.
- `cep`: the Wikipedia Current Events Portal sample (`data/wikipedia_cep_2015_09/events.jsonl`):
  `id` → id, `date` → published_at (23:59:59 UTC that day), `description` → text (whitespace collapsed,
  trailing stray commas dropped), title = the first sentence (≤ 120 characters), `source[0].sourceName`
  → source, `source[0].url` → url. Category, story and entities are not carried.
- `auto`: `cep` when the first row has `date` and `description` but no `text`, else `plain`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from reasonforge.boundary.files import DOCUMENT_JSON, read_limited
from reasonforge.boundary.jsontext import scan_json
from reasonforge.boundary.tabular import distinct_columns
from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus_types import Document

Adapter = Literal["auto", "plain", "cep"]
ADAPTERS: tuple[str, ...] = ("auto", "plain", "cep")
TITLE_MAX_CHARS = 120

# A sentence ends at . ! ? followed by space and a capital/digit/quote, unless the word before the stop is
# an abbreviation or an initial ("U.S.", "Mr.", "St."), which would cut titles mid-name.
_SENTENCE_END = re.compile(r"[.!?](?=\s+[\"'“(A-Z0-9])")
_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|No|Gen|Gov|Sen|Rep|Lt|Col|Capt|Prof|vs|"
                           r"Inc|Ltd|Co|Corp|approx|est|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec))$")

MAX_ARTICLE_FILE_BYTES = 1024 * 1024 * 1024  # one ingest file; a larger corpus comes in several


def clean_text(text: str) -> str:
    """Whitespace collapsed; trailing stray commas and spaces (an artefact of the CEP export) dropped."""
    return re.sub(r"[\s,]+$", "", " ".join(text.split()))


def first_sentence(text: str, limit: int = TITLE_MAX_CHARS) -> str:
    """The first sentence of `text`, cut at a word boundary with '…' when longer than `limit` characters."""
    text = " ".join(text.split())
    end = len(text)
    for match in _SENTENCE_END.finditer(text):
        if not _ABBREVIATION.search(text[: match.start()]):
            end = match.start() + 1
            break
    sentence = text[:end]
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"


def _text_field(row: dict[str, Any], name: str, *, required: bool) -> str:
    value = row.get(name)
    if value is None:
        if required:
            raise ValueError(f"missing field '{name}'")
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise TypeError(f"field '{name}' must be text, got {type(value).__name__}")
    return str(value)


def _plain(row: dict[str, Any]) -> Document:
    if "text" not in row and {"date", "description"} <= row.keys():
        raise ValueError("missing field 'text' (this looks like the news sample: use --adapter cep)")
    text = clean_text(_text_field(row, "text", required=True))
    title = " ".join(_text_field(row, "title", required=False).split()) or first_sentence(text)
    # model_validate: published_at is still text here, which Document's own validator parses.
    return Document.model_validate({
        "id": _text_field(row, "id", required=True), "title": title, "text": text,
        "source": _text_field(row, "source", required=False), "url": _text_field(row, "url", required=False),
        "published_at": _text_field(row, "published_at", required=True),
    })


def _cep(row: dict[str, Any]) -> Document:
    text = clean_text(_text_field(row, "description", required=True))
    sources = row.get("source") or []
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        raise ValueError("field 'source' must be a list of objects")
    first = sources[0] if sources else {}
    return Document.model_validate({
        "id": _text_field(row, "id", required=True), "title": first_sentence(text), "text": text,
        "source": str(first.get("sourceName") or ""), "url": str(first.get("url") or ""),
        "published_at": _text_field(row, "date", required=True),
    })


def _looks_like_cep(row: dict[str, Any]) -> bool:
    return "text" not in row and "date" in row and "description" in row


def _rows(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    """(location, row) pairs: JSON array elements, JSONL lines or CSV records."""
    stripped = text.lstrip()
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        try:
            distinct_columns(reader.fieldnames or [], f"{path.name} line 1")  # a column twice: which one counts?
            for record in reader:
                yield f"line {reader.line_num}", {k: v for k, v in record.items() if k is not None}
        except csv.Error as exc:  # a field over the csv module's size limit, a NUL byte
            raise InputError(f"{path.name} line {reader.line_num}: not a CSV record ({exc})", field="file") from None
    elif stripped.startswith("["):
        scan_json(text, path.name, DOCUMENT_JSON)  # depth, repeated keys, NaN: refused before decoding
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path.name}: not valid JSON ({exc.msg} at line {exc.lineno}); expected a JSON "
                             "array or one JSON object per line", field="file") from None
        for number, row in enumerate(rows, start=1):
            yield f"item {number}", row
    else:
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                scan_json(line, "the row", DOCUMENT_JSON)
                yield f"line {number}", json.loads(line)
            except InputError as exc:
                yield f"line {number}", ValueError(exc.message)
            except json.JSONDecodeError as exc:
                yield f"line {number}", ValueError(f"not valid JSON ({exc.msg})")


def _read(path: Path) -> str:
    if not path.is_file():
        raise InputError(f"article file '{path}' does not exist or is not a file", field="file")
    try:
        return read_limited(path, what="article", field="file", max_bytes=MAX_ARTICLE_FILE_BYTES).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{path.name} is not UTF-8 text; give a JSONL, JSON or CSV file", field="file") from None
    except OSError as exc:
        raise InputError(f"cannot read '{path}': {exc.strerror}", field="file") from None


def load_articles(path: Path, adapter: Adapter = "auto", *, errors: list[str] | None = None) -> Iterator[Document]:
    """Documents from a JSONL/JSON/CSV file. Bad rows raise InputError, or with `errors` are listed there."""
    if adapter not in ADAPTERS:
        raise InputError(f"unknown adapter {adapter!r}; choose one of {', '.join(ADAPTERS)}", field="adapter")
    path = Path(path)
    text = _read(path)  # read eagerly: a missing file fails at the call, not at the first next()
    known = path.suffix.lower() in {".csv", ".json", ".jsonl", ".ndjson"}
    if not known and text.lstrip()[:1] not in ("[", "{"):
        raise InputError(f"{path.name}: unknown format; give JSONL (.jsonl), a JSON array (.json) or CSV (.csv)",
                         field="file")
    return _documents(path, text, adapter, errors)


def _documents(path: Path, text: str, adapter: Adapter, errors: list[str] | None) -> Iterator[Document]:
    chosen: Adapter | None = None if adapter == "auto" else adapter
    for where, row in _rows(path, text):
        try:
            if isinstance(row, ValueError):
                raise row
            if not isinstance(row, dict):
                raise TypeError(f"expected an object, got {type(row).__name__}")
            if chosen is None:
                chosen = "cep" if _looks_like_cep(row) else "plain"
            yield (_cep if chosen == "cep" else _plain)(row)
        except (TypeError, ValueError) as exc:  # ValidationError is a ValueError
            message = f"{path.name} {where}: {_reason(exc)}"
            if errors is None:
                raise InputError(message, field="file") from None
            errors.append(message)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else first["msg"]
    return str(exc)
