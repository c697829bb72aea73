"""Batches: commit predictions to one Poseidon Merkle root, then reveal openings from the private file.

The private batch file (BATCH.json) keeps every forecast with its salt: it is what the forecaster reveals
from, and must stay secret until the cutoffs pass (anyone holding it can open the forecasts early). The
public part is the root, the leaf count and the scope (the question-set digest) sent to the registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reasonforge.boundary.files import DOCUMENT_JSON, json_document, read_limited
from reasonforge.boundary.jsontext import check_json
from reasonforge.certificate.canonical import sha256_hex
from reasonforge.errors import InputError, not_utf8
from reasonforge.forecast.commit.tree import (
    ForecastFields,
    build_levels,
    field_hex,
    fresh_salt,
    leaf_hash,
    path,
    to_ppm,
)
from reasonforge.forecast.dataset import ForecastItem
from reasonforge.forecast.predictions import PredictionRow, multiclass_refusal, read_predictions_file

BATCH_VERSION = 1
HEX32 = r"^0x[0-9a-f]{64}$"


class PublicCommitment(BaseModel):
    """What goes on chain: commit(root, count, scope)."""

    root: str = Field(pattern=HEX32)
    count: int = Field(ge=1, lt=1 << 32)
    scope: str = Field(pattern=HEX32, description="question-set digest (ids and cutoffs)")


class Registration(BaseModel):
    """Where a batch root was registered (informational: scoring re-reads the registry, never this)."""

    chain_id: int
    registry: str
    tx_hash: str
    block_number: int
    timestamp: int
    gas_used: int


class Batch(BaseModel):
    """The private batch file: the commitment and every forecast's fields (salts included)."""

    model_config = ConfigDict(extra="forbid")

    version: int = BATCH_VERSION
    commitment: PublicCommitment
    forecasts: list[ForecastFields] = Field(min_length=1)
    registration: Registration | None = None


class Opening(BaseModel):
    """One revealed forecast: its fields, its leaf index and Merkle path, and the root it opens."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    root: str = Field(pattern=HEX32)
    index: int = Field(ge=0)
    path: list[list[str]] = Field(description="per level bottom-up, the 4 children (0x hex) of the parent")
    forecast: ForecastFields


COMMAND = "forecast commit"
"""How refusals name the reader (commit takes binary forecasts only)."""


def question_set_digest(items: Sequence[ForecastItem]) -> str:
    """sha256 (0x hex) of the canonical JSON list of [id, cutoff] sorted by id: what a batch is a forecast of."""
    rows = sorted([item.id, item.cutoff.isoformat().replace("+00:00", "Z")] for item in items)
    return "0x" + sha256_hex(rows)


def resolution_digest(items: Sequence[ForecastItem]) -> str:
    """sha256 (0x hex) of the sorted [id, outcome, market price as repr] rows a score was computed against."""
    rows = sorted([item.id, item.outcome, repr(float(item.market_price))] for item in items)
    return "0x" + sha256_hex(rows)


def read_prediction_rows(path_: Path) -> list[PredictionRow]:
    """A predictions file's rows, read as every reader does (`forecast.predictions`); multi-class rows refused."""
    return read_predictions_file(path_, binary=COMMAND).rows


def _fields(row: PredictionRow, where: str) -> ForecastFields:
    if row.multiclass:
        raise multiclass_refusal(where, COMMAND)
    probability = row.value()
    if probability is None:
        # scoring counts an unparsable reply as a miss; a commitment has no such slot, so it is refused
        raise InputError(f"{where}: the reply for id '{row.id}' has no parsable probability; a commitment needs "
                         "one (end the reply with 'PROBABILITY: 0.xx' or give 'probability')", field="predictions")
    # the whole reply (PROBABILITY line included) is what gets committed when no reasoning is given
    reasoning = row.reasoning if row.reasoning is not None else (row.reply or "")
    return ForecastFields(item_id=row.id, probability_ppm=to_ppm(probability), reasoning=reasoning, salt=fresh_salt())


