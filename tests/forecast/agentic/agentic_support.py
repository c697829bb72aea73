"""Shared helpers for the agentic forecasting tests: the repo's news sample as a real tantivy corpus."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from reasonforge.forecast.agentic.corpus import DatedCorpus, load_articles

REPO = Path(__file__).resolve().parents[3]
NEWS_DIR = REPO / "data" / "wikipedia_cep_2015_09"
NEWS_SAMPLE = NEWS_DIR / "events.jsonl"
NEWS_ITEMS = 285


def end_of_day(day: str | date) -> datetime:
    """When an item dated `day` counts as published: 23:59:59 UTC that day."""
    return datetime.combine(date.fromisoformat(day) if isinstance(day, str) else day, time(23, 59, 59, tzinfo=UTC))


def news_rows() -> list[dict[str, Any]]:
    """The news sample's raw rows, read straight from the file (independent of the corpus code)."""
    return [json.loads(line) for line in NEWS_SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def cep_corpus(tmp_dir: Path) -> DatedCorpus:
    """A corpus in `tmp_dir/cep-index` holding all 285 items of the news sample (ingested once per directory)."""
    corpus = DatedCorpus.open(Path(tmp_dir) / "cep-index")
    report = corpus.ingest(load_articles(NEWS_SAMPLE, "cep"))
    if report.errors or report.added + report.duplicates != NEWS_ITEMS:
        raise AssertionError(f"news sample did not ingest cleanly: {report}")
    return corpus
