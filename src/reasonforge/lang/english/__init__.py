"""Controlled English: the lexicon, sentence splitting and roles, the rule-based parser into first-order formulas,
and the reader of a chain's givens and steps (`EnglishReader`)."""

from reasonforge.lang.english.lexicon import Lexicon, predicate_name, singularize
from reasonforge.lang.english.parser import Ambiguous, EnglishParser, NoRule, normalize, tokenize
from reasonforge.lang.english.reading import ClaimPart, ClaimRole, EnglishReader, Givens, StepReading, StepScope, unique
from reasonforge.lang.english.sentences import (
    QuerySplit,
    SentenceRole,
    sentence_role,
    split_query,
    split_sentences,
)

__all__ = [
    "Ambiguous", "ClaimPart", "ClaimRole", "EnglishParser", "EnglishReader", "Givens", "Lexicon", "NoRule",
    "QuerySplit", "SentenceRole", "StepReading", "StepScope", "normalize", "predicate_name", "sentence_role",
    "singularize", "split_query", "split_sentences", "tokenize", "unique",
]