def commit_rows(rows: Sequence[PredictionRow], items: Sequence[ForecastItem], *, source: str = "predictions") -> Batch:
    """A batch over the rows: fresh salts, one leaf each, one root; every id must be in the question set, once."""
    known = {item.id for item in items}
    seen: set[str] = set()
    forecasts = []
    for n, row in enumerate(rows, start=1):
        where = f"{source}: row {n}"
        if row.id not in known:
            raise InputError(f"{where}: id '{row.id}' is not in the question set; commit only forecasts of its items "
                             "(check --data)", field="predictions")
        if row.id in seen:
            # two committed forecasts for one id would both be refused at scoring: stop it here instead
            raise InputError(f"{where}: id '{row.id}' appears twice; commit one forecast per item",
                             field="predictions")
        seen.add(row.id)
        forecasts.append(_fields(row, where))
    levels = build_levels([leaf_hash(f) for f in forecasts])
    commitment = PublicCommitment(root=field_hex(levels[-1][0]), count=len(forecasts),
                                  scope=question_set_digest(items))
    return Batch(commitment=commitment, forecasts=forecasts)


def reveal(batch: Batch) -> list[Opening]:
    """Every forecast's opening (fields, index, path) against the batch root; refuses a batch that does not match."""
    levels = build_levels([leaf_hash(f) for f in batch.forecasts])
    if field_hex(levels[-1][0]) != batch.commitment.root or len(batch.forecasts) != batch.commitment.count:
        raise InputError("the batch's forecasts do not hash to its root (the file was edited after commit); "
                         "reveal from the file `forecast commit` wrote", field="batch")
    return [Opening(root=batch.commitment.root, index=i, forecast=f,
                    path=[[field_hex(x) for x in group] for group in path(levels, i)])
            for i, f in enumerate(batch.forecasts)]


def before_cutoff(batch: Batch, items: Sequence[ForecastItem], now: datetime) -> list[ForecastItem]:
    """The batch's items whose cutoff is still ahead of `now`, earliest first: what a reveal now would expose.

    `items` must be the question set the batch was committed against (its scope): only there are the
    cutoffs the commitment refers to. Anything else is an InputError.
    """
    if question_set_digest(items) != batch.commitment.scope:
        raise InputError("the batch commits forecasts of another question set than the one given, so its cutoffs "
                         "are unknown; pass the --data file the batch was committed with", field="data")
    ids = {f.item_id for f in batch.forecasts}
    return sorted((item for item in items if item.id in ids and item.cutoff > now), key=lambda item: item.cutoff)


def read_batch(path_: Path) -> Batch:
    """A batch file; InputError when missing or malformed."""
    if not path_.exists():
        raise InputError(f"batch file '{path_}' does not exist; write one with `reasonforge forecast commit`",
                         field="batch")
    try:
        return Batch.model_validate_json(json_document(path_, what="batch", field="batch"))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise InputError(f"{path_}: not a batch file ({where}: {first['msg']})", field="batch") from None


def read_openings(path_: Path) -> list[Opening]:
    """Reveal JSONL rows; a malformed row is an InputError naming file:line."""
    if not path_.is_file():
        raise InputError(f"reveal file '{path_}' does not exist; write one with `reasonforge forecast reveal`",
                         field="reveals")
    out = []
    try:
        lines = read_limited(path_, what="reveal", field="reveals").decode("utf-8").split("\n")
    except UnicodeDecodeError:
        raise not_utf8(path_, field="reveals") from None
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            # bounded, and no key twice: pydantic's decoder would keep the last one
            out.append(Opening.model_validate_json(check_json(line, what=f"{path_}:{line_no}", limits=DOCUMENT_JSON)))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "row"
            raise InputError(f"{path_}:{line_no}: not a reveal row ({where}: {first['msg']})",
                             field="reveals") from None
    if not out:
        raise InputError(f"reveal file '{path_}' holds no rows", field="reveals")
    return out

