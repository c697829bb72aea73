"""The one predictions format: JSON Lines written by `forecast eval`, `forecast episode run` and the API,
read by `forecast score`, `calibration`, `probe`, `commit` and `reasoning grade`.

One JSON object per line:

    {"id": "7664", "reply": "… PROBABILITY: 0.62", "model": "gpt-4o", "created_at": "2026-01-05T10:00:00Z"}
    {"id": "7664", "probability": 0.62, "reasoning": "Polls moved …", "model": "my-agent", "run": "runs/a"}
    {"id": "q3@2015-09-05T23:59:59+00:00", "probabilities": [0.2, 0.5, 0.3], "outcomes": ["A", "B", "C"]}

- `id` (required): the item's id in the data (`--data`), or the ledger's market id for `reasoning grade`;
- exactly one of `probability` (a JSON number in [0, 1]), `reply` (raw model text, read by the strict
  `PROBABILITY:` parser of `forecast.parse`; an unparsable reply scores as a miss, never as 0.5) or
  `probabilities` (a multi-class forecast: at least 2 JSON numbers in [0, 1] summing to 1 within 1e-6,
  over the question's outcomes in the question's order, optionally named by `outcomes`, the labels);
- optional `reasoning` (the explanation `reasoning grade` grades), `model` (who forecast; the forecaster's
  name in `reasoning grade`), `run` (which run produced the row) and `created_at` (ISO-8601 with offset).

No other field is accepted, so a typo (`probabilty`) is an error rather than a silently missing forecast, and no
field twice (`probability` given twice is refused, naming file:line). A row nested deeper than 8 levels is refused
before it is decoded, so no file can exhaust the decoder's recursion.
The old field `p` is still read as `probability`, with one deprecation note per file. The binary readers
(`score`, `calibration`, `probe`, `commit`) refuse a `probabilities` row with one line naming file:line;
`forecast episode analyse` scores multi-class runs.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, TextIO

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, field_validator, model_validator

from reasonforge.boundary.jsontext import JsonLimits, scan_json
from reasonforge.errors import InputError
from reasonforge.forecast.parse import parse_probability

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Largest predictions file read (512 MiB): far above any real run, small enough to refuse a runaway file."""
MAX_LINE_BYTES = 1024 * 1024
"""Largest single row (1 MiB): a reply plus its reasoning, each at most MAX_TEXT characters."""
MAX_ROWS = 2_000_000
MAX_TEXT = 200_000
MAX_OUTCOMES = 1000
MASS_TOLERANCE = 1e-6
"""`probabilities` must sum to 1 within this (writers normalise; a looser sum is a hand-edited or buggy row)."""
ROW_JSON = JsonLimits(max_depth=8, max_integer_digits=30, max_number_chars=64, depth_hint="a row needs two levels",
                      integer_hint="a row holds ids, probabilities and text")
"""A row's JSON: an object holding at most arrays of numbers and strings; a key given twice is refused (JSON
readers disagree on which one counts, and a forecast must not be committed with a value nobody saw)."""
LEGACY_P = "p"
EXAMPLE = '{"id": "...", "probability": 0.4} or {"id": "...", "reply": "... PROBABILITY: 0.4"}'
MULTICLASS_EXAMPLE = '{"id": "...", "probabilities": [0.2, 0.5, 0.3], "outcomes": ["A", "B", "C"]}'

