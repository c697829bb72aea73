"""Dated forecasting questions built mechanically from the news sample (Wikipedia Current Events Portal items).

Each question is asked at three forecast dates (by default 7, 4 and 2 days before resolution, end of day
UTC) and resolves on the portal items dated in the window after the LAST forecast date up to the
resolution date, so no forecast date can see its resolution data. Five kinds:

- `story-entity` (multi-class): which candidate entity the story's first item in the window links
  (candidates: the story's most-linked entities so far, plus "None of these");
- `entity-most` (multi-class): which candidate is linked by the most items in the window, portal-wide or
  in one category (candidates: the most-linked entities of the last RECENT_DAYS days, plus "None of these";
  a tie goes to the candidate listed first);
- `story-continues` (Yes/No): whether the story gets at least one item in the window;
- `category-count` (multi-class): how many items of a category the window holds (bins around the
  category's rate so far);
- `entity-mention` (Yes/No): whether a frequently linked entity is linked by any item in the window.

Candidates are entities linked by at least `min_links` items so far (one-off names rarely recur).
What a question shows (text, outcomes, background, tags) is drawn only from items published by its
earliest forecast date; questions on the same story, category or entity (siblings) are kept only when
each one's first forecast date precedes the other's resolution window, so one question's public view
never carries another's answer. `leak_problems` and `sibling_problems` check exactly that from the raw
items, independently of how the questions were built.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import scan_json
from reasonforge.errors import InputError
from reasonforge.forecast.agentic.records import Question

END_OF_DAY = time(23, 59, 59, tzinfo=UTC)
NONE_OF_THESE = "None of these"
PORTAL = "the Wikipedia Current Events Portal"
MAX_CANDIDATE_CHARS = 40
KINDS = ("story-entity", "story-continues", "category-count", "entity-mention", "entity-most")
DEFAULT_QUOTA = {"story-entity": 14, "entity-most": 14, "story-continues": 8, "category-count": 8,
                 "entity-mention": 6}
"""Questions per kind in the repository's question file (the named-outcome kinds first: they test evidence use)."""
RECENT_DAYS = 7
"""`entity-most` candidates are the entities linked most in the last RECENT_DAYS days up to the first date."""


class NewsItem(BaseModel):
    """One portal item: day, id, summary, category, story thread and linked entities (in portal order)."""

    id: str
    day: date
    description: str
    category: str
    story_id: str | None = None
    story: str | None = None
    entities: list[str] = Field(default_factory=list)

    @property
    def published_at(self) -> datetime:
        """Day-level items count as published at the end of their day (never shown early)."""
        return end_of_day(self.day)

    @property
    def strings(self) -> list[str]:
        """Every piece of text this item puts into the world."""
        return [self.description, self.category, *(s for s in (self.story,) if s), *self.entities]


class BuildConfig(BaseModel):
    """How questions are scheduled: days before resolution for each forecast date, and resolution days."""

    offsets_days: list[int] = Field(default=[7, 4, 2], min_length=1)
    resolution_days: list[date] | None = Field(default=None, description="default: the sample's last day and "
                                                                          "the two days 2 and 4 days before it")
    max_candidates: int = Field(default=4, ge=2)
    min_story_items: int = Field(default=2, ge=1)
    min_links: int = Field(default=2, ge=1, description="a candidate entity is linked by at least this many items "
                                                        "so far (one-off names rarely recur)")
    entity_questions: int = Field(default=3, ge=0, description="entities asked about per resolution day")


def end_of_day(day: date) -> datetime:
    """`day` 23:59:59 UTC."""
    return datetime.combine(day, END_OF_DAY)


