"""Grade a forecaster's day-zero reasoning against the market's hindsight ledger (score 0–4).

The score follows the design: an argument grade a ∈ {0, 1, 2} (does the text connect its evidence to
its probability? a list of headlines earns 0) plus a foresight term 2·|A∩K|/|K| over the key events K
that the reasoning anticipated (A); a = 0 makes the whole score 0. Two cases never reach a grader: a
reasoning under 50 characters scores 0, and a missing (absent or blank) reasoning is imputed the 25th
percentile of the other scores on that ledger (0 when nobody else was scored).

`grade_market` is the one function every grading path (CLI `grade` and `audit`, library callers) goes
through, so it applies the rules to the ledger's content whatever its origin: a ledger with fewer than
three counted developments (`models.counted_developments`: in the window, one per text and reference) is
excluded as `thin_ledger` even if nobody marked it, key events come from the counted developments and the
window's prices only, and the 50 characters are counted on `substantive_text` (whitespace, invisible
characters and repetition collapsed), so padding cannot lift a terse answer over the line.

Graders return only the parts (argument, per-event decisions, a reason); `grade_market` turns them
into the score, so the rules above hold for every grader. A grader that cannot produce a valid
judgement (an LLM that keeps answering malformed JSON) returns `argument=None`: the forecaster then
gets `total=None` and the error in `reason`, and is left out of `scores` — a score is never invented.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel, Field

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.embed import SentenceEmbedder
from reasonforge.forecast.ledger.key_events import key_events
from reasonforge.forecast.ledger.models import (
    Development,
    Forecast,
    Ledger,
    counted_developments,
    exclusion,
    window_end,
)

MIN_REASONING_CHARS = 50
MAX_REPEATED_NGRAM = 12
"""Longest run of words whose immediate repetition `substantive_text` collapses; longer repeats are
sentences, which it deduplicates whole."""
IMPUTE_PERCENTILE = 25.0
DEFAULT_THRESHOLD = 0.6
"""Cosine at which a reasoning sentence counts as anticipating an event; MiniLM paraphrases of one
event land around 0.65–0.8, same-topic but different-substance sentences around 0.3–0.55."""


class EventDecision(BaseModel):
    """Whether the reasoning anticipated one key event, with the sentence (or quote) that matched it."""

    event: Development
    anticipated: bool
    similarity: float | None = None
    matched_text: str = ""
    contradicted_text: str = ""
    """A sentence close to the event that asserted its opposite (offline grader): it earns no credit."""


class Assessment(BaseModel):
    """What a grader returns: the argument grade (None when it failed), per-event decisions and why."""

    argument: int | None = Field(default=None, ge=0, le=2)
    events: list[EventDecision] = []
    reason: str = ""


class Grade(BaseModel):
    """One forecaster's grade on one ledger; `total` is None only when the grader failed."""

    forecaster: str
    argument: int | None = Field(default=None, ge=0, le=2)
    anticipation: float | None = Field(default=None, ge=0.0, le=2.0)
    total: float | None = Field(default=None, ge=0.0, le=4.0)
    reason: str
    events: list[EventDecision] = []
    imputed: bool = False


class Grader(Protocol):
    """Anything that judges a reasoning against key events (offline embeddings or an LLM)."""

    name: str

    def grade(self, reasoning: str, events: list[Development]) -> Assessment:
        """Argument grade and per-event anticipation decisions for one reasoning."""
        ...


class GradeReport(BaseModel):
    """Every forecaster's grade on one market's ledger (`scores` holds the totals that exist)."""

    market_id: str
    excluded: Literal["thin_ledger"] | None = None
    key_events: list[Development] = []
    scores: dict[str, float] = {}
    details: dict[str, Grade] = {}


# --- offline argument grade ---------------------------------------------------------------------------

_PROBABILITY = re.compile(
    r"\b\d{1,3}(?:\.\d+)?\s?%|\b0?\.\d+\b|\bprobabilit(?:y|ies)\b|\blikel(?:y|ihood)\b|\bunlikely\b|\bodds\b"
    r"|\bchances?\b|\bprobabl[ey]\b|\bimprobable\b|\bconfiden(?:t|ce)\b|\bexpect(?:s|ed)?\b|\bbase rate\b"
    r"|\bfavou?rite\b|\bprice[sd]? in\b", re.IGNORECASE)
