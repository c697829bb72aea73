"""Sentence-level text handling: splitting, question detection and conclusion markers."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

# A sentence ends at . ! ? followed by space and a capital, a digit or a quote; common abbreviations
# ("Mr.", "e.g.") and decimals ("3.5") do not end one.
_ABBREVIATIONS = ("mr", "mrs", "ms", "dr", "st", "prof", "e.g", "i.e", "etc", "vs", "no")
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[\"'A-Z0-9(])")

# The benchmark question forms; what follows the prefix (up to the sentence end) is the statement.
_QUESTION_PREFIX = re.compile(
    r"(?:true\s+or\s+false\s*[:?]"
    r"|is\s+the\s+following\s+(?:statement\s+)?true(?:\s*,\s*false\s*,?)?\s+or\s+(?:false|unknown)\s*\?"
    r"|(?:based\s+on\s+the\s+above\s+information\s*,\s*)?is\s+the\s+following\s+statement\s+true\s*,"
    r"\s*false\s*,?\s*or\s+unknown\s*\?)\s*",
    re.IGNORECASE,
)

_MARKERS = (
    "therefore", "so", "hence", "thus", "consequently", "accordingly", "it follows that",
    "we conclude that", "this means that", "which means that", "as a result", "in conclusion",
)
_LEADING_MARKER = re.compile(
    r"^(?:" + "|".join(re.escape(m) for m in sorted(_MARKERS, key=len, reverse=True)) + r")\b\s*,?\s*",
    re.IGNORECASE,
)
_INNER_MARKER = re.compile(r",\s*(?:and\s+)?(?:therefore|so|hence|thus|consequently)\b\s*,?\s*", re.IGNORECASE)
# The reason words are found by plain searches and the text cut around them: patterns such as
# `^(.+?)\s*,?\s+because` backtrack cubically on a long run of spaces (72 s for 2,000 of them).
_SINCE = re.compile(r"(?:since|because|as|given\s+that)\s", re.IGNORECASE)
_BECAUSE = re.compile(r"\s(?:because|since)\s", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences, keeping their final punctuation."""
    pieces: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        candidate = text[start : match.start()].strip()
        last_word = candidate.rsplit(None, 1)[-1].rstrip(".").lower() if candidate else ""
        if last_word in _ABBREVIATIONS:
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in (piece.strip() for piece in pieces) if p]


class QuerySplit(BaseModel):
    """A problem text split into its theory sentences and the statements its questions ask about."""

    model_config = ConfigDict(frozen=True)

    theory: list[str]
    questions: list[str]
    statements: list[str]


def split_query(text: str) -> QuerySplit:
    """Separate theory sentences from questions ("True or false: X." → statement X) in a problem text."""
    theory: list[str] = []
    questions: list[str] = []
    statements: list[str] = []
    remaining = text
    while True:
        match = _QUESTION_PREFIX.search(remaining)
        if match is None:
            break
        before, after = remaining[: match.start()], remaining[match.end() :]
        statement_sentences = split_sentences(after)
        statement = statement_sentences[0] if statement_sentences else ""
        questions.append((match.group(0) + statement).strip())
        if statement:
            statements.append(statement)
        theory.extend(split_sentences(before))
        remaining = after[after.find(statement) + len(statement) :] if statement else ""
    for sentence in split_sentences(remaining):
        (questions if sentence.endswith("?") else theory).append(sentence)
    return QuerySplit(theory=theory, questions=questions, statements=statements)


class SentenceRole(BaseModel):
    """How one sentence of a step contributes: its reasons ("Since A, …") and its claim, marked as a conclusion
    or not. Both are things the step asserts (the translator checks both; see translate.logic)."""

    model_config = ConfigDict(frozen=True)

    premises: list[str]
    claim: str
    marked: bool


def sentence_role(sentence: str) -> SentenceRole:
    """Split off conclusion markers ("Therefore, X") and reasons ("Since A, B" / "B because A").

    The reasons are `premises` in the grammatical sense only: the translator checks them like the claim."""
    text = sentence.strip()
    marked = False
    while (leading := _LEADING_MARKER.match(text)) and leading.end() < len(text):  # "Therefore, since A, B"
        text, marked = text[leading.end() :].strip(), True
    inner = _INNER_MARKER.search(text)
    if inner and inner.start() > 0 and text[inner.end() :].strip():  # "Rex , so" has no claim after the marker
        return SentenceRole(premises=[text[: inner.start()]], claim=text[inner.end() :], marked=True)
    since = _SINCE.match(text)
    if since:
        reason, comma, claim = text[since.end() :].partition(",")
        if comma and reason.strip() and claim.strip():
            return SentenceRole(premises=[reason.strip()], claim=claim.strip(), marked=True)
    because = _BECAUSE.search(text)
    if because:
        claim, reason = text[: because.start()].rstrip().removesuffix(",").rstrip(), text[because.end() :].strip()
        if claim and reason:
            return SentenceRole(premises=[reason], claim=claim, marked=True)
    return SentenceRole(premises=[], claim=text, marked=marked)
