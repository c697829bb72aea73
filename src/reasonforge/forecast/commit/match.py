"""Matching reveals to registered roots: which forecasts count, and why each other one does not.

A revealed forecast is scored only when
(a) its leaf recomputes from the revealed fields and its path leads to a registered root of the
    forecaster for this question set (index < count, path as deep as the batch's tree);
(b) the registry's block timestamp for that root is strictly before the item's cutoff;
(c) it is the forecaster's only committed forecast for that item id. Two openings for one id refuse BOTH:
    counting the first would still let the forecaster commit both sides and choose afterwards which one to
    open; refusing both means a second forecast can only lose an item, never win it.
Every committed leaf is either opened (then scored or excluded) or unrevealed; an item of the question set
with no opened forecast is listed too. A withheld leaf could hide a second forecast for any item, so
`complete` (no unrevealed leaf) is part of every result and certificate: (c) is proven only when it holds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

from reasonforge.certificate.forecast_records import BatchRecord
from reasonforge.forecast.commit.batch import Opening
from reasonforge.forecast.commit.tree import depth_for, field_hex, leaf_hash, root_from_path
from reasonforge.forecast.dataset import ForecastItem


class Exclusion(StrEnum):
    """Why a forecast or committed leaf is not scored."""

    UNKNOWN_ROOT = "unknown_root"  # the root was never registered
    FOREIGN_ROOT = "foreign_root"  # registered by another address, or for another question set
    ALTERED = "altered"  # the leaf does not recompute from the fields, or the path does not lead to the root
    REPEATED_OPENING = "repeated_opening"  # the same committed leaf opened twice (counted once)
    NOT_IN_QUESTION_SET = "not_in_question_set"
    DUPLICATE = "duplicate"  # two or more committed forecasts for one item id
    LATE = "late"  # the root was registered at or after the item's cutoff
    UNREVEALED = "unrevealed"  # a committed leaf with no valid opening
    NO_FORECAST = "no_forecast"  # an item of the question set with no opened forecast


OPENED_EXCLUSIONS = frozenset({Exclusion.NOT_IN_QUESTION_SET, Exclusion.DUPLICATE, Exclusion.LATE})
"""Exclusions of validly opened leaves: with the scored ones and the unrevealed ones they account for every
committed leaf (the registry checks the sum)."""


class Excluded(BaseModel):
    """One excluded forecast, leaf or item, with the reason."""

    reason: Exclusion
    detail: str
    item_id: str | None = None
    root: str | None = None
    index: int | None = None


class Counted(BaseModel):
    """A scored forecast: the committed probability and where it was committed."""

    item_id: str
    probability_ppm: int
    root: str
    index: int
    committed_at: int


class MatchResult(BaseModel):
    """Scored forecasts (in question-set order) and every exclusion."""

    forecaster: str
    scope: str
    roots: list[str] = Field(description="the forecaster's roots for the scope, in commit order")
    scored: list[Counted]
    excluded: list[Excluded]
    n_committed: int
    n_unrevealed: int
    n_excluded_opened: int
    complete: bool = Field(description="every committed leaf was opened (rule (c) is proven for every item)")


def _check_opening(o: Opening, record: BatchRecord | None, forecaster: str, scope: str,
                   roots: set[str], memo: dict[tuple[int, ...], int]) -> Excluded | None:
    def out(reason: Exclusion, detail: str) -> Excluded:
        return Excluded(reason=reason, detail=detail, item_id=o.forecast.item_id, root=o.root, index=o.index)

    if record is None:
        return out(Exclusion.UNKNOWN_ROOT, f"root {o.root} is not registered on the forecast registry")
    if record.committer.lower() != forecaster.lower():
        return out(Exclusion.FOREIGN_ROOT, f"root {o.root} was committed by {record.committer}, not {forecaster}")
    if record.scope != scope or o.root not in roots:
        return out(Exclusion.FOREIGN_ROOT, f"root {o.root} was committed for another question set ({record.scope})")
    if o.index >= record.count or len(o.path) != depth_for(record.count):
        return out(Exclusion.ALTERED, f"index {o.index} / path of {len(o.path)} levels does not fit a batch of "
                                      f"{record.count} leaves")
    try:
        children = [[int(x, 16) for x in group] for group in o.path]
    except ValueError:
        return out(Exclusion.ALTERED, "the path holds a value that is not hex")
    got = root_from_path(leaf_hash(o.forecast), o.index, children, memo)
    if got is None or field_hex(got) != o.root:
        return out(Exclusion.ALTERED, f"the leaf recomputed from the revealed fields is not leaf {o.index} of "
                                      f"root {o.root} (changed after commit?)")
    return None


def match_reveals(openings: Sequence[Opening], items: Sequence[ForecastItem], batches: Mapping[str, BatchRecord],
                  roots: Sequence[str], forecaster: str, scope: str) -> MatchResult:
    """Apply rules (a)–(c) to the openings against the registry's records.

    batches: the registry's record for every root the openings name and every root in `roots` (missing =
    never registered); roots: rootsOf(forecaster, scope), so batches with no opening count as unrevealed.
    """
    excluded: list[Excluded] = []
    opened: dict[tuple[str, int], Opening] = {}
    memo: dict[tuple[int, ...], int] = {}
    root_set = set(roots)
    for o in openings:
        why = _check_opening(o, batches.get(o.root), forecaster, scope, root_set, memo)
        if why is None and (o.root, o.index) in opened:
            why = Excluded(reason=Exclusion.REPEATED_OPENING, item_id=o.forecast.item_id, root=o.root,
                           index=o.index, detail=f"leaf {o.index} of root {o.root} was already opened (counted once)")
        if why is not None:
            excluded.append(why)
        else:
            opened[(o.root, o.index)] = o
    by_item: dict[str, list[Opening]] = defaultdict(list)
    for o in opened.values():
        by_item[o.forecast.item_id].append(o)
    item_by_id = {item.id: item for item in items}
    scored: list[Counted] = []
    n_excluded_opened = 0
    for item_id, group in by_item.items():
        item = item_by_id.get(item_id)
        for o in group:
            record = batches[o.root]
            if item is None:
                reason, detail = Exclusion.NOT_IN_QUESTION_SET, f"item id '{item_id}' is not in the question set"
            elif len(group) > 1:
                reason = Exclusion.DUPLICATE
                detail = f"{len(group)} committed forecasts for item '{item_id}'; a second forecast refuses both"
            elif record.timestamp >= int(item.cutoff.timestamp()):
                reason = Exclusion.LATE
                detail = (f"root registered at {record.timestamp} (block time), not before the cutoff "
                          f"{int(item.cutoff.timestamp())} ({item.cutoff.isoformat()})")
            else:
                scored.append(Counted(item_id=item_id, probability_ppm=o.forecast.probability_ppm, root=o.root,
                                      index=o.index, committed_at=record.timestamp))
                continue
            n_excluded_opened += 1
            excluded.append(Excluded(reason=reason, detail=detail, item_id=item_id, root=o.root, index=o.index))
    n_committed = n_unrevealed = 0
    for root in roots:
        record = batches[root]
        n_committed += record.count
        missing = [i for i in range(record.count) if (root, i) not in opened]
        n_unrevealed += len(missing)
        excluded.extend(Excluded(reason=Exclusion.UNREVEALED, root=root, index=i,
                                 detail=f"leaf {i} of root {root} was committed but never validly opened")
                        for i in missing)
    with_forecast = {c.item_id for c in scored} | set(by_item)
    excluded.extend(Excluded(reason=Exclusion.NO_FORECAST, item_id=item.id,
                             detail=f"no opened forecast for item '{item.id}'")
                    for item in items if item.id not in with_forecast)
    order = {item.id: n for n, item in enumerate(items)}
    scored.sort(key=lambda c: order[c.item_id])
    return MatchResult(forecaster=forecaster, scope=scope, roots=list(roots), scored=scored, excluded=excluded,
                       n_committed=n_committed, n_unrevealed=n_unrevealed, n_excluded_opened=n_excluded_opened,
                       complete=n_unrevealed == 0)
