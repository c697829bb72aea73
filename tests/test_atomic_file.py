"""Crash-safe file replacement."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonforge.atomic_file import write_atomic


def test_replaces_contents_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(b"old")
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_failure_raises_and_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(b"old")
    with pytest.raises(OSError):
        write_atomic(tmp_path / "missing-folder" / "state.json", b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]