_CAUSAL = re.compile(
    r"\bbecause\b|\btherefore\b|\bthus\b|\bhence\b|\bsince\b|\bso\b|\bgiven (?:that|the)\b|\bdue to\b"
    r"|\bas a result\b|\bwhich means\b|\bmeaning\b|\bimpl(?:y|ies)\b|\bsuggests?\b|\bindicates?\b|\bif\b"
    r"|\bleads? to\b|\bdriven by\b|\b(?:raises?|lowers?|increases?|decreases?|reduces?|boosts?|outweighs?)\b"
    r"|\bwhich (?:makes|puts|pushes|keeps)\b|\bconsequently\b|\bunless\b", re.IGNORECASE)
_EVIDENCE = re.compile(
    r"\b(?:reported|reports?|according to|announced|said|says|stated|confirmed|poll(?:s|ing)?|data|survey"
    r"|statement|filed|ruled|voted|official(?:s|ly)?|sources?)\b|\b(?:19|20)\d\d\b"
    r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d", re.IGNORECASE)
# A named actor mid-sentence (a capitalised word after a lower-case one) or a figure also cites evidence.
_NAMED = re.compile(r"[a-z,;:]\s+[A-Z][a-z]+|\b\d[\d,.]*\b")
# Words that deny what their clause says. Embeddings place "X will not happen" next to "X happened"
# (cosine 0.7–0.8 with MiniLM), so a denial must be caught by its words, not its vector.
_DENIAL = re.compile(
    r"\b(?:not|no|never|none|neither|nor|cannot|without|unlikely|doubts?|doubtful|ruled? out|rules out"
    r"|fail(?:s|ed)? to)\b|n[’']t\b", re.IGNORECASE)
# Clause boundaries: a denial in "because Hungary has not sealed its border" says nothing about the
# main clause "Germany will reintroduce controls".
_CLAUSE = re.compile(
    r"[,;:()—–]|\s-\s|\b(?:because|since|although|though|whereas|while|but|so that|which|unless)\b", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    """Sentences and list items of a reasoning (a headline list yields one item per line)."""
    parts = re.split(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])|\n+|\s+[•·]\s+", text)
    return [p.strip(" -*•·\t") for p in parts if len(p.strip(" -*•·\t")) >= 3]


# Coordinators that join the conjuncts of a clause. A denial's scope is its own conjunct: "Russia will not
# move jets and will not launch strikes" holds two denials, one per conjunct, not a double negation.
_COORDINATOR = re.compile(r"\b(and|or|nor)\b", re.IGNORECASE)
# A conjunct that opens with a subject of its own ("and the rebels advance") or with its own verb group
# ("and will launch strikes") does not inherit the previous conjunct's denial.
_SUBJECT_START = frozenset({
    "i", "you", "he", "she", "it", "we", "they", "there", "this", "that", "these", "those", "the", "a", "an", "its",
    "their", "his", "her", "our", "my", "your", "one", "some"})
_AUXILIARY = frozenset({
    "will", "would", "shall", "should", "can", "could", "may", "might", "must", "is", "are", "was", "were", "be",
    "been", "has", "have", "had", "does", "do", "did", "won't", "can't", "cannot"})
MIN_CLAUSE_WORDS = 3


def _denial_count(text: str) -> int:
    # "nor" continues a denial ("neither A nor B"): it is the coordinator of the next conjunct, not a flip.
    return sum(1 for m in _DENIAL.finditer(text) if m.group(0).casefold() != "nor")


def denies(text: str) -> bool:
    """Whether `text` asserts the opposite of its content: an odd number of denial words ("nor" excepted)."""
    return _denial_count(text) % 2 == 1


def clauses(sentence: str) -> list[str]:
    """The sentence's clauses of at least three words (the whole sentence when it has none)."""
    parts = [p.strip() for p in _CLAUSE.split(sentence)]
    return [p for p in parts if len(p.split()) >= MIN_CLAUSE_WORDS] or [sentence]


def polarity_units(sentence: str) -> list[tuple[str, bool]]:
    """The sentence's clauses cut into conjuncts at and/or/nor, each with whether it denies what it says.

    A conjunct with denial words of its own counts them (an odd number denies). One without inherits the
    denial of the conjunct before it when joined by "or" ("won't A or B" denies both) or by "and" while it
    continues the same verb group ("will not send jets and tanks"); a conjunct after "nor" is denied
    ("neither A nor B"). A conjunct without a subject of its own is read with the clause's subject (the
    words before its first auxiliary or denial: "Russia will not A and will not B" gives "Russia will not
    B"), so it is matched as the proposition it states. Conjuncts under three words stay with their
    neighbour ("Russia and Syria sign a pact" is one).
    """
    units: list[tuple[str, bool]] = []
    for clause in clauses(sentence):
        pieces = [piece.strip() for piece in _COORDINATOR.split(clause)]
        # pieces alternate text, coordinator, text, …; short pieces are glued back to the one before.
        texts: list[str] = [pieces[0]]
        joins: list[str] = [""]
        for joiner, text in zip(pieces[1::2], pieces[2::2], strict=True):
            if len(text.split()) < MIN_CLAUSE_WORDS or len(texts[-1].split()) < MIN_CLAUSE_WORDS:
                texts[-1] = " ".join(part for part in (texts[-1], joiner, text) if part)
            else:
                texts.append(text)
                joins.append(joiner.casefold())
        subject = _subject(texts[0])
        previous = False
        for text, joiner in zip(texts, joins, strict=True):
            own = _denial_count(text)
            first = (text.split() or [""])[0]
            new_subject = first[:1].isupper() or first.casefold() in _SUBJECT_START
            if joiner == "nor":
                denied = own % 2 == 0
            elif own or not joiner or new_subject or first.casefold() in _AUXILIARY:
                denied = own % 2 == 1
            else:
                denied = previous
            units.append((f"{subject} {text}" if joiner and subject and not new_subject else text, denied))
            previous = denied
    return units


def _subject(conjunct: str) -> str:
    """The words before the conjunct's first auxiliary or denial word ("Russia will not …" → "Russia"); ""
    when it opens with one or has none (no subject to carry)."""
    words = conjunct.split()
    for n, word in enumerate(words):
        if word.casefold() in _AUXILIARY or _DENIAL.search(word):
            return " ".join(words[:n])
    return ""


def argument_grade(reasoning: str) -> tuple[int, str]:
    """0: no link between evidence and probability; 1: some reasoning; 2: probability tied to evidence causally."""
    sentences = split_sentences(reasoning)
    causal = [s for s in sentences if _CAUSAL.search(s)]
    if not causal:
        return 0, "no causal connective links the facts to the forecast (a list of statements earns 0)"
    evidence = any(_EVIDENCE.search(s) or _NAMED.search(s) for s in sentences)
    tied = [s for s in causal if _PROBABILITY.search(s)]
    if tied and evidence:
        return 2, f"probability language tied causally to cited evidence, e.g. “{tied[0][:160]}”"
    missing = "no probability or likelihood language in a causal sentence" if not tied else "no concrete evidence cited"
    return 1, f"some reasoning ({len(causal)} causal sentence(s)) but {missing}"


class OfflineGrader:
    """Argument grade from explicit probability language, causal connectives and evidence references;
    an event is anticipated when some reasoning sentence has embedding cosine ≥ threshold with it and
    does not deny it (the sentence's clause closest to the event carries the opposite polarity)."""

    name = "offline"

    def __init__(self, threshold: float = DEFAULT_THRESHOLD, embedder: SentenceEmbedder | None = None) -> None:
        if not 0.0 < threshold <= 1.0:
            raise InputError(f"similarity threshold {threshold} is outside (0, 1]; pass e.g. 0.6", field="threshold")
        self.threshold = threshold
        self.embedder = embedder or SentenceEmbedder()

    def grade(self, reasoning: str, events: list[Development]) -> Assessment:
        """Argument grade plus, per event, the best-matching sentence and its cosine."""
        argument, reason = argument_grade(reasoning)
        sentences = split_sentences(reasoning) or [reasoning.strip()]
        decisions: list[EventDecision] = []
        if events:
            sentence_parts = [polarity_units(s) for s in sentences]
            event_parts = [polarity_units(e.text) for e in events]
            texts = [*sentences, *(e.text for e in events),
                     *(text for text, _ in _flatten(sentence_parts)), *(text for text, _ in _flatten(event_parts))]
            vectors = self.embedder.embed(texts)
            sims = vectors[len(sentences):len(sentences) + len(events)] @ vectors[:len(sentences)].T
            parts = _split_rows(vectors[len(sentences) + len(events):], sentence_parts + event_parts)
            for j, (event, row) in enumerate(zip(events, sims, strict=True)):
                decisions.append(self._decide(event, row, sentences, sentence_parts, event_parts[j],
                                              parts[:len(sentences)], parts[len(sentences) + j]))
        return Assessment(argument=argument, events=decisions, reason=reason)

    def _decide(self, event: Development, row: np.ndarray, sentences: list[str],
                sentence_parts: list[list[tuple[str, bool]]], event_part: list[tuple[str, bool]],
                sentence_vectors: list[np.ndarray], event_vectors: np.ndarray) -> EventDecision:
        """The most similar sentence that does not deny the event; denying ones above threshold earn nothing.

        Polarity is compared on the closest pair of conjuncts (`polarity_units`, one from the sentence, one
        from the event): the parts of the two texts that speak of the same thing.
        """
        contradicted = ""
        for index in np.argsort(-row, kind="stable"):
            similarity = round(float(row[index]), 4)
            pair = sentence_vectors[index] @ event_vectors.T
            mine, theirs = np.unravel_index(int(np.argmax(pair)), pair.shape)
            if similarity < self.threshold or sentence_parts[index][mine][1] == event_part[theirs][1]:
                return EventDecision(event=event, anticipated=similarity >= self.threshold, similarity=similarity,
                                     matched_text=sentences[index], contradicted_text=contradicted)
            contradicted = contradicted or sentences[index]
        return EventDecision(event=event, anticipated=False, similarity=round(float(row.max()), 4),
                             contradicted_text=contradicted)


def _flatten(groups: list[list[tuple[str, bool]]]) -> list[tuple[str, bool]]:
    return [item for group in groups for item in group]


def _split_rows(matrix: np.ndarray, groups: list[list[tuple[str, bool]]]) -> list[np.ndarray]:
    """`matrix` rows cut into one block per group, in order (the inverse of `_flatten`)."""
    bounds = np.cumsum([len(g) for g in groups])[:-1]
    return np.split(matrix, bounds)


# --- the 50-character rule -------------------------------------------------------------------------------

def _visible(text: str) -> str:
    """NFKC text with whitespace as single spaces, control/format characters (zero-width spaces, BOMs)
    dropped and stacks of combining marks cut to two."""
    out: list[str] = []
    marks = 0
    for ch in unicodedata.normalize("NFKC", text):
        kind = unicodedata.category(ch)
        if ch.isspace():
            ch = " "
        elif kind[0] == "C":
            continue
        marks = marks + 1 if kind[0] == "M" else 0
        if marks <= 2:
            out.append(ch)
    return " ".join("".join(out).split())


def _collapse_ngrams(words: list[str]) -> list[str]:
    """Immediately repeated runs of 1..MAX_REPEATED_NGRAM words kept once ("yes yes yes" → "yes")."""
    folded = [w.casefold() for w in words]
    changed = True
    while changed:
        changed = False
        for n in range(1, min(MAX_REPEATED_NGRAM, len(words) // 2) + 1):
            i = 0
            while i + 2 * n <= len(words):
                if folded[i:i + n] == folded[i + n:i + 2 * n]:
                    del words[i + n:i + 2 * n], folded[i + n:i + 2 * n]
                    changed = True
                else:
                    i += 1
    return words


def substantive_text(reasoning: str) -> str:
    """The reasoning as the 50-character rule counts it: padding (whitespace, invisible characters, runs of
    one character, repeated words, phrases or sentences) collapsed to a single occurrence."""
    text = _visible(reasoning)
    # "!!!!!!" → "!", "nooooo" → "noo": no word needs a letter three times in a row; digits are content.
    text = re.sub(r"([^\w\s])\1+", r"\1", text)
    text = re.sub(r"([^\W\d_])\1{2,}", r"\1\1", text)
    # "YesYesYes" (words glued by a dropped zero-width space) → "Yes"; a unit starts with a letter, so
    # numbers such as 1000000 are kept.
    text = re.sub(r"([^\W\d_]\S+?)\1+", r"\1", text)
    words = _collapse_ngrams(text.split())
    seen: set[str] = set()
    kept: list[str] = []
    for sentence in re.split(r"(?<=[.!?;])\s+", " ".join(words)):
        key = " ".join(re.findall(r"\w+", sentence.casefold())) or sentence
        if key not in seen:
            seen.add(key)
            kept.append(sentence)
    return " ".join(kept).strip()


# --- scoring -------------------------------------------------------------------------------------------

def _canonical(events: list[Development]) -> list[Development]:
    # A fixed order so the grade never depends on how the ledger happened to list its developments.
    return sorted(events, key=lambda e: (e.date, e.text, e.source, e.ref))


def score_assessment(forecaster: str, assessment: Assessment, key: list[Development]) -> Grade:
    """Apply the design's formula: 0 if a = 0, else a + 2·|A∩K|/|K| (foresight 0 when K is empty)."""
    if assessment.argument is None:
        return Grade(forecaster=forecaster, reason=assessment.reason or "grader returned no argument grade",
                     events=assessment.events)
    key_texts = {(e.date, e.text) for e in key}
    hit = {(d.event.date, d.event.text) for d in assessment.events if d.anticipated} & key_texts
    anticipation = 2.0 * len(hit) / len(key) if key else 0.0
    total = 0.0 if assessment.argument == 0 else assessment.argument + anticipation
    return Grade(forecaster=forecaster, argument=assessment.argument, anticipation=round(anticipation, 6),
                 total=round(total, 6), reason=assessment.reason, events=assessment.events)


def window_view(ledger: Ledger) -> Ledger:
    """The ledger as graded: its counted developments and its prices up to the window's last day."""
    end = window_end(ledger.day_zero, ledger.window_days)
    return ledger.model_copy(update={"developments": counted_developments(ledger),
                                     "price_path": [p for p in ledger.price_path if p.date <= end]})


def grade_market(ledger: Ledger, forecasts: list[Forecast], grader: Grader | None = None) -> GradeReport:
    """Grade every forecaster's reasoning against the same ledger and key events (thin ledger → excluded)."""
    names = [f.forecaster for f in forecasts]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InputError(f"forecaster(s) {', '.join(duplicates)} appear more than once in the forecasts; "
                         "keep one reasoning per forecaster and market", field="forecaster")
    # Decided from the content, not the stored flag alone: a hand-written ledger may say nothing.
    excluded = exclusion(ledger)
    if excluded is not None:
        return GradeReport(market_id=ledger.market_id, excluded=excluded)
    # Developments or price moves outside the window (or copies of one event) must not become key events.
    key = _canonical(key_events(window_view(ledger)))
    details: dict[str, Grade] = {}
    missing: list[str] = []
    for forecast in forecasts:
        text = (forecast.reasoning or "").strip()
        counted = len(substantive_text(text))
        if counted == 0:
            missing.append(forecast.forecaster)
        elif counted < MIN_REASONING_CHARS:
            details[forecast.forecaster] = Grade(
                forecaster=forecast.forecaster, argument=0, anticipation=0.0, total=0.0,
                reason=f"reasoning has {counted} characters once padding and repetition are collapsed, under "
                       f"{MIN_REASONING_CHARS}: scores 0 without grading")
        else:
            grader = grader or OfflineGrader()
            details[forecast.forecaster] = score_assessment(forecast.forecaster, grader.grade(text, key), key)
    # The population is every score on this ledger that was not itself imputed (short ones' 0 included);
    # a grader failure has no score and is left out.
    scored = [g.total for g in details.values() if g.total is not None]
    imputed = float(np.percentile(scored, IMPUTE_PERCENTILE)) if scored else 0.0  # linear interpolation
    for name in missing:
        details[name] = Grade(forecaster=name, total=round(imputed, 6), imputed=True,
                              reason=f"no reasoning: imputed the {IMPUTE_PERCENTILE:g}th percentile of "
                                     f"{len(scored)} other score(s) on this ledger")
    ordered = {n: details[n] for n in names}
    return GradeReport(market_id=ledger.market_id, key_events=key, details=ordered,
                       scores={n: g.total for n, g in ordered.items() if g.total is not None})


def resolve_grader(spec: str | None = None, *, model: str | None = None, seed: int = 0) -> Grader:
    """`offline` (or None) → OfflineGrader; a base URL or chat model name → LLMGrader."""
    if spec is None or spec.strip().lower() == "offline":
        return OfflineGrader()
    # imported late: llm_grader imports this module
    from reasonforge.forecast.ledger.llm_grader import LLMGrader

    return LLMGrader(spec, model=model, seed=seed)


def __getattr__(name: str) -> object:
    """`grade.LLMGrader` resolves lazily (it lives in llm_grader, which imports this module)."""
    if name == "LLMGrader":
        from reasonforge.forecast.ledger.llm_grader import LLMGrader

        return LLMGrader
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
