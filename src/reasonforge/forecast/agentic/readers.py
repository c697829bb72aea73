"""Tool-free readers: turn a frozen evidence set into a probability vector (for the evidence–reader swap).

A reader sees the question's public view, the forecast date and a list of documents, nothing else: it
cannot search. Scoring several readers on the evidence two agents gathered separates what better
evidence buys (acquisition) from what better reporting buys (see `analysis.reader_swap`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus_types import Document, LeakError
from reasonforge.forecast.agentic.records import Question, as_utc

_TOKEN = re.compile(r"[^\W_]+")

STOPWORDS = frozenset({
    "the", "and", "for", "with", "from", "that", "this", "than", "then", "into", "onto", "over", "under",
    "about", "after", "before", "none", "these", "those", "yes", "not", "any", "all", "one", "two", "three",
    "more", "less", "other", "others", "item", "items", "news", "story", "stories", "will", "would", "what",
    "which", "who", "whom", "whose", "when", "where", "there", "their", "they", "them", "its", "his", "her",
    "has", "have", "had", "was", "were", "been", "being", "are", "our", "out", "per", "via"
})
"""Words that never identify an outcome (they appear in every kind of text or in generic labels)."""


@runtime_checkable
class Reader(Protocol):
    """Maps (question, forecast date, evidence) to a probability vector over the question's outcomes."""

    name: str

    def forecast(self, question: Question, as_of: datetime, evidence: Sequence[Document]) -> list[float]:
        """A probability vector in outcome order."""
        ...


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits)."""
    return _TOKEN.findall(text.casefold())


def _check_evidence(as_of: datetime, evidence: Sequence[Document]) -> datetime:
    as_of = as_utc(as_of, "as_of")
    for doc in evidence:
        if doc.published_at > as_of:
            # Evidence sets come from tool results at `as_of`; a later document means a leak upstream.
            raise LeakError(f"document {doc.id!r} published {doc.published_at.isoformat()} reached a reader "
                            f"at as_of {as_of.isoformat()}")
    return as_of


class UniformReader:
    """Ignores the evidence: 1/n on every outcome (the no-information baseline)."""

    name = "uniform"

    def forecast(self, question: Question, as_of: datetime, evidence: Sequence[Document]) -> list[float]:
        """1/n for each of the n outcomes."""
        _check_evidence(as_of, evidence)
        n = len(question.outcomes)
        return [1.0 / n] * n


def outcome_terms(outcomes: Sequence[str]) -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """Per outcome: its full phrase as tokens (multi-word outcomes with keywords only), and its keywords
    (tokens of ≥ 3 characters, not stopwords, not shared with another outcome — a shared word cannot tell
    outcomes apart)."""
    toks = [tuple(tokens(o)) for o in outcomes]
    out = []
    for i, phrase in enumerate(toks):
        others = {t for j, other in enumerate(toks) if j != i for t in other}
        keywords = frozenset(t for t in phrase if len(t) >= 3 and t not in STOPWORDS and t not in others)
        # A one-word phrase is its keyword: no phrase bonus, or one-word names would count double.
        out.append((phrase if keywords and len(phrase) > 1 else (), keywords))
    return out


def _phrase_count(words: Sequence[str], phrase: Sequence[str]) -> int:
    m = len(phrase)
    if m == 0:
        return 0
    return sum(1 for i in range(len(words) - m + 1) if tuple(words[i:i + m]) == tuple(phrase))


class EvidenceReader:
    """Counts outcome-term matches in the evidence, weighted by recency, Laplace-smoothed into probabilities.

    For outcome k: m_k(d) = min(cap, phrase_weight·#phrase(k, d) + #keywords(k, d)) in document d (title +
    text); weight w_d = 0.5^(age_days / half_life_days) with age measured back from `as_of`; then
    p_k ∝ alpha + Σ_d w_d·m_k(d). Outcomes without distinctive words ("Yes", "None of these") get only
    alpha, so with no matching evidence the forecast is uniform. Deterministic; documents are counted
    once per id.
    """

    def __init__(self, *, half_life_days: float = 3.0, alpha: float = 1.0, phrase_weight: float = 2.0,
                 cap: float = 5.0, name: str = "evidence") -> None:
        if not (half_life_days > 0 and alpha > 0 and phrase_weight >= 0 and cap > 0):
            raise InputError("EvidenceReader needs half_life_days > 0, alpha > 0, phrase_weight >= 0 and cap > 0",
                             field="EvidenceReader")
        self.half_life_days = half_life_days
        self.alpha = alpha
        self.phrase_weight = phrase_weight
        self.cap = cap
        self.name = name

    def counts(self, question: Question, as_of: datetime, evidence: Sequence[Document]) -> list[float]:
        """Recency-weighted, capped match counts per outcome (before smoothing)."""
        as_of = _check_evidence(as_of, evidence)
        terms = outcome_terms(question.outcomes)
        totals = [0.0] * len(terms)
        seen: set[str] = set()
        for doc in evidence:
            if doc.id in seen:
                continue
            seen.add(doc.id)
            words = tokens(f"{doc.title} {doc.text}")
            age_days = (as_of - doc.published_at).total_seconds() / 86400.0
            weight = 0.5 ** (age_days / self.half_life_days)
            for k, (phrase, keywords) in enumerate(terms):
                hits = self.phrase_weight * _phrase_count(words, phrase) + sum(1 for w in words if w in keywords)
                totals[k] += weight * min(self.cap, hits)
        return totals

    def forecast(self, question: Question, as_of: datetime, evidence: Sequence[Document]) -> list[float]:
        """Laplace-smoothed, recency-weighted match shares."""
        smoothed = [self.alpha + c for c in self.counts(question, as_of, evidence)]
        total = math.fsum(smoothed)
        return [c / total for c in smoothed]


# --- the base-rate reader: Poisson models from the question's stated base rates plus dated evidence ----------

_WINDOW = re.compile(r"between (\d{4}-\d{2}-\d{2}) and (\d{4}-\d{2}-\d{2})")
_QUOTE = re.compile(r"“([^”]+)”")
_STORY_BG = re.compile(r"has (\d+) item\(s\) dated up to (\d{4}-\d{2}-\d{2}), the first on (\d{4}-\d{2}-\d{2})")
_RATE_BG = re.compile(r"Up to (\d{4}-\d{2}-\d{2}) the portal lists (\d+) item\(s\).* over (\d+) day\(s\)")
_MENTION_BG = re.compile(
    r"Up to (\d{4}-\d{2}-\d{2}) the portal links “[^”]+” in (\d+) of \d+ item\(s\) over (\d+) day\(s\)"
)
_MOST_BG = re.compile(r"In the (\d+) day\(s\) up to (\d{4}-\d{2}-\d{2})")
_LINK_COUNT = re.compile(r"“([^”]+)” in (\d+)")
_BIN = re.compile(r"^\s*(\d+)\s*(?:(?:to|-|–)\s*(\d+)|(or more|\+))?\s*$")
_NONE = "none of these"
_STEM = 5


def window_days(question: Question) -> int | None:
    """Length in days of the "dated between A and B" window (inclusive), or None when the text has none."""
    match = _WINDOW.search(question.question)
    if not match:
        return None
    first, last = (datetime.fromisoformat(g).date() for g in match.groups())
    return (last - first).days + 1 if last >= first else None


def poisson_pmf(k: int, mean: float) -> float:
    """P(N = k) for N ~ Poisson(mean)."""
    return math.exp(-mean + k * math.log(mean) - math.lgamma(k + 1)) if mean > 0 else float(k == 0)


def count_bins(outcomes: Sequence[str]) -> list[tuple[int, int | None]] | None:
    """Outcomes read as count bins ("0", "1 to 2", "3 or more") → (low, high or None); None if any is not one."""
    bins = []
    for outcome in outcomes:
        match = _BIN.match(outcome)
        if not match:
            return None
        low, high, open_end = match.groups()
        bins.append((int(low), None if open_end else int(high) if high else int(low)))
    return bins


def poisson_bins(mean: float, bins: Sequence[tuple[int, int | None]]) -> list[float]:
    """Poisson(mean) mass of each bin (an open bin takes the whole upper tail), renormalised over the bins."""
    mass = []
    for low, high in bins:
        if high is None:
            mass.append(max(0.0, 1.0 - math.fsum(poisson_pmf(k, mean) for k in range(low))))
        else:
            mass.append(math.fsum(poisson_pmf(k, mean) for k in range(low, high + 1)))
    total = math.fsum(mass)
    return [m / total for m in mass] if total > 0 else [1.0 / len(bins)] * len(bins)


def _stems(text: str) -> set[str]:
    """Content-word prefixes (crude stemming: "migrants" and "migrant" meet at "migra")."""
    return {t[:_STEM] for t in tokens(text) if len(t) >= 3 and t not in STOPWORDS and not t.isdigit()}


def _mix(probs: Sequence[float], toward: Sequence[float], weight: float) -> list[float]:
    return [(1.0 - weight) * p + weight * t for p, t in zip(probs, toward, strict=True)]


class BaseRateReader:
    """Forecasts from rates: the question's stated base rate (background), updated with the dated evidence.

    The CEP questions state, in their public background, how often the thing asked about happened before the
    first forecast date (items of a story, links of an entity, items of a category). Events in a window of
    |W| days are modelled as Poisson with rate r = (n_background + n_new) / (days observed), where n_new are
    evidence documents dated after the background's cut-off that match the subject, and the observed span runs
    to `as_of` — so days passing without news lower the rate. Rules, by the question's form:

    - Yes/No "at least one item/link in W": P(Yes) = 1 − exp(−r·|W|), shrunk toward 1/2 with weight
      k/(k + n) (n = events seen): few events, little trust in the rate.
    - Count bins ("0", "1 to 2", "3 or more"): Poisson(r·|W|) mass per bin, shrunk toward uniform likewise.
    - "Which candidate …" with "None of these": P(no event in W) = exp(−r·|W|) goes to "None of these"; the
      rest is split ∝ alpha + (background count + recency-weighted evidence mentions) per candidate.
    - Anything else: `EvidenceReader` counts, with outcomes without distinctive words ("None of these",
      "Yes") getting the mean count of the others (they are "the rest", not "nothing"), shrunk toward
      uniform by `fallback_shrink` (match counts are weak evidence; an overconfident reader loses to 1/n).

    Parameters were set on the even-indexed questions of `data/agentic/questions.jsonl` only.
    """

    def __init__(self, *, prior_events: float = 32.0, alpha: float = 1.0, half_life_days: float = 3.0,
                 fallback_shrink: float = 0.5, name: str = "base-rate") -> None:
        if not (prior_events >= 0 and alpha > 0 and half_life_days > 0 and 0 <= fallback_shrink <= 1):
            raise InputError("BaseRateReader needs prior_events >= 0, alpha > 0, half_life_days > 0 and "
                             "0 <= fallback_shrink <= 1", field="BaseRateReader")
        self.prior_events = prior_events
        self.alpha = alpha
        self.half_life_days = half_life_days
        self.fallback_shrink = fallback_shrink
        self.evidence = EvidenceReader(half_life_days=half_life_days, alpha=alpha)
        self.name = name

    def forecast(self, question: Question, as_of: datetime, evidence: Sequence[Document]) -> list[float]:
        """A probability vector in outcome order (see the class docstring for the rules)."""
        as_of = _check_evidence(as_of, evidence)
        docs = list({d.id: d for d in evidence}.values())
        probs = self._rate_forecast(question, as_of, docs)
        return probs if probs is not None else self.fallback(question, as_of, docs)

    def fallback(self, question: Question, as_of: datetime, evidence: Sequence[Document]) -> list[float]:
        """Mention counts with residual mass for word-less outcomes, shrunk toward uniform."""
        counts = self.evidence.counts(question, as_of, evidence)
        terms = outcome_terms(question.outcomes)
        distinct = [counts[k] for k, (_, words) in enumerate(terms) if words]
        if distinct:
            mean = math.fsum(distinct) / len(distinct)
            counts = [c if terms[k][1] else mean for k, c in enumerate(counts)]
        smoothed = [self.alpha + c for c in counts]
        total = math.fsum(smoothed)
        n = len(smoothed)
        return _mix([c / total for c in smoothed], [1.0 / n] * n, self.fallback_shrink)

    def _trust(self, events: float) -> float:
        """Weight on the uninformed forecast: k/(k + n)."""
        total = self.prior_events + events
        return self.prior_events / total if total > 0 else 1.0

    def _new(self, evidence: Sequence[Document], cutoff: datetime, match: set[str], need: int) -> list[Document]:
        """Documents after the background's cut-off sharing at least `need` content stems with `match`."""
        return [d for d in evidence if d.published_at > cutoff and len(_stems(f"{d.title} {d.text}") & match) >= need]

    def _rate_forecast(self, question: Question, as_of: datetime, evidence: Sequence[Document]) -> list[float] | None:
        days = window_days(question)
        background = question.background or ""
        if days is None:
            return None
        outcomes = [o.strip().casefold() for o in question.outcomes]
        yes_no = outcomes == ["yes", "no"]
        bins = count_bins(question.outcomes)
        story = _STORY_BG.search(background)
        if story:
            n, cutoff, first = int(story.group(1)), _end_of(story.group(2)), _end_of(story.group(3))
            names = _QUOTE.findall(question.question)
            keys = _stems(names[0]) if names else set()
            new = self._new(evidence, cutoff, keys, min(2, len(keys))) if keys else []
            span = max(1.0, (as_of - first).total_seconds() / 86400.0 + 1.0)
            events = n + len(new)
            rate = events / span
            p_none = math.exp(-rate * days)
            if yes_no:
                return _mix([1.0 - p_none, p_none], [0.5, 0.5], self._trust(events))
            if _NONE in outcomes:
                latest = background.split("Latest of these", 1)[-1]
                texts = [(latest, cutoff)] + [(f"{d.title} {d.text}", d.published_at) for d in new]
                return self._split(question, as_of, p_none, events, [0.0] * len(outcomes), texts)
            return None
        mention = _MENTION_BG.search(background)
        if mention and yes_no:
            cutoff, n, span0 = _end_of(mention.group(1)), int(mention.group(2)), int(mention.group(3))
            names = _QUOTE.findall(question.question)
            phrase = tuple(tokens(names[0])) if names else ()
            new = [d for d in evidence if d.published_at > cutoff and phrase
                   and _phrase_count(tokens(f"{d.title} {d.text}"), phrase)]
            events = n + len(new)
            rate = events / (span0 + max(0.0, (as_of - cutoff).total_seconds() / 86400.0))
            p_none = math.exp(-rate * days)
            return _mix([1.0 - p_none, p_none], [0.5, 0.5], self._trust(events))
        rate_bg = _RATE_BG.search(background)
        if rate_bg and bins:
            n, span0 = int(rate_bg.group(2)), int(rate_bg.group(3))
            # The category of a document is not in its text, so evidence cannot update this rate.
            probs = poisson_bins(n / span0 * days, bins)
            return _mix(probs, [1.0 / len(bins)] * len(bins), self._trust(n))
        most = _MOST_BG.search(background)
        if most and _NONE in outcomes:
            span0, cutoff = int(most.group(1)), _end_of(most.group(2))
            linked = {name.casefold(): int(c) for name, c in _LINK_COUNT.findall(background)}
            prior = [float(linked.get(o, 0)) for o in outcomes]
            linked_events = math.fsum(prior)
            p_none = math.exp(-linked_events / span0 * days)
            texts = [(f"{d.title} {d.text}", d.published_at) for d in evidence if d.published_at > cutoff]
            return self._split(question, as_of, p_none, linked_events, prior, texts)
        return None

    def _split(self, question: Question, as_of: datetime, p_none: float, events: float, prior: Sequence[float],
               texts: Sequence[tuple[str, datetime]]) -> list[float]:
        """p_none to "None of these"; the rest ∝ alpha + prior count + recency-weighted phrase mentions."""
        outcomes = [o.strip().casefold() for o in question.outcomes]
        phrases = [tuple(tokens(o)) for o in question.outcomes]
        weights = list(prior)
        for text, when in texts:
            words = tokens(text)
            w = 0.5 ** (max(0.0, (as_of - when).total_seconds()) / 86400.0 / self.half_life_days)
            for k, phrase in enumerate(phrases):
                if outcomes[k] != _NONE and _phrase_count(words, phrase):
                    weights[k] += w
        shares = [0.0 if o == _NONE else self.alpha + weights[k] for k, o in enumerate(outcomes)]
        total = math.fsum(shares)
        probs = [p_none if o == _NONE else (1.0 - p_none) * s / total for o, s in zip(outcomes, shares, strict=True)]
        n = len(probs)
        return _mix(probs, [1.0 / n] * n, self._trust(events))


def _end_of(day: str) -> datetime:
    """A bare ISO date as its last second (UTC), the publication time of day-dated items."""
    return datetime.fromisoformat(day).replace(hour=23, minute=59, second=59, tzinfo=UTC)
