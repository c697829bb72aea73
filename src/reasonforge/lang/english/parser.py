"""Controlled English → first-order formula, by explicit rules only (no rule, no formula: never a guess).

Covered: quantified sentences (All/Every/Each/Any/No/Some/
Not all X are/is (not) Y), bare plurals ("Whales are mammals"), named individuals ("Fae is a cat",
"127 is a Mersenne prime", "The bear needs the lion"), "something/someone/it/they" variables in
conditionals, If…then, …if…, only if, if and only if, and/or/either…or/neither…nor, "it is not the
case that", relative clauses ("Everything that is big is red") and ProofWriter's relation sentences.

Readings chosen where English is ambiguous (each documented in tests):
- "Every X is not P" / "All X are not P" = ∀x (X(x) → ¬P(x)) (PrOntoQA's reading, not ¬∀).
- "either A or B" = A ⊕ B by default (FOLIO's convention); `either_or="inclusive"` gives A ∨ B.
- A noun phrase is one predicate: "prime number" → PrimeNumber, distinct from the adjective Prime.
  Adjectives in front of "thing(s)"/"one(s)" (and "people"/"person" when modified) are separate
  predicates with no noun: "Red, cold things are round" → ∀x (Red(x) ∧ Cold(x) → Round(x)).
- A sentence-level "A cat is an animal" is generic: ∀x (Cat(x) → Animal(x)).
- A definite description is its own individual: "the cat" is `the_cat`, never the individual named Cat (`cat`), so
  "The cat is a dog" says nothing about Cat.

Scope and coordination are read as English reads them, or refused (`Ambiguous`, a `NoRule`: the step is then
unsupported, never given a formula that says something else):
- "not" before a list: "is not a cat or a dog" = ¬(Cat ∨ Dog) (neither); "is not big and red" has two readings
  (¬Big ∧ Red, ¬(Big ∧ Red)) and is refused: write "not big and not red" or "not both big and red". A "not"
  that every item carries, or that only a later item carries ("big and not red"), binds to its item.
- "and" and "or" mixed in one list or between clauses without "either"/"both" are refused.
- Coordinated kinds are read one kind at a time: "Cats and dogs are animals" / "Every cat and dog is an animal" =
  ∀x (Cat(x) → Animal(x)) ∧ ∀x (Dog(x) → Animal(x)); stacked adjectives stay one kind ("Big, red dogs",
  "Big and red dogs"); "Rex and Tom are cats" = Cat(rex) ∧ Cat(tom). Where kinds and adjectives cannot be told
  apart ("Every big and red dog", "No cats and dogs", a relative clause after coordinated kinds) it is refused.
- Prose negation ("It is not the case that", "It is not true that", "It is false that") scopes over one clause
  (which may list properties or names) or over "both A and B"; over a conditional, over "either … or" or over
  several clauses its scope is ambiguous and it is refused. A doubled "not" ("is not not a cat") is refused.
- "unless", "only" (outside "only if"), "few", "many" and other words that change a sentence's meaning without
  a rule here (hedges, times such as "today" or "anymore", prepositions such as "without") are never read as
  content words, so the sentence is refused rather than misread ("a dog without doubt" is no predicate
  DogWithoutDoubt). A question ("?") asserts nothing and is refused.

Identifiers: text is read in NFKC form, and only ASCII words are read; a word with any other letter (a Cyrillic
"а" in "Rех", a Greek "ο") is refused with the script named, so a reader cannot be shown one name and the solver
handed another.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from reasonforge.lang.english.lexicon import (
    IRREGULAR_PLURALS,
    VARIABLE_NAMES,
    Lexicon,
    constant_name,
    looks_plural,
    predicate_name,
    singularize,
    third_person,
)
from reasonforge.lang.logic import Atom, Const, Formula, Iff, Implies, Not, Or, Term, Var, Xor
from reasonforge.lang.logic.formulas import conj, disj, exists, forall, free_vars


class NoRule(Exception):
    """The sentence (or a part of it) matches no translation rule; the message says which part."""


class Ambiguous(NoRule):
    """The sentence (or a part of it) has more than one reading in English, so no formula is given."""


_CONTRACTIONS = {
    "isn't": ("is", "not"), "aren't": ("are", "not"), "doesn't": ("does", "not"),
    "don't": ("do", "not"), "wasn't": ("was", "not"), "weren't": ("were", "not"),
    "it's": ("it", "is"),
}
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'’][A-Za-z0-9]+)*|,|\S")

_UNIVERSAL = {"all", "every", "each", "any"}
_INDEFINITE_PRONOUNS = {"something", "someone", "somebody", "anything", "anyone", "anybody"}
_UNIVERSAL_PRONOUNS = {"everything", "everyone", "everybody"}
_NEGATIVE_PRONOUNS = {"nothing", "nobody"}
_PRONOUNS = {"it", "they", "he", "she", "itself", "them", "him", "her", "themselves"}
_GENERIC_HEADS = {"thing", "things", "one", "ones"}
_PERSON_HEADS = {"people", "person", "persons"}
_RELATIVE = {"that", "who", "which"}
# Words that are never a noun, adjective, name or verb by themselves: seeing one where content is
# expected means the sentence is outside the rules ("made of cheese", "very big", "might be").
_FUNCTION_WORDS = frozenset(
    ["a", "an", "the", "all", "every", "each", "any", "no", "some", "not", "none", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doesn't", "don't", "has", "have", "had", "if", "then", "else", "and", "or", "nor", "either", "neither", "both", "but", "because", "since", "so", "therefore", "hence", "thus", "it", "they", "he", "she", "itself", "them", "him", "her", "themselves", "its", "their", "this", "that", "these", "those", "who", "which", "what", "whom", "whose", "where", "when", "why", "how", "than", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "onto", "about", "as", "very", "really", "quite", "also", "too", "only", "just", "always", "never", "sometimes", "often", "usually", "rarely", "probably", "possibly", "maybe", "perhaps", "likely", "unlikely", "might", "may", "can", "could", "should", "would", "must", "will", "shall", "more", "most", "less", "least", "same", "other", "another", "such", "something", "someone", "somebody", "anything", "anyone", "anybody", "everything", "everyone", "everybody", "nothing", "nobody", "case", "true", "false",
     # words that change what a sentence says and that no rule reads: refused, never taken as a name or property
     "unless", "except", "although", "though", "whether", "otherwise", "yet", "even", "few", "many", "several",
     "much", "enough", "half", "almost", "nearly", "hardly", "barely", "scarcely", "seldom", "cannot", "untrue",
     "suppose", "supposing", "assume", "assuming", "let", "given", "say", "now", "ergo", "indeed", "we", "i", "you",
     "us", "our", "my", "your", "instead", "rather", "falsely", "wrongly", "formerly", "allegedly", "supposedly",
     "mostly", "mainly", "partly", "merely", "surely", "certainly", "definitely", "truly", "simply", "purely",
     "largely", "roughly", "highly", "slightly", "fairly", "entirely", "completely", "absolutely", "commonly",
     "somewhat", "certain", "various", "numerous",
     # when, where and how often (read into a noun phrase they would make a predicate "CatToday" that no rule
     # relates to Cat, and a step would be refuted for what the reader did not read)
     "today", "yesterday", "tomorrow", "tonight", "anymore", "again", "still", "already", "ever",
     "once", "twice", "lately", "later", "soon", "nowadays", "here", "there", "together", "alone",
     "without", "within", "against", "despite", "unlike", "besides", "beyond", "under", "over", "above", "below",
     "near", "behind", "through", "across", "around", "after", "before", "during", "until", "upon", "inside",
     "outside", "toward", "towards", "via", "per", "between", "among", "whereas", "while", "whilst"]
)
# Counts: "Two cats are black" is no rule about a kind "two cats" (as a name, "Two is positive" is read).
_NUMBER_WORDS = frozenset(["zero", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                           "twelve", "dozen", "dozens", "hundred", "hundreds", "thousand", "thousands", "million",
                           "millions", "billion", "couple"])
_NEGATIVES = frozenset(["not", "no", "never", "neither", "nor", "none", "nothing", "nobody"])
_WORD = re.compile(r"^[a-z0-9][a-z0-9-]*$")  # no apostrophes: possessives ("Bob's cat") have no rule
# Longest sentence read, in tokens: the benchmarks' longest is 64 (FOLIO), 21 (PrOntoQA, ProofWriter); trying
# every split of a longer one costs time that grows with its cube, for text no controlled English needs.
MAX_TOKENS = 150
# Sentence prefixes that negate (or affirm) the clause after them.
_PROSE_PREFIXES = (
    (["it", "is", "not", "the", "case", "that"], True),
    (["it", "is", "not", "true", "that"], True),
    (["it", "is", "false", "that"], True),
    (["it", "is", "untrue", "that"], True),
    (["it", "is", "true", "that"], False),
    (["it", "is", "the", "case", "that"], False),
)


def normalize(text: str) -> str:
    """`text` in NFKC form (full-width letters, ligatures and the like become the letters a reader sees)."""
    return unicodedata.normalize("NFKC", text)


def identifier_problem(text: str) -> str | None:
    """Why a word of `text` (NFKC) cannot be read as an identifier: a non-ASCII or invisible character, or None."""
    if text.isascii():
        return None
    for word in re.findall(r"\w+", text):
        if word.isascii():
            continue
        scripts = dict.fromkeys(_script(ch) for ch in word if not ch.isascii())
        letters = ", ".join(f"{ch!r} ({_char_name(ch)})" for ch in word if not ch.isascii())
        if any(ch.isascii() and ch.isalpha() for ch in word) and set(scripts) != {"Latin"}:
            others = " and ".join(x for x in scripts if x != "Latin")
            return (f"the word {word!r} mixes Latin letters with {others} ones ({letters}): a look-alike spelling; "
                    "write every identifier in ASCII letters")
        return f"the word {word!r} has letters outside ASCII ({letters}); only ASCII words are read"
    for ch in text:
        if unicodedata.category(ch) in ("Cf", "Co", "Cn"):
            return f"invisible or unassigned character U+{ord(ch):04X} in the text"
    return None


def _script(ch: str) -> str:
    return _char_name(ch).split(" ", 1)[0].title()


def _char_name(ch: str) -> str:
    return unicodedata.name(ch, f"U+{ord(ch):04X}")


def tokenize(text: str) -> list[str]:
    """Split a sentence (NFKC) into word and comma tokens, expanding negative contractions."""
    body = normalize(text).strip().rstrip(".!?").strip()
    tokens: list[str] = []
    for token in _TOKEN.findall(body):
        low = token.lower().replace("’", "'")
        tokens.extend(_CONTRACTIONS.get(low, (token,)))
    return tokens


def _low(tokens: list[str]) -> list[str]:
    return [t.lower() for t in tokens]


# Adverb endings: "regularly", "artificially", "carefully" are never read as nouns or adjectives.
_ADVERB_ENDINGS = ("ally", "ously", "fully", "lessly", "ively", "ently", "antly", "arly", "edly", "ingly",
                   "ately", "ibly", "ably")


def _is_content(token: str) -> bool:
    low = token.lower()
    if not _WORD.match(low) or low in _FUNCTION_WORDS:
        return False
    return len(low) < 7 or not low.endswith(_ADVERB_ENDINGS)  # short: "ally", "rally", "sally" are nouns


def _is_present_verb(word: str) -> bool:
    """A present-tense verb form; past tense and participles ("visited", "running") have no rule."""
    low = word.lower()
    if not _is_content(low) or not low.isalpha():
        return False
    return not (low.endswith("ed") and not low.endswith("eed")) and not low.endswith("ing")


def _quote(tokens: list[str]) -> str:
    return " ".join(tokens).replace(" ,", ",")


@dataclass(frozen=True)
class _Ctx:
    """Parsing context: the variable "something"/"it" stand for, if any, and the next free variable."""

    var: str | None = None  # bound by an enclosing "If something ..." (universal)
    indefinite: bool = False  # whether "something"/"a X" may introduce `var` here
    depth: int = 0  # index of the next unused variable name

    def fresh(self) -> tuple[str, _Ctx]:
        if self.depth >= len(VARIABLE_NAMES):
            raise NoRule("too deeply nested quantifiers")
        return VARIABLE_NAMES[self.depth], _Ctx(self.var, self.indefinite, self.depth + 1)


@dataclass(frozen=True)
class _Subject:
    """A parsed subject: how to turn the predicate (a function of the subject term) into a formula."""

    wrap: Callable[[Callable[[Term], Formula]], Formula]
    ctx: _Ctx  # context for parsing the predicate (variables used by the subject are taken)


class EnglishParser:
    """Rule-based parser of one controlled-English sentence into a `Formula`."""

    def __init__(self, lexicon: Lexicon, *, either_or: Literal["exclusive", "inclusive"] = "exclusive") -> None:
        self.lexicon = lexicon
        self.either_or = either_or

    def parse(self, sentence: str) -> Formula:
        """Translate a sentence; raise `NoRule` naming the part no rule covers."""
        problem = identifier_problem(normalize(sentence))
        if problem is not None:
            raise NoRule(problem)
        if "?" in sentence:
            raise NoRule("a question asserts nothing: state the claim as a sentence")
        tokens = tokenize(sentence)
        if not tokens:
            raise NoRule("empty sentence")
        if len(tokens) > MAX_TOKENS:
            raise NoRule(f"a sentence of {len(tokens)} words is longer than the rules read ({MAX_TOKENS}): split it")
        bad = [t for t in tokens if t != "," and not _WORD.match(t.lower())]
        if bad:
            raise NoRule(f"unsupported symbol {bad[0]!r}")
        low = _low(tokens)
        doubled = next((i for i in range(len(low) - 1) if low[i] == "not" and low[i + 1] in _NEGATIVES), None)
        if doubled is not None:
            raise Ambiguous(f"a doubled negation \"{low[doubled]} {low[doubled + 1]}\": say what is meant without it")
        formula = self._sentence(tokens, _Ctx())
        if free_vars(formula):
            raise NoRule("a pronoun has no antecedent in this sentence")
        return formula

    # ---- sentence level -------------------------------------------------------------------------
    def _sentence(self, toks: list[str], ctx: _Ctx) -> Formula:
        if not toks:  # "Rex is a cat only if.": a connective with nothing on one side
            raise NoRule("a connective with nothing on one of its sides")
        prefixed = self._prefixed(toks, ctx)
        if prefixed is not None:
            return prefixed
        low = _low(toks)
        if low[0] == "if":
            rest, rest_low = toks[1:], low[1:]
            split = rest_low.index("then") if "then" in rest_low else (rest_low.index(",") if "," in rest_low else -1)
            if split <= 0 or split == len(rest) - 1:
                raise NoRule("an 'if' sentence needs 'then' or a comma between condition and consequence")
            condition = rest[:split - 1] if rest[split - 1] == "," else rest[:split]
            return self._conditional(condition, rest[split + 1 :], ctx, consequence_first=False)
        for phrase, build in (
            (["if", "and", "only", "if"], Iff),
            (["only", "if"], Implies),
        ):
            at = _find(low, phrase)
            if at > 0:
                return build(self._sentence(toks[:at], ctx), self._sentence(toks[at + len(phrase) :], ctx))
        at = _find(low, ["if"])
        if at > 0:  # "B if A"
            consequence = toks[: at - 1] if toks[at - 1] == "," else toks[:at]
            return self._conditional(toks[at + 1 :], consequence, ctx, consequence_first=True)
        return self._clauses(toks, ctx)

    def _prefixed(self, toks: list[str], ctx: _Ctx) -> Formula | None:
        """ "It is not true that S" → ¬S for one clause S (None when the sentence has no such prefix)."""
        low = _low(toks)
        for prefix, negative in _PROSE_PREFIXES:
            if low[: len(prefix)] != prefix:
                continue
            words = " ".join(prefix)
            rest, rest_low = toks[len(prefix) :], low[len(prefix) :]
            if not rest:
                raise NoRule(f"'{words}' with nothing after it")
            inner = self._prefixed(rest, ctx)
            if inner is None:
                if "if" in rest_low:
                    raise Ambiguous(f"the scope of '{words}' over a conditional is ambiguous (the whole conditional, "
                                    "or its consequence?): negate the part that is meant")
                if rest_low[0] in ("either", "neither"):
                    raise Ambiguous(f"'{words} {rest_low[0]} …' has no single reading: write what is meant")
                if rest_low[0] == "both":
                    inner = self._both_clauses(rest, ctx, words)
                else:
                    inner = self._one_clause(rest, ctx, words)
            return Not(inner) if negative else inner
        return None

    def _both_clauses(self, toks: list[str], ctx: _Ctx, words: str) -> Formula:
        parts = _split_top(toks[1:], "and")
        if len(parts) != 2:
            raise NoRule(f"'{words} both …' needs exactly two clauses joined by 'and'")
        return conj([self._one_clause(p, ctx, words) for p in parts])

    def _one_clause(self, toks: list[str], ctx: _Ctx, words: str) -> Formula:
        """One clause (its predicate may list properties); several clauses under `words` are refused."""
        if not toks:
            raise NoRule("missing clause")
        try:
            return self._clause(toks, ctx)
        except NoRule:
            if self._parses(self._clauses, toks, ctx):
                raise Ambiguous(f"the scope of '{words}' over several clauses is ambiguous: negate each clause, or say "
                                "'both … and …'") from None
            raise

    def _conditional(self, condition: list[str], consequence: list[str], ctx: _Ctx, *, consequence_first: bool) -> Formula:
        """condition → consequence; the first-mentioned "something"/"a X" is universal and "it" refers to it."""
        if not condition or not consequence:
            raise NoRule("a conditional needs both a condition and a consequence")
        var, inner = ctx.fresh()
        binding, referring = _Ctx(var, True, inner.depth), _Ctx(var, False, inner.depth)
        if consequence_first:  # "Something is red if it is big"
            consequent = self._sentence(consequence, binding)
            antecedent = self._sentence(condition, referring)
        else:
            antecedent = self._sentence(condition, binding)
            consequent = self._sentence(consequence, referring)
        first, second = (consequent, antecedent) if consequence_first else (antecedent, consequent)
        if var in free_vars(second) and var not in free_vars(first):
            raise NoRule("a pronoun has no antecedent: 'it'/'they' must follow 'something'/'someone'")
        body = Implies(antecedent, consequent)
        return forall(var, body) if var in free_vars(body) else body

    def _clauses(self, toks: list[str], ctx: _Ctx) -> Formula:
        low = _low(toks)
        if low[0] in ("either", "neither", "both"):
            joiner = {"either": "or", "neither": "nor", "both": "and"}[low[0]]
            parts = _split_top(toks[1:], joiner)
            if len(parts) == 2 and all(parts):
                # each side one clause: "Either A or B and C" has two readings and is refused below
                try:
                    left, right = (self._clause(p, ctx) for p in parts)
                except NoRule:
                    pass  # "Either" may belong to a predicate ("is either red or blue") — fall through
                else:
                    return self._combine(low[0], left, right)
        single: NoRule | None = None
        if "or" in low:
            try:  # one clause with a list of alternatives ("Bob is red or blue") is the first reading
                return self._and_clauses(toks, ctx)
            except Ambiguous:
                raise  # a whole reading exists and is ambiguous: another split would be a second reading
            except NoRule as exc:
                single = exc
        groups = self._group(toks, "or", ctx, self._and_clauses)
        if len(groups) > 1:
            for group in groups:
                if not self._parses(self._clause, group, ctx) and self._parses(self._and_clauses, group, ctx):
                    raise Ambiguous(f"\"{_quote(toks)}\" mixes 'and' and 'or' between clauses, which has two readings: "
                                    "use 'either … or' / 'both … and' or separate sentences")
            return disj([self._clause(g, ctx) for g in groups])
        if single is not None:
            raise single
        return self._and_clauses(toks, ctx)

    def _and_clauses(self, toks: list[str], ctx: _Ctx) -> Formula:
        single: NoRule | None = None
        if "and" in _low(toks):
            try:  # "Socrates and Plato are men", "someone is kind and round": one clause first
                return self._clause(toks, ctx)
            except NoRule as exc:
                single = exc
        groups = self._group(toks, "and", ctx, self._clause)
        if isinstance(single, Ambiguous):
            raise single  # a whole one-clause reading exists and is ambiguous: a split would be a second reading
        return conj([self._clause(g, ctx) for g in groups])

    def _group(self, toks: list[str], joiner: str, ctx: _Ctx, parser) -> list[list[str]]:
        """Split at `joiner`, then re-join pieces that are not clauses themselves ("red or blue")."""
        pieces = _split_top(toks, joiner)
        groups: list[list[str]] = []
        for piece in pieces:
            if groups and not self._parses(parser, piece, ctx):
                groups[-1] = groups[-1] + [joiner] + piece
            else:
                groups.append(piece)
        return groups

    @staticmethod
    def _parses(parser, toks: list[str], ctx: _Ctx) -> bool:
        try:
            parser(toks, ctx)
        except NoRule:
            return False
        return True

    def _combine(self, word: str, left: Formula, right: Formula) -> Formula:
        if word == "either":
            return Xor((left, right)) if self.either_or == "exclusive" else Or((left, right))
        if word == "neither":
            return conj([Not(left), Not(right)])
        return conj([left, right])

    # ---- clause: subject + predicate --------------------------------------------------------------
    def _clause(self, toks: list[str], ctx: _Ctx) -> Formula:
        if not toks:
            raise NoRule("missing clause")
        first_error: NoRule | None = None
        refusal: NoRule | None = None  # a subject refused as ambiguous: the most useful thing to report
        for i in range(1, len(toks)):
            pred_toks = toks[i:]
            try:
                subject = self._subject(toks[:i], ctx, plural_verb=_plural_verb(pred_toks[0]))
            except NoRule as exc:
                refusal = exc  # the longest subject refused is the one the sentence most likely has
                continue
            if subject is None:
                continue
            if toks[0].lower() in ("a", "an") and not (ctx.indefinite and ctx.var is not None) \
                    and not _names_a_kind(pred_toks):
                refusal = refusal or Ambiguous(f"\"{_quote(toks)}\" may speak of every {_quote(toks[1:i])} or of "
                                               "one: say 'Every …' or 'Some …'")
                continue
            try:
                return subject.wrap(functools.partial(self._predicate, pred_toks, ctx=subject.ctx))
            except NoRule as exc:
                first_error = first_error or exc
        if refusal is not None or first_error is not None:
            raise refusal or first_error  # type: ignore[misc]
        raise NoRule(f"no rule for the clause \"{_quote(toks)}\"")

    def _subject(self, toks: list[str], ctx: _Ctx, *, plural_verb: bool) -> _Subject | None:
        low = _low(toks)
        head = low[0]
        quantifier = None
        rest = toks[1:]
        if low[:2] in (["not", "all"], ["not", "every"]):
            quantifier, rest = "notall", toks[2:]
        elif head in _UNIVERSAL:
            quantifier = "all"
        elif head in ("no", "some"):
            quantifier = head
        if quantifier is not None:
            if not rest:
                return None
            if rest[0].lower() == "of":
                return None
            var, inner = ctx.fresh()
            kinds = self._kinds(rest, var, inner, plural=plural_verb)
            if kinds is None:
                return None
            if len(kinds) > 1 and quantifier != "all":
                raise Ambiguous(f"\"{_quote(toks)}\": '{' '.join(low[:2]) if quantifier == 'notall' else head}' before "
                                "coordinated kinds has two readings (each kind, or things of both kinds): "
                                "say it of each kind")
            return _Subject(_each_kind(quantifier, var, kinds), inner)

        if head in _UNIVERSAL_PRONOUNS | _NEGATIVE_PRONOUNS | _INDEFINITE_PRONOUNS:
            if head in _INDEFINITE_PRONOUNS and ctx.indefinite and ctx.var is not None:
                restriction = self._noun_restriction(["thing"] + toks[1:], ctx.var, ctx)
                if isinstance(restriction, bool):
                    return None
                return _Subject(_individual(Var(ctx.var), restriction), ctx)
            var, inner = ctx.fresh()
            restriction = self._noun_restriction(["thing"] + toks[1:], var, inner)
            if isinstance(restriction, bool):
                return None
            kind = (
                "all" if head in _UNIVERSAL_PRONOUNS or head in ("anything", "anyone", "anybody")
                else "no" if head in _NEGATIVE_PRONOUNS else "some"
            )
            return _Subject(_quantify(kind, var, restriction), inner)

        if len(toks) == 1 and head in _PRONOUNS:
            return _Subject(_individual(Var(ctx.var), None), ctx) if ctx.var is not None else None

        if head in ("a", "an") and len(toks) > 1:
            if ctx.indefinite and ctx.var is not None:  # "If a cat is hungry then it ..."
                restriction = self._noun_restriction(toks[1:], ctx.var, ctx)
                return None if restriction is None or isinstance(restriction, bool) else _Subject(_individual(Var(ctx.var), restriction), ctx)
            var, inner = ctx.fresh()  # generic: "A whale is a mammal"
            restriction = self._noun_restriction(toks[1:], var, inner)
            return None if restriction is None or isinstance(restriction, bool) else _Subject(_quantify("all", var, restriction), inner)

        if head == "the" and len(toks) > 1 and all(_is_content(t) for t in toks[1:]):
            return _Subject(_individual(Const(_described(low[1:])), None), ctx)

        names = self._names(toks)
        if names is not None and (not plural_verb or len(names) > 1):
            terms = [Const(n) for n in names]
            return _Subject(lambda pred: conj([pred(t) for t in terms]), ctx)

        last = low[-1]
        if plural_verb and (looks_plural(last) or last in _GENERIC_HEADS):
            # bare plural: "Whales are mammals", "Rough people are cold", "Cats and dogs are animals"
            var, inner = ctx.fresh()
            kinds = self._kinds(toks, var, inner, plural=True)
            if kinds is None or None in kinds:
                return None
            return _Subject(_each_kind("all", var, kinds), inner)
        return None

    def _names(self, toks: list[str]) -> list[str] | None:
        """Proper names ("Fae", "127", "Bob and Dave") or None."""
        groups = _split_top(toks, "and")
        names = []
        for group in groups:
            if not group or not all(_is_name_token(t) for t in group):
                return None
            names.append(constant_name(group))
        return names

    def _noun_restriction(self, toks: list[str], var: str, ctx: _Ctx) -> Formula | None | bool:
        """Restriction of a noun phrase of one kind on `var` (None: unrestricted "things"; False: not a noun
        phrase). Coordinated kinds ("a cat and dog") are refused here: only a quantified or plural subject
        distributes over them."""
        kinds = self._kinds(toks, var, ctx, plural=None)
        if kinds is None:
            return False
        if len(kinds) > 1:
            raise Ambiguous(f"\"{_quote(toks)}\" names several kinds where one thing is meant: no rule reads it")
        return kinds[0]

    def _kinds(self, toks: list[str], var: str, ctx: _Ctx, *, plural: bool | None) -> list[Formula | None] | None:
        """The restriction on `var` of each kind a noun phrase names (one unless kinds are coordinated: "cats and
        dogs"), [None] for bare "things", None when the phrase is not a noun phrase. `plural`: the verb's
        number (None: unknown), which the coordinated nouns must agree with."""
        low = _low(toks)
        rel_at = next((i for i, w in enumerate(low) if w in _RELATIVE), None)
        relative: Formula | None = None
        if rel_at is not None:
            try:
                relative = self._predicate(toks[rel_at + 1 :], Var(var), ctx)
            except NoRule:
                return None
            toks, low = toks[:rel_at], low[:rel_at]
        if not toks:
            return None
        items = [t for t in toks if t != ","]
        if not items or not all(_is_content(t) or t.lower() == "and" for t in items) or items[-1].lower() == "and":
            return None
        chunks = [c for piece in _split_top(toks, ",") for c in _split_top(piece, "and")]
        if not all(chunks):
            return None
        words = [t.lower() for t in items if t.lower() != "and"]
        if any(w.isdigit() for w in words) or words[0] in _NUMBER_WORDS:
            raise NoRule(f"\"{_quote(toks)}\": a number in a noun phrase counts things, and no rule reads counts")
        head = words[-1]
        kinds: list[list[Formula]]
        if head in _GENERIC_HEADS or (head in _PERSON_HEADS and len(words) > 1):
            # "Red, cold things": adjectives of an unnamed kind
            if len(chunks) > 1 and any(len(c) != 1 or (plural and looks_plural(c[0])) for c in chunks[:-1]):
                raise Ambiguous(f"\"{_quote(toks)}\": cannot tell listed kinds from listed properties")
            kinds = [[Atom(predicate_name([w]), (Var(var),)) for w in words[:-1]]]
        elif len(chunks) == 1:
            kinds = [[Atom(_noun_predicate(words), (Var(var),))]]
        else:
            kinds = self._coordinated(toks, chunks, var, plural=plural, listed="and" in low)
            if len(kinds) > 1 and relative is not None:
                raise Ambiguous(f"\"{_quote(toks)}\" with a relative clause: does it restrict every kind or the last?")
        if relative is not None:
            kinds = [[*k, relative] for k in kinds]
        return [conj(k) if k else None for k in kinds]

    def _coordinated(self, toks: list[str], chunks: list[list[str]], var: str, *, plural: bool | None,
                     listed: bool) -> list[list[Formula]]:
        """Kinds of "cats and dogs" (each its own kind) or properties of "big, red dogs" / "big and red dogs" (one
        kind). `listed`: the chunks are joined by "and" (else by commas alone, which list adjectives only)."""
        first, last = chunks[:-1], chunks[-1]
        adjectives = all(len(c) == 1 and not looks_plural(c[0]) for c in first)
        # a modifier of an earlier kind may scope over the rest ("big cats and dogs": big dogs too?)
        separable = all(len(c) == 1 for c in first)
        one_kind: list[list[Formula]] = [[*(Atom(predicate_name([c[0].lower()]), (Var(var),)) for c in first),
                     Atom(_noun_predicate([t.lower() for t in last]), (Var(var),))]]
        each_kind: list[list[Formula]] = [[Atom(_noun_predicate([t.lower() for t in c]), (Var(var),))] for c in chunks]
        if not listed:  # "big, red dogs"
            if adjectives:
                return one_kind
        elif len(last) == 1:  # "cats and dogs", "cat and dog": nouns, in the verb's number
            agree = plural is None or all(
                looks_plural(c[-1]) == plural or c[-1].lower() in IRREGULAR_PLURALS for c in chunks)
            if agree and separable:
                return each_kind
        elif plural:  # "big and red dogs" (properties) or "cats and big dogs" (kinds)
            if adjectives:
                return one_kind
            if separable and all(looks_plural(c[-1]) for c in chunks):
                return each_kind
        raise Ambiguous(f"\"{_quote(toks)}\": cannot tell coordinated kinds from listed properties here")

    # ---- predicates ------------------------------------------------------------------------------
    def _predicate(self, toks: list[str], term: Term, ctx: _Ctx) -> Formula:
        if not toks:
            raise NoRule("missing predicate")
        low = _low(toks)
        if low[0] in ("is", "are", "am"):
            if len(toks) == 1:
                raise NoRule("missing predicate after the verb")
            return self._pred_list(toks[1:], term, low[0] == "are", ctx)
        if low[0] in ("does", "do") and len(low) > 2 and low[1] == "not":
            return Not(self._relation(toks[2:], term, ctx, base_form=True))
        # verb-phrase conjunctions: "chases the dog and is red"
        pieces = _split_top(toks, "and")
        if len(pieces) > 1:
            return conj([self._predicate(p, term, ctx) for p in pieces])
        return self._relation(toks, term, ctx, base_form=not low[0].endswith("s"))

    def _relation(self, toks: list[str], term: Term, ctx: _Ctx, *, base_form: bool) -> Formula:
        verb = toks[0].lower()
        if not _is_present_verb(verb) or len(toks) < 2:
            raise NoRule(f"no rule for the predicate \"{_quote(toks)}\"")
        obj = self._object(toks[1:], ctx)
        if obj is None:
            raise NoRule(f"no rule for the object \"{_quote(toks[1:])}\" of \"{verb}\"")
        name = predicate_name([third_person(verb) if base_form else verb])
        return Atom(name, (term, obj))

    def _object(self, toks: list[str], ctx: _Ctx) -> Term | None:
        low = _low(toks)
        if len(toks) == 1 and low[0] in _PRONOUNS:
            return Var(ctx.var) if ctx.var is not None else None
        if low[0] == "the" and len(toks) > 1 and all(_is_content(t) for t in toks[1:]):
            return Const(_described(low[1:]))
        if all(_is_name_token(t) for t in toks):
            return Const(constant_name(toks))
        return None

    def _pred_list(self, toks: list[str], term: Term, plural: bool, ctx: _Ctx) -> Formula:
        low = _low(toks)
        negated = low[0] == "not" and len(low) > 1 and low[1] in ("either", "neither", "both")
        body, body_low = (toks[1:], low[1:]) if negated else (toks, low)
        if body_low[0] in ("either", "neither", "both"):
            word = body_low[0]
            if negated and word != "both":
                raise Ambiguous(f"'not {word} …' has no single reading: write what is meant")
            joiner = {"either": "or", "neither": "nor", "both": "and"}[word]
            parts = _split_top(body[1:], joiner)
            if len(parts) != 2 or not all(parts):
                raise NoRule(f"'{word}' needs exactly two alternatives joined by '{joiner}'")
            if len(_split_list(parts[1])[0]) > 1:  # "either red or big and kind": (red ⊕ big) ∧ kind?
                raise Ambiguous(f"\"{_quote(toks)}\": where the second alternative ends is ambiguous; list the rest "
                                "in another sentence")
            left, right = (self._pred_items(p, term, plural, ctx) for p in parts)
            combined = self._combine(word, left, right)
            return Not(combined) if negated else combined
        return self._pred_items(toks, term, plural, ctx)

    def _pred_items(self, toks: list[str], term: Term, plural: bool, ctx: _Ctx) -> Formula:
        """A list of properties joined by commas and one of "and"/"or", with "not" read as English scopes it."""
        items, joiners = _split_list(toks)
        negated = [bool(item) and item[0].lower() == "not" for item in items]
        # every item must be a property before the list's reading is judged ("red or Bob is blue" is no list)
        positive = [self._pred_item(item[1:] if neg else item, term, plural, ctx)
                    for item, neg in zip(items, negated, strict=True)]
        if {"and", "or"} <= set(joiners):
            raise Ambiguous(f"\"{_quote(toks)}\" mixes 'and' and 'or', which has two readings: use 'either … or' / "
                            "'both … and' or separate sentences")
        disjunctive = "or" in joiners
        if len(items) > 1 and negated[0] and not all(negated):
            if disjunctive and not any(negated[1:]):  # "is not a cat or a dog": neither
                return Not(disj(positive))
            raise Ambiguous(f"\"{_quote(toks)}\" has two readings (does 'not' cover the whole list or its first "
                            "item?): put 'not' before each item, or say 'not both … and …'")
        parts = [Not(f) if neg else f for f, neg in zip(positive, negated, strict=True)]
        return disj(parts) if disjunctive else conj(parts)

    def _pred_item(self, toks: list[str], term: Term, plural: bool, ctx: _Ctx) -> Formula:
        if not toks:
            raise NoRule("empty item in a list of properties")
        low = _low(toks)
        if low[0] in ("a", "an"):
            words = low[1:]
            if not words or not all(_is_content(w) for w in words):
                raise NoRule(f"no rule for the noun phrase \"{_quote(toks)}\"")
            return Atom(_noun_predicate(words), (term,))
        if not all(_is_content(w) for w in low):
            raise NoRule(f"no rule for the property \"{_quote(toks)}\"")
        if plural:
            if low[-1] in _GENERIC_HEADS or (low[-1] in _PERSON_HEADS and len(low) > 1):
                if len(low) == 1:  # "are things": says nothing (and once crashed on an empty conjunction)
                    raise NoRule(f"no rule for the property \"{_quote(toks)}\" (a bare '{low[0]}')")
                return conj([Atom(predicate_name([w]), (term,)) for w in low[:-1]])
            if len(low) > 1:
                if not looks_plural(low[-1]):  # "are well paid": not a plural noun phrase
                    raise NoRule(f"no rule for the property \"{_quote(toks)}\" (several words, not a plural noun)")
                return Atom(_noun_predicate(low), (term,))
            if self.lexicon.plural_is_noun(low[0]):
                return Atom(_noun_predicate(low), (term,))
            return Atom(predicate_name(low), (term,))
        if len(low) > 1:
            raise NoRule(f"no rule for the property \"{_quote(toks)}\" (several words without 'a'/'an')")
        return Atom(predicate_name(low), (term,))


def _names_a_kind(pred_toks: list[str]) -> bool:
    """Whether a predicate says what kind a thing is ("is a mammal", "is not either a plant or an animal"): then
    "A whale is a mammal" is generic; "A cat is hungry" / "A cat chases the dog" may be about one cat."""
    low = _low(pred_toks)
    if not low or low[0] not in ("is", "are"):
        return False
    rest = low[1:]
    rest = rest[1:] if rest[:1] == ["not"] else rest
    rest = rest[1:] if rest[:1] and rest[0] in ("either", "neither", "both") else rest
    return rest[:1] in (["a"], ["an"])


def _described(words: list[str]) -> str:
    """The individual a definite description names: "the cat" is `the_cat`, never the individual named Cat (`cat`):
    nothing says that the cat is called Cat, so "The cat is a dog" says nothing about Cat."""
    return constant_name(["the", *words])


def _noun_predicate(words: list[str]) -> str:
    """Predicate of a noun phrase, singular: "painted ladies" → PaintedLady."""
    return predicate_name(words[:-1] + [singularize(words[-1])])


def _is_name_token(token: str) -> bool:
    if token.isdigit():
        return True
    return token[:1].isupper() and bool(_WORD.match(token.lower())) and token.lower() not in _FUNCTION_WORDS


def _plural_verb(token: str) -> bool:
    low = token.lower()
    if low in ("are", "do", "were", "have"):
        return True
    if low in ("is", "does", "was", "has", "am"):
        return False
    return not low.endswith("s")


def _quantify(kind: str, var: str, restriction: Formula | None) -> Callable[[Callable[[Term], Formula]], Formula]:
    def wrap(pred: Callable[[Term], Formula]) -> Formula:
        body = pred(Var(var))
        if kind == "some":
            return exists(var, conj([restriction, body]) if restriction is not None else body)
        if kind == "no":
            body = Not(body)
        universal = forall(var, Implies(restriction, body) if restriction is not None else body)
        return Not(universal) if kind == "notall" else universal

    return wrap


def _each_kind(kind: str, var: str, kinds: list[Formula | None]) -> Callable[[Callable[[Term], Formula]], Formula]:
    """One quantified formula per coordinated kind, conjoined ("cats and dogs are animals": each kind is)."""
    wraps = [_quantify(kind, var, restriction) for restriction in kinds]
    return lambda pred: conj([wrap(pred) for wrap in wraps])


def _individual(term: Term, restriction: Formula | None) -> Callable[[Callable[[Term], Formula]], Formula]:
    def wrap(pred: Callable[[Term], Formula]) -> Formula:
        body = pred(term)
        return conj([restriction, body]) if restriction is not None else body

    return wrap


def _find(low: list[str], phrase: list[str]) -> int:
    for i in range(len(low) - len(phrase) + 1):
        if low[i : i + len(phrase)] == phrase:
            return i
    return -1


def _split_list(toks: list[str]) -> tuple[list[list[str]], list[str]]:
    """Items of a list of properties and the joiners between them (", and" counts as "and")."""
    items: list[list[str]] = [[]]
    joiners: list[str] = []
    for tok in toks:
        low = tok.lower()
        if low in ("and", "or") and not items[-1] and joiners and joiners[-1] == ",":
            joiners[-1] = low  # ", and": the comma belongs to the conjunction
        elif low in ("and", "or", ","):
            joiners.append(low)
            items.append([])
        else:
            items[-1].append(tok)
    return items, joiners


def _split_top(toks: list[str], joiner: str) -> list[list[str]]:
    """Split at every `joiner` token (a comma right before the joiner is dropped: ", and")."""
    parts: list[list[str]] = [[]]
    for tok in toks:
        if tok.lower() == joiner:
            if parts[-1] and parts[-1][-1] == "," and joiner != ",":
                parts[-1].pop()
            parts.append([])
        else:
            parts[-1].append(tok)
    return parts


__all__ = ["Ambiguous", "EnglishParser", "NoRule", "identifier_problem", "normalize", "tokenize"]
