"""What a step's text asserts besides the relations a reader took out of it.

`prose_beyond_relations` blanks the relations' spans, citations of a known fact ("By the Pythagorean theorem")
and connectives ("So", "Therefore", "we get"), and returns the words that are left: "she sells 16 - 3 - 4 = 9
eggs" leaves "she sells eggs", a claim about what the 9 counts that no relation states. Every maths aligner
(sympy, Coq) asks it, so the domain's rule — a step verified on its relations proves its whole claim only when
nothing is left — holds whatever artifact checked the relations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from reasonforge.lang.math.expr import names_in
from reasonforge.lang.math.reading import answer_line
from reasonforge.lang.math.step import Relation
from reasonforge.lang.math.text import StepMath

__all__ = ["CITATION", "FILLER", "WORDS", "numbers_beyond_relations", "prose_beyond_relations", "stray_number"]

# Words that assert nothing about the problem: connectives, the verbs of calculation, pronouns. No operator word
# ("square", "double", "take away", "times"): one the reader read is inside its relation's span, and one it did
# not read says something about a value that no relation states.
FILLER = frozenset("""
so therefore thus hence then now we i you us our it its this that these those the a an let be is are was were
equals equal equaling to of and also finally next first second third last step here note since because as which
gives give giving yields yield get gets got have has obtain obtains find finds found means mean follows follow
compute computing computed calculate calculating calculated substitute substituting substituted plug plugging
plugged in into solve solving solved for with from both sides side divide dividing divided multiply multiplying
multiplied add adding added subtract subtracting subtracted simplify simplifying simplified rearrange
rearranging rearranged becomes become leaves leave true holds hold check checking can will must write writing
written expression equation equations result results value values answer answers when where if suppose assume
assuming given using use by or on at
""".split())  # noqa: SIM905 - a word list reads better as text
# "By the Pythagorean theorem", "by the distributive law": a justification names a known fact, it claims none.
# Only a name (capitalised: Pythagorean, Vieta's) or a known adjective may qualify it, and at most two words:
# otherwise a claim could hide inside a pretend citation ("by the Janet sells nine eggs rule").
CITATION = re.compile(r"\b(?:[Bb]y|[Ff]rom|[Uu]sing|[Aa]pplying|[Vv]ia)\s+(?:the\s+)?"
                       r"(?:(?:[A-Z][\w'’\-]*|distributive|commutative|associative|quadratic|binomial|remainder|"
                       r"factor|triangle|sine|cosine|power|product|quotient|chain)\s+){0,2}"
                       r"(?:theorem|rule|formula|law|identity|property|definition|lemma|principle)s?\b")
# a word in any script: Latin words of two letters or more (one letter is a name), and any run of letters of
# another script (`Неверно`, `是错误的`), whose words the reader never reads
WORDS = re.compile(r"[A-Za-z]{2,}|[^\W\d_A-Za-z]+")


def prose_beyond_relations(text: str, relations: Sequence[Relation]) -> str:
    """What the text asserts besides its relations (their spans, citations and connectives taken out); ""
    when the relations are all it says."""
    keep = list(text)
    for rel in relations:
        start, end = rel.span
        keep[start:end] = " " * (end - start)
    rest = CITATION.sub(" ", "".join(keep))
    names = {n for rel in relations for n in (*names_in(rel.lhs_tree), *names_in(rel.rhs_tree))}
    words = [w for w in WORDS.findall(rest) if w.lower() not in FILLER and w not in names]
    return " ".join(words)[:120]


# a number in the prose: digits (or a leading-dot decimal) not glued to a name before it (`x2`, `v_2`); a unit may
# follow glued (`18kg`), and so may a vulgar fraction (`6½`, which changes its value: never a restatement)
_NUMBER = re.compile(r"(?<![\w.,\\])(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?!\d|[.,]\d)([½⅓⅔¼¾⅕⅛])?")
_NUMBER_WORDS: dict[str, Fraction] = {w: Fraction(n) for n, w in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
     "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))} | {
    w: Fraction(n) for w, n in (("thirty", 30), ("forty", 40), ("fifty", 50), ("sixty", 60), ("seventy", 70),
                                ("eighty", 80), ("ninety", 90), ("hundred", 100), ("thousand", 1000),
                                ("million", 1000000), ("dozen", 12), ("twice", 2), ("double", 2), ("triple", 3))} | {
    "half": Fraction(1, 2)}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
# what numbers the text's layout or order names, not a value: "1. ", "2) ", "(3) " opening a line, "Step 4", "Case 2"
_MARKER = re.compile(r"(?:^|\n)\s*(?:\*\*)?(?:\(?\d+[.):](?=\s+\D)|(?:step|case|part)\s+\d+)|\b(?:step|case|part|line|"
                     r"equation|eq\.?)\s*\(?\d+\)?", re.IGNORECASE)
_ORDINAL_SUFFIX = re.compile(r"\d(?:st|nd|rd|th)\b")
# words that make a number a result the prose states ("gives 18", "the answer is 5", "makes a total of 9"): it must
# be a value a relation of the step checks, whatever else in the chain it equals
_RESULT_BEFORE = re.compile(
    r"(?:\b(?:gives?|giving|get|gets|got|getting|obtain|obtains|obtained|leaves|leaving|yields?|equals?|equaling|"
    r"makes|becomes?|comes?\s+to|amounts?\s+to|totals?|altogether|remain|remains)|\b(?:answer|result)\s+"
    r"(?:is|was|would\s+be|will\s+be|of))(?:\s+[A-Za-z]+){0,4}\s*[:=]?\s*\$?\s*$", re.IGNORECASE)
# a word that makes a number an operand of an operation the prose states ("adding 4", "divided by 2")
_OPERATION_BEFORE = re.compile(
    r"\b(?:add|adding|added|plus|minus|subtract|subtracting|subtracted|times|multiply|multiplying|multiplied|"
    r"divide|dividing|divided|by|increase|increased|increasing|decrease|decreased|decreasing|another|more|less|"
    r"fewer|extra)\s*\$?\s*$", re.IGNORECASE)
# a word right after a number that scales it: 12 dozen is no 12
_SCALE_AFTER = re.compile(r"\s*(?:dozens?|hundreds?|thousands?|millions?|billions?|k\b|grand)\b", re.IGNORECASE)


def numbers_beyond_relations(text: str, relations: Sequence[Relation], known: str = "",
                             read: Sequence[tuple[int, int]] = ()) -> list[str]:
    """The numbers the text states outside its relations (and the other `read` spans: assumptions), in digits or
    in words, that say something no relation checks: a result in words ("adding 5 gives 18", "so the answer is
    43"), an operand of an operation in words that no relation after it performs ("3 × 4 = 12, and adding 4
    gives 12"), a number scaled ("12 dozen") or changed (`6½`). A number is none of them when it numbers a line
    or a case, or restates a value: one of the relations' numbers (a percent as its fraction too: "14 percent"
    for x = .14), or (except as a result) one `known` states (the question, the steps before)."""
    keep = list(text)
    for start, end in (*(rel.span for rel in relations), *read):
        keep[start:end] = " " * (end - start)
    for m in _MARKER.finditer(text):
        keep[m.start():m.end()] = " " * (m.end() - m.start())
    rest = "".join(keep)
    stated = {_value(n) for rel in relations for n in _ANY_NUMBER.findall(rel.source)}
    given = {_value(n) for n in _ANY_NUMBER.findall(known)}
    later = sorted(((rel.span[0], {_value(n) for n in _ANY_NUMBER.findall(rel.source)}) for rel in relations),
                   key=lambda pair: pair[0])
    found = []
    numbers = [(m.start(), m.end(), m.group(1), _value(m.group(1)), m.group(2)) for m in _NUMBER.finditer(rest)]
    # a number word counts where it is a result or an operand ("adding five gives eighteen"); elsewhere "one of
    # the two" is no value
    numbers += [(m.start(), m.end(), m.group(1), _NUMBER_WORDS[m.group(1).lower()], None)
                for m in _NUMBER_WORD.finditer(rest)
                if _RESULT_BEFORE.search(rest, 0, m.start()) or _OPERATION_BEFORE.search(rest, 0, m.start())]
    for start, end, shown, value, fraction in sorted(numbers):
        if _ORDINAL_SUFFIX.match(text, end - 1):
            continue
        before = rest[max(0, start - 60):start]
        scale = _SCALE_AFTER.match(rest, end)
        # "$16 million" where the question counts in millions ("$32 million") restates 16; "12 dozen" of 12 eggs
        # scales it
        if fraction or (scale and not re.search(rf"\d\s*{re.escape(scale.group().strip())}", known, re.IGNORECASE)):
            found.append(shown + (fraction or ""))
            continue
        if _OPERATION_BEFORE.search(before):
            # "multiplying by 20 gives 8p = 5p + 3000", "they add another 18. … 18 + 18 = 36": a relation after it
            # performs the operation; with none ("3 × 4 = 12, and adding 4 gives 12"), what it gives is unchecked
            if not any(s > start and not _SENTENCE_BREAK.search(text, start, s) for s, _ in later) \
                    and not any(s > start and value in operands for s, operands in later):
                found.append(shown)
            continue
        if value in stated:
            continue
        if isinstance(value, Fraction) and _PERCENT_AFTER.match(rest, end) and value / 100 in stated \
                and (value / 100).denominator != 1:
            continue
        if value in given and not _RESULT_BEFORE.search(before):
            continue
        found.append(shown)
    return found


_ANY_NUMBER = re.compile(r"(?<![\w\\])(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?![\w])")
_PERCENT_AFTER = re.compile(r"\s*(?:%|\\%|percent\b|per\s+cent\b)", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"[.;!?](?:\s|$)|\n")


def stray_number(content: str, reading: StepMath, known: str, read: Sequence[tuple[int, int]] = ()) -> str | None:
    """Why a step whose relations all hold is not verified when its prose states a number no relation checks
    ("3 × 4 = 12. Adding 5 gives 18."): a result or operand in words is a claim the reader did not read. `known`:
    the question and the steps before; `read`: other spans a reader compares (parity, divisibility). Every maths
    aligner asks it, whatever artifact checked the relations."""
    if answer_line(content) is not None:
        return None  # an answer line is checked against the last value on its own
    stray = numbers_beyond_relations(content, reading.relations, known, [*(a.span for a in reading.assumptions), *read])
    if not stray:
        return None
    return (f"the step also states {stray[0]} outside every relation read, and no relation checks it: its relations "
            "are not all it says")


def _value(number: str) -> Fraction | str:
    """The number's value; past Python's digit limit for converting text, its digits (compared as written)."""
    digits = number.replace(",", "")
    return Fraction(digits) if len(digits) <= _MAX_DIGITS else digits.lstrip("0")


_MAX_DIGITS = 4000
