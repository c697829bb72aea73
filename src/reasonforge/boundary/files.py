"""Files a command reads on a user's say-so, bounded in size before they are decoded.

`read_limited` reads at most `max_bytes` + 1 bytes (never more: a path may name a device or an endless pipe) and
refuses a larger file; `json_document` then holds its text to every check of `jsontext.load_json` (depth, repeated
keys, NaN, oversized numbers, lone surrogates) and returns it for the reader's own schema (pydantic's
`model_validate_json` keeps the last of repeated keys, so the check runs first); `json_model` does both and validates
the text against a model, naming the first field at fault.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from reasonforge.boundary.jsontext import JsonLimits, check_json, field_path
from reasonforge.errors import InputError

__all__ = ["DOCUMENT_JSON", "MAX_DOCUMENT_BYTES", "json_document", "json_model", "read_limited"]

Model = TypeVar("Model", bound=BaseModel)

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
"""Default size limit of one JSON document a command reads (verdicts, certificates, batches, ledgers)."""

DOCUMENT_JSON = JsonLimits(max_depth=64, max_integer_digits=100, max_number_chars=100,
                           integer_hint="no file reasonforge writes holds an integer that long (field elements are "
                                        "78 digits)",
                           depth_hint="no file reasonforge writes nests that deep")
"""A document's JSON: deeper than any file reasonforge writes, integers as long as a BN254 field element."""


def read_limited(path: Path, *, what: str, field: str, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of the file at `path`, at most `max_bytes`; an InputError naming the file when it is missing,
    unreadable or larger."""
    if path.is_dir():
        raise InputError(f"cannot read the {what} file '{path}' (it is a folder); give a file", field=field)
    if not path.exists():
        raise InputError(f"{what} file '{path}' does not exist; check the path", field=field)
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read the {what} file '{path}' ({exc.strerror or exc})", field=field) from None
    if len(data) > max_bytes:
        raise InputError(f"the {what} file '{path}' is over the limit of {max_bytes} bytes", field=field)
    return data


def json_document(path: Path, *, what: str, field: str, max_bytes: int = MAX_DOCUMENT_BYTES,
                  limits: JsonLimits = DOCUMENT_JSON) -> str:
    """The text of a JSON file that passed the size limit and every check of `load_json`, errors naming the file
    (and line, column and field)."""
    data = read_limited(path, what=what, field=field, max_bytes=max_bytes)
    return check_json(data, what=f"{path}: the {what} file", limits=limits)


def json_model(path: Path, model: type[Model], *, what: str, field: str, max_bytes: int = MAX_DOCUMENT_BYTES,
               limits: JsonLimits = DOCUMENT_JSON) -> Model:
    """The `model` saved as JSON at `path`, after `json_document`'s checks; an InputError naming the file and the
    first field that does not fit the model."""
    text = json_document(path, what=what, field=field, max_bytes=max_bytes, limits=limits)
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = field_path(first["loc"]) or "top level"
        raise InputError(f"{path}: not a {what} file (at {where}: {first['msg']})", field=field) from None