def load_news_items(path: Path) -> list[NewsItem]:
    """Portal items from the news sample's JSONL (fields date, id, description, category, belongsToStory, entity)."""
    items: list[NewsItem] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}; pass the news sample's events.jsonl",
                         field="path") from exc
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        scan_json(line, f"{path}:{lineno}", DOCUMENT_JSON)  # depth, repeated keys, NaN: refused before decoding
        try:
            row = json.loads(line)
            story = row.get("belongsToStory") or {}
            items.append(NewsItem(id=str(row["id"]), day=date.fromisoformat(row["date"]),
                                  description=" ".join(str(row["description"]).split()).rstrip(" ,"),
                                  category=row["category"]["name"], story_id=story.get("id"), story=story.get("name"),
                                  entities=[e["name"] for e in row.get("entity") or []]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, ValidationError) as exc:
            raise InputError(f"{path}:{lineno}: not a portal item ({type(exc).__name__}: {exc}); expected the "
                             "news sample's fields date, id, description, category", field="path") from None
    return sorted(items, key=lambda it: (it.day, int(it.id) if it.id.isdigit() else 0, it.id))


def _window(question: Question) -> tuple[date, date]:
    """First and last day of the resolution window: after the last forecast date, through resolution."""
    return (question.forecast_dates[-1].date() + timedelta(days=1), question.resolution_date.date())


def _group(question: Question) -> str:
    groups = [t for t in question.tags if t.split(":", 1)[0] in ("story", "category", "entity", "portal")]
    if len(groups) != 1:
        raise InputError(f"question {question.id} needs exactly one story:/category:/entity:/portal: tag",
                         field="tags")
    return groups[0]


def _kind(question: Question) -> str:
    kinds = [t for t in question.tags if t in KINDS]
    if len(kinds) != 1:
        raise InputError(f"question {question.id} needs exactly one kind tag of {KINDS}", field="tags")
    return kinds[0]


def _in_group(item: NewsItem, group: str) -> bool:
    key, _, value = group.partition(":")
    if key == "story":
        return item.story_id == value
    if key == "category":
        return item.category == value
    if key == "portal":
        return True
    return value in item.entities


def resolution_items(question: Question, items: Sequence[NewsItem]) -> list[NewsItem]:
    """The items of the question's group dated inside its resolution window, in portal order."""
    first, last = _window(question)
    group = _group(question)
    return [it for it in items if first <= it.day <= last and _in_group(it, group)]


def _count_bin(count: int, outcomes: Sequence[str]) -> int:
    for index, label in enumerate(outcomes):
        numbers = [int(n) for n in re.findall(r"\d+", label)]
        if label.endswith("or more") and count >= numbers[0]:
            return index
        if len(numbers) == 2 and numbers[0] <= count <= numbers[1]:
            return index
        if len(numbers) == 1 and not label.endswith("or more") and count == numbers[0]:
            return index
    raise InputError(f"count {count} falls in none of the bins {list(outcomes)}", field="outcomes")


def resolve(question: Question, items: Sequence[NewsItem]) -> int:
    """The outcome index, computed mechanically from the items in the resolution window."""
    found = resolution_items(question, items)
    kind = _kind(question)
    if kind in ("story-continues", "entity-mention"):
        return 0 if found else 1
    if kind == "category-count":
        return _count_bin(len(found), question.outcomes)
    candidates = [o for o in question.outcomes if o != NONE_OF_THESE]
    if kind == "entity-most":
        counts = [sum(name in it.entities for it in found) for name in candidates]
        best = max(counts)
        return question.outcomes.index(candidates[counts.index(best)] if best else NONE_OF_THESE)
    if not found:
        return question.outcomes.index(NONE_OF_THESE)
    linked = [e for e in found[0].entities if e in candidates]
    return question.outcomes.index(linked[0] if linked else NONE_OF_THESE)


# --- building -------------------------------------------------------------------------------------------------

_TEMPLATES = {
    "story-entity": ("Which of these will {portal} link in the first item of the story “{name}” dated between "
                     "{first} and {last}?"),
    "story-continues": ("Will {portal} list at least one item in the story “{name}” dated between {first} "
                        "and {last}?"),
    "category-count": ("How many items in the category “{name}” will {portal} list dated between {first} and "
                       "{last}?"),
    "entity-mention": "Will {portal} link “{name}” in any item dated between {first} and {last}?",
    "entity-most": "Which of these will {portal} link in the most items{scope} dated between {first} and {last}?",
}
_CRITERIA = {
    "story-entity": ("Take the portal items of the story dated {first} through {last} (UTC days) in portal order "
                     "(day, then item id). The first of them decides: the outcome is the listed candidate it links "
                     "first (in the item's own link order); “None of these” if it links none of the candidates or "
                     "if the story has no item dated in that window."),
    "story-continues": ("Yes if the portal lists at least one item belonging to the story dated {first} through "
                        "{last} (UTC days); No otherwise."),
    "category-count": ("Count the portal items in the category dated {first} through {last} (UTC days); the "
                       "outcome is the bin holding that count."),
    "entity-mention": ("Yes if at least one portal item dated {first} through {last} (UTC days) links the entity; "
                       "No otherwise."),
    "entity-most": ("Count, for each listed candidate, the portal items{scope} dated {first} through {last} (UTC "
                    "days) that link it. The outcome is the candidate with the highest count; a tie goes to the "
                    "candidate listed first; “None of these” if no such item links any candidate."),
}
_BACKGROUND = {
    "story": ("The portal story “{name}” has {n} item(s) dated up to {asof}{first}. Latest of these "
              "({latest_day}): {latest}"),
    "category": ("Up to {asof} the portal lists {n} item(s) in the category “{name}” over {days} day(s) "
                 "({rate:.2f} per day)."),
    "entity": "Up to {asof} the portal links “{name}” in {n} of {total} item(s) over {days} day(s).",
    "recent": "In the {recent} day(s) up to {asof} the portal lists {n} item(s){scope}; it links {counts}.",
}
TEMPLATE_TEXT = " ".join([*_TEMPLATES.values(), *_CRITERIA.values(), *_BACKGROUND.values(), PORTAL, NONE_OF_THESE,
                          "Yes No or more story-entity story-continues category-count entity-mention entity-most",
                          "cep portal:all",
                          "in the category"])
"""Every fixed word the builder writes; `leak_problems` checks only the words that come from the items."""


def _candidates(items: Sequence[NewsItem], limit: int, min_links: int = 1) -> list[str]:
    """The most-linked entities (at least `min_links` items each): count, then most recent link, then name."""
    counts: Counter[str] = Counter()
    last: dict[str, tuple[date, int]] = {}
    for order, it in enumerate(items):
        for name in dict.fromkeys(it.entities):
            counts[name] += 1
            last[name] = (it.day, order)
    ranked = sorted(counts, key=lambda e: (-counts[e], -last[e][0].toordinal(), -last[e][1], e))
    # Some portal entity names are two links glued together ("…ActionUpcoming congressional votes"): skip them.
    return [e for e in ranked if len(e) <= MAX_CANDIDATE_CHARS and counts[e] >= min_links][:limit]


def _count_bins(rate_per_day: float, days: int) -> list[str]:
    """Three bins around the expected count so far: 'at most L', 'L+1 to U', 'U+1 or more'."""
    expected = rate_per_day * days
    low = max(0, math.floor(expected * 0.6))
    high = max(low + 1, math.ceil(expected * 1.4) - 1)
    first = f"{low}" if low == 0 else f"0 to {low}"
    middle = f"{low + 1}" if high == low + 1 else f"{low + 1} to {high}"
    return [first, middle, f"{high + 1} or more"]


class _Draft(BaseModel):
    kind: str
    group: str
    name: str
    resolution_day: date
    dates: list[datetime]


def _drafts(items: Sequence[NewsItem], config: BuildConfig) -> list[_Draft]:
    last_day = max(it.day for it in items)
    first_day = min(it.day for it in items)
    span = max(config.offsets_days)
    days = config.resolution_days or [last_day - timedelta(days=2 * i) for i in range(3)]
    days = sorted(d for d in days if d - timedelta(days=span) > first_day)
    stories = {it.story_id: it.story for it in items if it.story_id}
    drafts: list[_Draft] = []
    for day in days:
        dates = [end_of_day(day - timedelta(days=k)) for k in sorted(config.offsets_days, reverse=True)]
        seen = [it for it in items if it.published_at <= dates[0]]
        for story_id, name in stories.items():
            if sum(it.story_id == story_id for it in seen) >= config.min_story_items:
                for kind in ("story-entity", "story-continues"):
                    drafts.append(_Draft(kind=kind, group=f"story:{story_id}", name=name or "", resolution_day=day,
                                         dates=dates))
        for category in sorted({it.category for it in seen}):  # only categories already in the news
            for kind in ("category-count", "entity-most"):
                drafts.append(_Draft(kind=kind, group=f"category:{category}", name=category, resolution_day=day,
                                     dates=dates))
        drafts.append(_Draft(kind="entity-most", group="portal:all", name="", resolution_day=day, dates=dates))
        top = Counter(e for it in seen for e in dict.fromkeys(it.entities)).most_common()
        for entity, _ in sorted(top, key=lambda kv: (-kv[1], kv[0]))[:config.entity_questions]:
            drafts.append(_Draft(kind="entity-mention", group=f"entity:{entity}", name=entity, resolution_day=day,
                                 dates=dates))
    return _sibling_safe(drafts)


def _sibling_safe(drafts: Sequence[_Draft]) -> list[_Draft]:
    """Keep, per group, only drafts whose first forecast date precedes every kept sibling's resolution window
    (and vice versa), earliest resolution first: then no public view can be built from a sibling's answer."""
    kept: list[_Draft] = []
    for draft in sorted(drafts, key=lambda d: (d.resolution_day, d.group, d.kind)):
        siblings = [k for k in kept if k.group == draft.group]
        if all(draft.dates[0].date() < _window_of(k)[0] and k.dates[0].date() < _window_of(draft)[0]
               for k in siblings):
            kept.append(draft)
    return kept


def _window_of(draft: _Draft) -> tuple[date, date]:
    return draft.dates[-1].date() + timedelta(days=1), draft.resolution_day


def _question(draft: _Draft, items: Sequence[NewsItem], config: BuildConfig) -> Question | None:
    """The question for a draft, from the items published by its first forecast date only."""
    asof = draft.dates[0]
    visible = [it for it in items if it.published_at <= asof]
    group = [it for it in visible if _in_group(it, draft.group)]
    first, last = (d.isoformat() for d in _window_of(draft))
    scope = f" in the category “{draft.name}”" if draft.group.startswith("category:") else ""
    fill = {"portal": PORTAL, "name": draft.name, "first": first, "last": last, "scope": scope}
    asof_day = asof.date().isoformat()
    days = (asof.date() - min(it.day for it in items)).days + 1
    if draft.kind in ("story-entity", "story-continues"):
        if len(group) < config.min_story_items:
            return None
        since = f", the first on {group[0].day.isoformat()}" if len(group) > 1 else ""
        background = _BACKGROUND["story"].format(name=draft.name, n=len(group), asof=asof_day, first=since,
                                                 latest_day=group[-1].day.isoformat(), latest=group[-1].description)
    elif draft.kind == "entity-most":
        recent = [it for it in group if it.day > asof.date() - timedelta(days=RECENT_DAYS)]
        candidates = _candidates(recent, config.max_candidates, config.min_links)
        if len(candidates) < 2:
            return None
        counts = ", ".join(f"“{e}” in {sum(e in it.entities for it in recent)}" for e in candidates)
        background = _BACKGROUND["recent"].format(recent=RECENT_DAYS, asof=asof_day, n=len(recent), scope=scope,
                                                  counts=counts)
    elif draft.kind == "category-count":
        background = _BACKGROUND["category"].format(name=draft.name, n=len(group), asof=asof_day, days=days,
                                                    rate=len(group) / days)
    else:
        if not group:
            return None
        background = _BACKGROUND["entity"].format(name=draft.name, n=len(group), total=len(visible), asof=asof_day,
                                                  days=days)
    if draft.kind == "story-entity":
        candidates = _candidates(group, config.max_candidates, config.min_links)
        if len(candidates) < 2:
            return None
        outcomes = [*candidates, NONE_OF_THESE]
    elif draft.kind == "entity-most":
        outcomes = [*candidates, NONE_OF_THESE]
    elif draft.kind == "category-count":
        window_first, window_last = _window_of(draft)
        outcomes = _count_bins(len(group) / days, (window_last - window_first).days + 1)
    else:
        outcomes = ["Yes", "No"]
    slug = re.sub(r"[^a-z0-9]+", "-", draft.group.split(":", 1)[1].lower()).strip("-")[:40]
    question = Question(
        id=f"cep-{draft.kind}-{slug}-{draft.resolution_day.isoformat()}",
        question=_TEMPLATES[draft.kind].format(**fill), outcomes=outcomes,
        resolution_criteria=_CRITERIA[draft.kind].format(**fill), forecast_dates=draft.dates,
        resolution_date=end_of_day(draft.resolution_day), background=background,
        tags=["cep", draft.kind, draft.group])
    question.outcome_index = resolve(question, items)
    return question


def build_questions(items: Sequence[NewsItem], config: BuildConfig | None = None) -> list[Question]:
    """Every question the items support under `config`, resolved, leak-free and sibling-safe, in a stable order."""
    config = config or BuildConfig()
    if not items:
        raise InputError("no portal items to build questions from", field="path")
    built = (_question(draft, items, config) for draft in _drafts(items, config))
    return [q for q in built if q is not None]


def select_questions(questions: Sequence[Question], per_kind: dict[str, int] | None = None) -> list[Question]:
    """A balanced, deterministic subset: per kind, spread over resolution days (latest first), then ids."""
    per_kind = per_kind or DEFAULT_QUOTA
    chosen: list[Question] = []
    for kind, limit in per_kind.items():
        pool = [q for q in questions if _kind(q) == kind]
        by_day: dict[date, list[Question]] = {}
        for q in sorted(pool, key=lambda q: q.id):
            by_day.setdefault(q.resolution_date.date(), []).append(q)
        days = sorted(by_day, reverse=True)
        picked: list[Question] = []
        while len(picked) < limit and any(by_day[d] for d in days):
            for d in days:  # round-robin over days so every horizon window is represented
                if by_day[d] and len(picked) < limit:
                    picked.append(by_day[d].pop(0))
        chosen.extend(sorted(picked, key=lambda q: (q.resolution_date, q.id)))
    return chosen


# --- checks ---------------------------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def public_text(question: Question) -> str:
    """Everything an agent sees of the question (the public view's values), as one string."""
    return json.dumps(list(question.public_view().values()), ensure_ascii=False)


def first_seen(items: Iterable[NewsItem]) -> dict[str, date]:
    """The first day each word appears in any item's text, category, story name or entity names."""
    seen: dict[str, date] = {}
    for it in sorted(items, key=lambda it: it.day):
        for text in it.strings:
            for word in _words(text):
                seen.setdefault(word, it.day)
    return seen


def leak_problems(question: Question, items: Sequence[NewsItem]) -> list[str]:
    """Words (outside the builder's fixed template words) in the public view that first appear after the
    earliest forecast date; whole outcomes too. Empty when the question is clean."""
    earliest = question.forecast_dates[0]
    seen = first_seen(items)
    template = _words(TEMPLATE_TEXT)
    problems = []
    for word in sorted(_words(public_text(question)) - template):
        day = seen.get(word)
        if day is not None and end_of_day(day) > earliest and not word.isdigit():
            problems.append(f"{question.id}: word {word!r} first appears on {day.isoformat()}, after "
                            f"{earliest.isoformat()}")
    texts: dict[str, date] = {}
    for it in items:
        for text in it.strings:
            texts.setdefault(text.casefold(), it.day)
    for outcome in question.outcomes:
        day = texts.get(outcome.casefold())
        if day is not None and end_of_day(day) > earliest:
            problems.append(f"{question.id}: outcome {outcome!r} first appears on {day.isoformat()}")
    return problems


def sibling_problems(questions: Sequence[Question], items: Sequence[NewsItem]) -> list[str]:
    """For questions on the same story, category or entity: any resolution item of one whose id or text (or
    an entity only it introduces by the other's first date) appears in the other's public view."""
    problems = []
    by_group: dict[str, list[Question]] = {}
    for q in questions:
        by_group.setdefault(_group(q), []).append(q)
    for group, members in by_group.items():
        group_items = [it for it in items if _in_group(it, group)]
        for a in members:
            secret = resolution_items(a, items)
            secret_ids = {it.id for it in secret}
            for b in members:
                if b.id == a.id or not secret:
                    continue
                view = public_text(b)
                earliest = b.forecast_dates[0]
                known = {e for it in group_items if it.id not in secret_ids and it.published_at <= earliest
                         for e in it.entities}
                for it in secret:
                    if re.search(rf"\b{re.escape(it.id)}\b", view) or it.description[:60] in view:
                        problems.append(f"{b.id} shows resolution item {it.id} of sibling {a.id}")
                    for entity in it.entities:
                        if entity not in known and entity in b.outcomes:
                            problems.append(f"{b.id} offers {entity!r}, known only from sibling {a.id}'s answer")
    return problems