StrictText = Annotated[str, Strict()]
StrictProbability = Annotated[float, Strict(), Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class PredictionRow(BaseModel):
    """One forecast: an item id, exactly one of probability / reply / probabilities, reasoning and provenance."""

    # strict: `true` is not a probability of 1, nor "0.4" a number; extra=forbid: a misspelt field is an error
    model_config = ConfigDict(extra="forbid")

    id: StrictText = Field(min_length=1, max_length=200)
    probability: Annotated[float, Strict()] | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    reply: StrictText | None = Field(default=None, max_length=MAX_TEXT)
    probabilities: list[StrictProbability] | None = Field(default=None, min_length=2, max_length=MAX_OUTCOMES)
    outcomes: list[Annotated[str, Strict(), Field(min_length=1, max_length=1000)]] | None = Field(
        default=None, min_length=2, max_length=MAX_OUTCOMES)
    reasoning: StrictText | None = Field(default=None, max_length=MAX_TEXT)
    model: StrictText | None = Field(default=None, min_length=1, max_length=200)
    run: StrictText | None = Field(default=None, min_length=1, max_length=500)
    created_at: datetime | None = None

    @field_validator("created_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("created_at needs a UTC offset (e.g. 2026-01-05T10:00:00Z)")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> PredictionRow:
        if sum(v is not None for v in (self.probability, self.reply, self.probabilities)) != 1:
            raise ValueError("give exactly one of 'probability' or 'reply' (binary) or 'probabilities' "
                             "(multi-class)")
        if self.probabilities is not None:
            total = math.fsum(self.probabilities)
            if abs(total - 1.0) > MASS_TOLERANCE:
                raise ValueError(f"probabilities sum to {total:.9g}, not 1 (tolerance {MASS_TOLERANCE:g})")
        if self.outcomes is not None:
            if self.probabilities is None:
                raise ValueError("'outcomes' labels a multi-class forecast; give 'probabilities' with it")
            if len(self.outcomes) != len(self.probabilities):
                raise ValueError(f"{len(self.probabilities)} probabilities for {len(self.outcomes)} outcomes")
            if len(set(self.outcomes)) != len(self.outcomes):
                raise ValueError("outcomes must be unique")
        return self

    @property
    def multiclass(self) -> bool:
        """Whether the row is a multi-class forecast (`probabilities`), which binary readers refuse."""
        return self.probabilities is not None

    def value(self) -> float | None:
        """The binary probability: `probability` or the strict parse of `reply` (None: unusable or multi-class)."""
        if self.probabilities is not None:
            return None
        value = self.probability if self.reply is None else parse_probability(self.reply)
        if value is None or not math.isfinite(value) or not 0.0 <= value <= 1.0:
            return None
        return value

    def explanation(self) -> str | None:
        """The text to grade: `reasoning`, else the reply without its final `PROBABILITY:` line."""
        if self.reasoning is not None:
            return self.reasoning
        if self.reply is None:
            return None
        lines = self.reply.rstrip().splitlines()
        while lines and (not lines[-1].strip() or lines[-1].strip().upper().startswith("PROBABILITY:")):
            lines.pop()
        return "\n".join(lines).strip() or None


class PredictionsFile(BaseModel):
    """The rows of one predictions file and the notes to show the user (deprecations), once each."""

    path: str
    rows: list[PredictionRow]
    notes: list[str] = Field(default_factory=list)


def now_utc() -> datetime:
    """The current instant in UTC, second precision (what writers put in `created_at`)."""
    return datetime.now(UTC).replace(microsecond=0)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    msg = str(error["msg"]).removeprefix("Value error, ")  # pydantic's prefix says nothing to a user
    return f"{where}: {msg}" if where else msg


def parse_row(data: object, where: str) -> tuple[PredictionRow, bool]:
    """One decoded JSON value as a row; True when it used the deprecated `p`. Errors start with `where`."""
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object like {EXAMPLE}", field="predictions")
    legacy = LEGACY_P in data
    if legacy:
        if "probability" in data:
            raise InputError(f"{where}: give 'probability' only ('p' is its deprecated old name)",
                             field="predictions")
        data = {("probability" if key == LEGACY_P else key): value for key, value in data.items()}
        if isinstance(data.get("reply"), str) and data["probability"] in (None, parse_probability(data["reply"])):
            data.pop("probability")  # an old `forecast eval` row: `p` was the parse of its reply
        elif data["probability"] is None:
            data.pop("probability")
    if "error" in data:
        if data["error"] is not None:
            raise InputError(f"{where}: a failed request (error: {str(data['error'])[:120]}), not a forecast; "
                             "rerun `forecast eval` to retry it or delete the line", field="predictions")
        data = {key: value for key, value in data.items() if key != "error"}  # old eval rows carried "error": null
    try:
        return PredictionRow.model_validate(data), legacy
    except ValidationError as exc:
        example = MULTICLASS_EXAMPLE if "probabilities" in data or "outcomes" in data else EXAMPLE
        raise InputError(f"{where}: {_first_error(exc)}; expected {example}", field="predictions") from None


def multiclass_refusal(where: str, command: str) -> InputError:
    """The one-line refusal of a multi-class row by a binary reader (`command`, e.g. `forecast score`)."""
    return InputError(f"{where}: a multi-class forecast ('probabilities'); `{command}` reads binary forecasts "
                      "('probability' or 'reply') — use `forecast episode analyse` for multi-class runs",
                      field="predictions")


def read_predictions_file(path: str | Path, *, allow_empty: bool = False,
                          binary: str | None = None) -> PredictionsFile:
    """Every row of a file; a bad row (or, with `binary` = the reading command, a multi-class one) → file:line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"predictions file '{path}' does not exist or is not a file", field="predictions")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise InputError(f"predictions file '{path}' is {size} bytes, over the {MAX_FILE_BYTES}-byte limit; "
                         "split it", field="predictions")
    rows: list[PredictionRow] = []
    seen: dict[tuple[str, str | None], int] = {}
    legacy = 0
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            where = f"{path}:{line_no}"
            if len(raw) > MAX_LINE_BYTES:
                raise InputError(f"{where}: row is {len(raw)} bytes, over the {MAX_LINE_BYTES}-byte limit",
                                 field="predictions")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start} of the line); "
                                 "save it as UTF-8", field="predictions") from None
            if not line.strip():
                continue
            if len(rows) >= MAX_ROWS:
                raise InputError(f"{where}: more than {MAX_ROWS} rows; split the file", field="predictions")
            try:
                scan_json(line, "the row", ROW_JSON)  # depth, repeated keys (`probability` twice), NaN: refused
                data = json.loads(line)
            except InputError as exc:
                raise InputError(f"{where}: {exc.message}", field="predictions") from None
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: not valid JSON ({exc.msg}); write one object per line, {EXAMPLE}",
                                 field="predictions") from None
            row, old = parse_row(data, where)
            if binary is not None and row.multiclass:
                raise multiclass_refusal(where, binary)
            legacy += old
            key = (row.id, row.model)
            if key in seen:
                who = f" by model '{row.model}'" if row.model else ""
                raise InputError(f"{where}: id '{row.id}'{who} already appears on line {seen[key]}; keep one row "
                                 "per item", field="predictions")
            seen[key] = line_no
            rows.append(row)
    if not rows and not allow_empty:
        # scoring nothing would report every item as missing and still exit 0
        raise InputError(f"predictions file '{path}' holds no rows; write one JSON object per line, {EXAMPLE}",
                         field="predictions")
    notes = [f"{path}: field 'p' is deprecated ({legacy} row(s)); rename it to 'probability'"] if legacy else []
    return PredictionsFile(path=str(path), rows=rows, notes=notes)


def read_predictions(path: str | Path) -> list[PredictionRow]:
    """The rows of a predictions file (notes dropped; the CLI prints them via `read_predictions_file`)."""
    return read_predictions_file(path).rows


def dump_row(row: PredictionRow) -> str:
    """One row as its JSONL line (unset optional fields left out)."""
    return row.model_dump_json(exclude_none=True) + "\n"


def append_prediction(handle: TextIO, row: PredictionRow) -> None:
    """Append one row and flush it, so an interrupted run keeps every forecast already made."""
    handle.write(dump_row(row))
    handle.flush()


def write_predictions(path: str | Path, rows: list[PredictionRow]) -> Path:
    """Write rows as a fresh predictions file (replacing it atomically)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(dump_row(row) for row in rows), encoding="utf-8")
    tmp.replace(path)
    return path
