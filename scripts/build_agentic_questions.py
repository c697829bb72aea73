"""Build `data/agentic/questions.jsonl` (and its SOURCE.md): dated questions from the news sample.

Questions are made mechanically by `reasonforge.forecast.agentic.questions` (see its docstring for the five
kinds and their resolution rules) from the Wikipedia Current Events Portal sample, resolved from the
items dated after each question's last forecast date, and checked before anything is written: no word of
a public view may first appear in the news after the question's earliest forecast date, and no question
may show a sibling's resolution data. The subset written is chosen without looking at outcomes
(a per-kind quota, round-robin over resolution days, then by id). Deterministic.

    python scripts/build_agentic_questions.py              # writes data/agentic/questions.jsonl + SOURCE.md
    python scripts/build_agentic_questions.py --all --out /tmp/all.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import Counter
from pathlib import Path

from reasonforge.forecast.agentic.questions import (
    DEFAULT_QUOTA,
    KINDS,
    build_questions,
    leak_problems,
    load_news_items,
    select_questions,
    sibling_problems,
)
from reasonforge.forecast.agentic.records import save_jsonl

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ROOT / "data" / "wikipedia_cep_2015_09" / "events.jsonl"
OUT = ROOT / "data" / "agentic" / "questions.jsonl"
QUOTA = DEFAULT_QUOTA


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return path.name


def source_md(questions: list, events: Path, out: Path, pool: int) -> str:
    """The SOURCE.md text: provenance, rules, counts, outcome balance."""
    kinds = Counter(next(t for t in q.tags if t in KINDS) for q in questions)
    days = sorted({q.resolution_date.date().isoformat() for q in questions})
    first = min(q.forecast_dates[0] for q in questions).date().isoformat()
    none_share = Counter()
    for q in questions:
        kind = next(t for t in q.tags if t in KINDS)
        none_share[kind] += q.outcomes[q.outcome_index] in ("None of these", "No")
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    rows = "\n".join(f"| `{k}` | {kinds[k]} | {none_share[k]} |" for k in KINDS if kinds[k])
    return f"""# agentic — dated forecasting questions from the news sample

`questions.jsonl`: {len(questions)} resolved multi-date questions (`reasonforge.forecast.agentic.records.Question`
rows) built by `scripts/build_agentic_questions.py` from
`{_relative(events)}` (Wikipedia Current Events Portal, September 2015;
CC BY-SA, Wikipedia contributors — see that directory's SOURCE.md and LICENSE.txt). The question texts
quote portal story, category and entity names and item summaries, so the same licence applies.
sha256 {digest}.

- Schedule: each question is asked at three forecast dates, 7, 4 and 2 days before its resolution date
  (all at 23:59:59 UTC, the corpus's day-level publication time), so horizons fall in the analysis buckets
  7–14, 3–7 and < 3 days. Resolution dates {", ".join(days)}; earliest forecast date {first}.
- Resolution: from the portal items dated in the window after the last forecast date through the
  resolution date (2 days), computed mechanically (`questions.resolve`); no forecast date can see them.
- Kinds (see the module docstring for the exact rules): `story-entity` (which candidate the story's first
  item in the window links), `entity-most` (which candidate is linked by the most items, portal-wide or in
  one category), `story-continues` (Yes/No), `category-count` (count bins around the rate so far),
  `entity-mention` (Yes/No). Candidates are entities linked by ≥ 2 items up to the first forecast date
  (for `entity-most`, within the 7 days before it).
- Leakage guards, checked by the script before writing and by `tests/forecast/agentic/test_agentic_questions.py`:
  no word of a question's public view (text, outcomes, criteria, background, tags) first appears in the news
  after its earliest forecast date; questions on the same story, category or entity never show each other's
  resolution items or an entity only those items introduce (siblings are kept only when each one's first
  forecast date precedes the other's window).
- Selection: {pool} questions are buildable; this file keeps a per-kind quota
  ({", ".join(f"{k} {v}" for k, v in QUOTA.items())}),
  round-robin over resolution days, then by id — chosen without looking at outcomes.
- There are no market prices (`market_prices` is empty), so the market agent is uniform here.

| kind | questions | resolved "None of these" / "No" |
|---|---:|---:|
{rows}

Rebuild: `python scripts/build_agentic_questions.py` (deterministic; `--all` writes every buildable question).
"""


def main(argv: list[str] | None = None) -> int:
    """Build, check, select and write the questions; exit 1 when a leakage check fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=Path, default=EVENTS, help="the news sample's events.jsonl")
    parser.add_argument("--out", type=Path, default=OUT, help="questions JSONL to write (SOURCE.md beside it)")
    parser.add_argument("--all", action="store_true", help="write every buildable question, not the quota subset")
    args = parser.parse_args(argv)
    items = load_news_items(args.events)
    pool = build_questions(items)
    chosen = pool if args.all else select_questions(pool, QUOTA)
    problems = [p for q in chosen for p in leak_problems(q, items)] + sibling_problems(chosen, items)
    if problems:
        print("leakage check failed:\n  " + "\n  ".join(problems[:20]), file=sys.stderr)
        return 1
    count = save_jsonl(args.out, chosen)
    (args.out.parent / "SOURCE.md").write_text(source_md(chosen, args.events, args.out, len(pool)), encoding="utf-8")
    print(f"wrote {count} questions ({len(pool)} buildable) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
