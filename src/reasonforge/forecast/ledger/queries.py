"""Offline search queries from a market title: one keyword query plus its capitalised entity phrases.

"European migrant crisis: will Hungary close its border?" gives the keyword query
"european migrant crisis hungary close border" and the entity phrases "European", "Hungary". No model,
no network: the same title always gives the same queries.
"""

from __future__ import annotations

import re

_STOPWORD_TEXT = """
a about above after again against all also am an and any are as at be been before being below between both
but by can could did do does doing down during each either end few for from further had has have having he
her here hers him his how i if in into is it its itself just less many may me might more most much must my
no nor not now of off on once only or other our out over own per same shall she should so some such than
that the their them then there these they this those through to too under until up upon very was we were
what when where whether which while who whom why will with within without would yes yet you your
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Words too common to search for (lowercase); question words and modal verbs included."""

CONNECTORS = frozenset({"of", "the", "de", "and", "for", "van", "von", "al", "bin"})
"""Lowercase words allowed inside an entity phrase ("Islamic State of Iraq", "Bank of England")."""

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’.-]*[A-Za-z0-9]|[A-Za-z0-9]")
_POSSESSIVE = re.compile(r"['’]s$")
MAX_ENTITIES = 8


def keywords(text: str) -> list[str]:
    """Lowercase content words of `text` (length ≥ 2, not stopwords), distinct, in order of appearance."""
    words = [_POSSESSIVE.sub("", w.lower()).strip("'’.-") for w in _WORD.findall(text)]
    return list(dict.fromkeys(w for w in words if len(w) >= 2 and w not in STOPWORDS and not w.isdigit()))


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word.lower() not in STOPWORDS


def entity_phrases(text: str) -> list[str]:
    """Runs of capitalised words (joined by connectors like "of"), distinct, in order of appearance."""
    phrases: list[str] = []
    for chunk in re.split(r"[:;,.?!()\"“”]+", text):
        words = _WORD.findall(chunk)
        run: list[str] = []
        for word in [*words, ""]:
            if word and (_capitalised(word) or (run and word.lower() in CONNECTORS)):
                run.append(word)
                continue
            while run and run[-1].lower() in CONNECTORS:  # "Bank of" → "Bank"
                run.pop()
            if run:
                phrases.append(_POSSESSIVE.sub("", " ".join(run)))
            run = []
    seen: dict[str, str] = {}
    for phrase in phrases:
        seen.setdefault(phrase.lower(), phrase)
    return list(seen.values())[:MAX_ENTITIES]


def offline_queries(title: str, description: str = "") -> list[str]:
    """The keyword query of `title`, then each entity phrase of the title (description adds nothing yet)."""
    del description  # the title names the question; descriptions are mostly resolution boilerplate
    queries = []
    words = keywords(title)
    if words:
        queries.append(" ".join(words))
    queries.extend(entity_phrases(title))
    return list(dict.fromkeys(q for q in queries if q.strip()))
