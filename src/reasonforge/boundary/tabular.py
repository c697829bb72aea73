"""Tables read from CSV: a column named twice is refused, as a JSON key given twice is.

`csv.DictReader` keeps the last of two columns with one name, silently: the reader must say which counts, and it
cannot, so the header is refused with the file's line and the repeated name.
"""

from __future__ import annotations

from collections.abc import Sequence

from reasonforge.errors import InputError

__all__ = ["distinct_columns"]


def distinct_columns(header: Sequence[str], where: str) -> None:
    """Refuse a header that names a column twice (InputError naming `where` and the column)."""
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(f"{where}: the column {name!r} appears twice; a reader cannot tell which one counts, so "
                             "name each column once", field="file")
        seen.add(name)
