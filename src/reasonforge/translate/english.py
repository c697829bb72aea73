"""Controlled English → first-order formula, by explicit rules only (no rule, no formula: never a guess).

Covered: quantified sentences (All/Every/Each/Any/No/Some/
Not all X are/is (not) Y), bare plurals ("Whales are mammals"), named individuals ("Fae is a cat",
"127 is a Mersenne prime", "The bear needs the lion"), "something/someone/it/they" variables in
conditionals, If…then, …if…, only if, if and only if, and/or/either…or/neither…nor, "it is not the
case that", relative clauses ("Everything that is big is red") and ProofWriter's relation sentences.

Readings chosen where English is ambiguous (each documented in tests):
- "Every X is not P" / "All X are not P" = ∀x (X(x) → ¬P(x)) (PrOntoQA's reading, not ¬∀).
- "either A or B" = A ⊕ B by default (FOLIO's convention); `either_or="inclusive"` gives A ∨ B.
- "not" binds to the next item only: "is not big and red" = ¬Big ∧ Red.
- A noun phrase is one predicate: "prime number" → PrimeNumber, distinct from the adjective Prime.
  Adjectives in front of "thing(s)"/"one(s)" (and "people"/"person" when modified) are separate
  predicates with no noun: "Red, cold things are round" → ∀x (Red(x) ∧ Cold(x) → Round(x)).
- A sentence-level "A cat is an animal" is generic: ∀x (Cat(x) → Animal(x)).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from reasonforge.lang.logic import Atom, Const, Formula, Iff, Implies, Not, Or, Term, Var, Xor
from reasonforge.lang.logic.formulas import conj, disj, exists, forall, free_vars
from reasonforge.translate.lexicon import (
    VARIABLE_NAMES,
    Lexicon,
    constant_name,
    looks_plural,
    predicate_name,
    singularize,
    third_person,
)


class NoRule(Exception):
    """The sentence (or a part of it) matches no translation rule; the message says which part."""


_CONTRACTIONS = {
    "isn't": ("is", "not"), "aren't": ("are", "not"), "doesn't": ("does", "not"),
    "don't": ("do", "not"), "wasn't": ("was", "not"), "weren't": ("were", "not"),
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
    ["a", "an", "the", "all", "every", "each", "any", "no", "some", "not", "none", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doesn't", "don't", "has", "have", "had", "if", "then", "else", "and", "or", "nor", "either", "neither", "both", "but", "because", "since", "so", "therefore", "hence", "thus", "it", "they", "he", "she", "itself", "them", "him", "her", "themselves", "its", "their", "this", "that", "these", "those", "who", "which", "what", "whom", "whose", "where", "when", "why", "how", "than", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "onto", "about", "as", "very", "really", "quite", "also", "too", "only", "just", "always", "never", "sometimes", "often", "usually", "rarely", "probably", "possibly", "maybe", "perhaps", "likely", "unlikely", "might", "may", "can", "could", "should", "would", "must", "will", "shall", "more", "most", "less", "least", "same", "other", "another", "such", "something", "someone", "somebody", "anything", "anyone", "anybody", "everything", "everyone", "everybody", "nothing", "nobody", "case", "true", "false"]
)
_WORD = re.compile(r"^[a-z0-9][a-z0-9-]*$")  # no apostrophes: possessives ("Bob's cat") have no rule


def tokenize(text: str) -> list[str]:
    """Split a sentence into word and comma tokens, expanding negative contractions."""
    body = text.strip().rstrip(".!?").strip()
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
        tokens = tokenize(sentence)
        if not tokens:
            raise NoRule("empty sentence")
        bad = [t for t in tokens if t != "," and not _WORD.match(t.lower())]
        if bad:
            raise NoRule(f"unsupported symbol {bad[0]!r}")
        formula = self._sentence(tokens, _Ctx())
        if free_vars(formula):
            raise NoRule("a pronoun has no antecedent in this sentence")
        return formula

    # ---- sentence level -------------------------------------------------------------------------
    def _sentence(self, toks: list[str], ctx: _Ctx) -> Formula:
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
        for prefix in (["it", "is", "not", "the", "case", "that"], ["it", "is", "false", "that"],
                       ["it", "is", "not", "true", "that"]):
            if low[: len(prefix)] == prefix and len(low) > len(prefix):
                return Not(self._sentence(toks[len(prefix) :], ctx))
        return self._clauses(toks, ctx)

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
            if len(parts) == 2:
                try:
                    left, right = (self._clauses(p, ctx) for p in parts)
                except NoRule:
                    pass  # "Either" may belong to a predicate ("is either red or blue") — fall through
                else:
                    return self._combine(low[0], left, right)
        if "or" in low:
            try:  # one clause with a list of alternatives ("Bob is red or blue") is the first reading
                return self._and_clauses(toks, ctx)
            except NoRule:
                pass
        groups = self._group(toks, "or", ctx, self._and_clauses)
        if len(groups) > 1:
            return disj([self._and_clauses(g, ctx) for g in groups])
        return self._and_clauses(toks, ctx)

    def _and_clauses(self, toks: list[str], ctx: _Ctx) -> Formula:
        if "and" in _low(toks):
            try:  # "Socrates and Plato are men", "someone is kind and round": one clause first
                return self._clause(toks, ctx)
            except NoRule:
                pass
        groups = self._group(toks, "and", ctx, self._clause)
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
        for i in range(1, len(toks)):
            pred_toks = toks[i:]
            subject = self._subject(toks[:i], ctx, plural_verb=_plural_verb(pred_toks[0]))
            if subject is None:
                continue
            try:
                return subject.wrap(lambda term, c=subject.ctx, p=pred_toks: self._predicate(p, term, c))
            except NoRule as exc:
                first_error = first_error or exc
        if first_error is not None:
            raise first_error
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
            restriction = self._noun_restriction(rest, var, inner)
            return None if restriction is False else _Subject(_quantify(quantifier, var, restriction), inner)

        if head in _UNIVERSAL_PRONOUNS | _NEGATIVE_PRONOUNS | _INDEFINITE_PRONOUNS:
            if head in _INDEFINITE_PRONOUNS and ctx.indefinite and ctx.var is not None:
                restriction = self._noun_restriction(["thing"] + toks[1:], ctx.var, ctx)
                if restriction is False:
                    return None
                return _Subject(_individual(Var(ctx.var), restriction), ctx)
            var, inner = ctx.fresh()
            restriction = self._noun_restriction(["thing"] + toks[1:], var, inner)
            if restriction is False:
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
                return None if restriction in (False, None) else _Subject(_individual(Var(ctx.var), restriction), ctx)
            var, inner = ctx.fresh()  # generic: "A whale is a mammal"
            restriction = self._noun_restriction(toks[1:], var, inner)
            return None if restriction in (False, None) else _Subject(_quantify("all", var, restriction), inner)

        if head == "the" and len(toks) > 1 and all(_is_content(t) for t in toks[1:]):
            return _Subject(_individual(Const(constant_name(low[1:])), None), ctx)

        names = self._names(toks)
        if names is not None and (not plural_verb or len(names) > 1):
            terms = [Const(n) for n in names]
            return _Subject(lambda pred: conj([pred(t) for t in terms]), ctx)

        last = low[-1]
        if plural_verb and (looks_plural(last) or last in _GENERIC_HEADS):
            # bare plural: "Whales are mammals", "Rough people are cold"
            var, inner = ctx.fresh()
            restriction = self._noun_restriction(toks, var, inner)
            if restriction in (False, None):
                return None
            return _Subject(_quantify("all", var, restriction), inner)
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
        """Restriction of a noun phrase (with optional relative clause) on `var`.

        Returns None for an unrestricted phrase ("things"), False when the phrase is not a noun phrase.
        """
        low = _low(toks)
        rel_at = next((i for i, w in enumerate(low) if w in _RELATIVE), None)
        relative: Formula | None = None
        if rel_at is not None:
            try:
                relative = self._predicate(toks[rel_at + 1 :], Var(var), ctx)
            except NoRule:
                return False
            toks, low = toks[:rel_at], low[:rel_at]
        if not toks:
            return False
        parts: list[Formula] = []
        items = [t for t in toks if t != ","]
        if not all(_is_content(t) or t.lower() == "and" for t in items) or items[-1].lower() == "and":
            return False
        words = [t.lower() for t in items if t.lower() != "and"]
        head = words[-1]
        generic = head in _GENERIC_HEADS or (head in _PERSON_HEADS and len(words) > 1)
        if generic:
            parts.extend(Atom(predicate_name([w]), (Var(var),)) for w in words[:-1])
        elif "," in toks or "and" in low:
            # "big, red dogs": listed adjectives, then the noun phrase
            chunks = [c for piece in _split_top(toks, ",") for c in _split_top(piece, "and")]
            adjective_chunks = chunks[:-1]
            if any(len(c) != 1 for c in adjective_chunks):
                return False
            parts.extend(Atom(predicate_name([c[0].lower()]), (Var(var),)) for c in adjective_chunks)
            last = [t.lower() for t in chunks[-1]]
            if not last:
                return False
            parts.append(Atom(_noun_predicate(last), (Var(var),)))
        else:
            parts.append(Atom(_noun_predicate(words), (Var(var),)))
        if relative is not None:
            parts.append(relative)
        return conj(parts) if parts else None

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
            return Const(constant_name(low[1:]))
        if all(_is_name_token(t) for t in toks):
            return Const(constant_name(toks))
        return None

    def _pred_list(self, toks: list[str], term: Term, plural: bool, ctx: _Ctx) -> Formula:
        low = _low(toks)
        if low[0] in ("either", "neither", "both"):
            joiner = {"either": "or", "neither": "nor", "both": "and"}[low[0]]
            parts = _split_top(toks[1:], joiner)
            if len(parts) != 2:
                raise NoRule(f"'{low[0]}' needs exactly two alternatives joined by '{joiner}'")
            left, right = (self._pred_conj(p, term, plural, ctx) for p in parts)
            return self._combine(low[0], left, right)
        alternatives = _split_top(toks, "or")
        return disj([self._pred_conj(a, term, plural, ctx) for a in alternatives])

    def _pred_conj(self, toks: list[str], term: Term, plural: bool, ctx: _Ctx) -> Formula:
        items = [i for piece in _split_top(toks, "and") for i in _split_top(piece, ",")]
        return conj([self._pred_item(i, term, plural, ctx) for i in items])

    def _pred_item(self, toks: list[str], term: Term, plural: bool, ctx: _Ctx) -> Formula:
        if not toks:
            raise NoRule("empty item in a list of properties")
        low = _low(toks)
        if low[0] == "not":
            return Not(self._pred_item(toks[1:], term, plural, ctx))
        if low[0] in ("a", "an"):
            words = low[1:]
            if not words or not all(_is_content(w) for w in words):
                raise NoRule(f"no rule for the noun phrase \"{_quote(toks)}\"")
            return Atom(_noun_predicate(words), (term,))
        if not all(_is_content(w) for w in low):
            raise NoRule(f"no rule for the property \"{_quote(toks)}\"")
        if plural:
            if low[-1] in _GENERIC_HEADS or (low[-1] in _PERSON_HEADS and len(low) > 1):
                return conj([Atom(predicate_name([w]), (term,)) for w in low[:-1]] or [])
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


__all__ = ["EnglishParser", "NoRule", "tokenize"]
