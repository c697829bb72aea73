"""Sentence-level text handling: splitting, question detection and conclusion markers."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

# A sentence ends at "." followed (after any closing quotes or brackets) by space and a capital, a digit, a quote
# or a bracket; common abbreviations ("Mr.", "e.g.") and decimals ("3.5") do not end one. "?" and "!" end a
# sentence before any space, whatever follows: "Is Rex a cat? rex is a dog." is a question and a sentence.
_ABBREVIATIONS = ("mr", "mrs", "ms", "dr", "st", "prof", "e.g", "i.e", "etc", "vs", "no")
_CLOSERS = "\"'\u201d\u2019)\\]"
_BOUNDARY = re.compile(r"([.!?]+)([" + _CLOSERS + r"]*)\s+(?=(\S))")
_OPENS = re.compile(r"[\"'\u201c\u2018A-Z0-9(\[]")
# A question ends at "?" (and the closing quotes or brackets after it): it is never a given, wherever it stands.
_QUESTION_END = re.compile(r"\?[?!]*[" + _CLOSERS + r"]*")
# Words that open a question even without its "?": none of them can open a sentence the parser reads (each is a
# function word there), so taking such a sentence for a question never hides a given.
_INTERROGATIVES = frozenset(["is", "are", "am", "was", "were", "do", "does", "did", "can", "could", "will", "would",
                             "shall", "should", "may", "might", "must", "has", "have", "had", "who", "what", "which",
                             "whom", "whose", "why", "how", "where"])

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
        punctuation, following = match.group(1), match.group(3)
        final = "?" in punctuation or "!" in punctuation
        if not final and not _OPENS.match(following):
            continue
        candidate = text[start : match.end(2)].strip()
        last_word = candidate.rsplit(None, 1)[-1].rstrip(".").lower() if candidate else ""
        if not final and last_word in _ABBREVIATIONS:
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
    """Separate theory sentences from questions ("True or false: X." → statement X) in a problem text.

    A question is never theory: every span that ends with "?" (a closing quote or bracket after it included, so
    `"Is Rex a cat?"` too), wherever it stands in the text or in a sentence, and every sentence that opens with an
    interrogative word ("Is", "Does", "Could", "Will", "Which", …) even without its "?"."""
    theory: list[str] = []
    questions: list[str] = []
    statements: list[str] = []

    def sort(span: str) -> None:
        for sentence in split_sentences(span):
            for piece, asked in _question_pieces(sentence):
                (questions if asked else theory).append(piece)

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
        sort(before)
        remaining = after[after.find(statement) + len(statement) :] if statement else ""
    sort(remaining)
    return QuerySplit(theory=theory, questions=questions, statements=statements)


def _question_pieces(sentence: str) -> list[tuple[str, bool]]:
    """The sentence cut after each "?" (with its closing quotes): (piece, is a question) in order."""
    pieces: list[tuple[str, bool]] = []
    start = 0
    for match in _QUESTION_END.finditer(sentence):
        piece = sentence[start : match.end()].strip()
        if re.search(r"\w", piece):
            pieces.append((piece, True))
        start = match.end()
    rest = sentence[start:].strip()
    if re.search(r"\w", rest):  # punctuation left after a question ("?)." ) is nothing to read
        first = re.match(r"[\W_]*([A-Za-z]+)", rest)
        pieces.append((rest, first is not None and first.group(1).lower() in _INTERROGATIVES))
    return pieces


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
