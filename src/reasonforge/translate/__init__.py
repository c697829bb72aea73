"""Translators: natural-language reasoning steps → formal artifacts (DESIGN §2, `translate/`)."""

from reasonforge.translate.code_blocks import CodeBlockTranslator
from reasonforge.translate.defaults import default_translator
from reasonforge.translate.english import EnglishParser, NoRule, tokenize
from reasonforge.translate.grounding import NotGroundable, ground_entailment
from reasonforge.translate.lexicon import Lexicon, predicate_name, singularize
from reasonforge.translate.logic import Givens, LogicTranslator, StepReading
from reasonforge.translate.protocol import Translator
from reasonforge.translate.sentences import QuerySplit, SentenceRole, sentence_role, split_query, split_sentences

__all__ = [
    "CodeBlockTranslator",
    "EnglishParser",
    "Givens",
    "Lexicon",
    "LogicTranslator",
    "NoRule",
    "NotGroundable",
    "QuerySplit",
    "SentenceRole",
    "StepReading",
    "Translator",
    "default_translator",
    "ground_entailment",
    "predicate_name",
    "sentence_role",
    "singularize",
    "split_query",
    "split_sentences",
    "tokenize",
]
