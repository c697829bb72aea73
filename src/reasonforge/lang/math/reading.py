"""A maths question and its steps read from their text: the relations a step asserts (`text.extract`, memoised), what
the question gives (its relations, hypotheses and cases; never the relation it asks about: "Is x = 5?") and what
it asks for (`Question`), which of its givens contradict each other (`Question.conflicts`: two values bound to one
name, or a given relation false under the values bound), and GSM8K answer lines. The offline translator and the
sympy aligner both read through here."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import sympy

from reasonforge.lang.math.expr import ExpressionError, Node, evaluate, has_percent, literals
from reasonforge.lang.math.step import Relation
from reasonforge.lang.math.text import StepMath, extract
from reasonforge.lang.math.tokens import HEDGE_WORDS, VALUE_WORDS
from reasonforge.lang.math.units import word_unit

__all__ = [
    "Question",
    "answer_line",
    "answer_units",
    "declared_functions",
    "false_under",
    "holds_property",
    "proper_names",
    "read_question",
    "read_text",
    "speaks_of_nonnegatives",
    "uses_function",
]

_NONNEGATIVE = re.compile(
    r"\b(lengths?|distances?|hypotenuse|sides?|radius|radii|diameter|perimeter|area|heights?|width|ages?|"
    r"number\s+of|how\s+many)\b",
    re.IGNORECASE,
)
_CACHED_READINGS = 2048
_CACHED_QUESTIONS = 64
_CACHED_TEXT = 4096  # characters: a longer text is read again each time, never kept
# what a question asks for: the object of one of these verbs ("find c", "what is the hypotenuse")
_ASK = re.compile(
    r"\b(?:what\s+(?:is|are|was|were|will\s+be)|what's|find|compute|calculate|determine|evaluate|solve\s+for|"
    r"how\s+many|how\s+much|value\s+of)\s+",
    re.IGNORECASE,
)
_LONE_NAME = re.compile(r"(?:\$|\\\(|\\\[)?\s*([A-Za-z])\s*(?:\$|\\\)|\\\])?(?=\s*(?:[?.,;:]|$|=\s*\?|\s(?:if|when|"
                        r"given|such|where|and|in|for|that|so)\b))")
_AND_NAME = re.compile(r"\s*(?:,|and|,\s*and)\s*(?:\$|\\\()?\s*([A-Za-z])\b\s*(?:\$|\\\))?")
_UNKNOWN_MARK = re.compile(r"(?<![A-Za-z])([A-Za-z])\s*=\s*\?")
_WORD = re.compile(r"[A-Za-z]+")
# words of an asked phrase that name no quantity of their own ("the value of", "how many more")
_NOT_NOUNS = frozenset((
    "the", "a", "an", "its", "his", "her", "their", "this", "that", "these", "those", "of", "each", "all", "total",
    "value", "values", "number", "numbers", "more", "many", "much",
))
# words that end an asked phrase ("how many pencils does he have")
_PHRASE_STOPS = frozenset((
    "is", "are", "was", "were", "be", "been", "will", "does", "do", "did", "has", "have", "had", "can", "could",
    "would", "should", "with", "if", "when", "given", "in", "on", "at", "for", "to", "from", "by", "and", "or", "as",
    "than", "then", "so", "such", "that", "which", "who", "whose", "where", "while", "after", "before",
))
_MAX_ASKED_WORDS = 4




def false_closed_claim(content: str, claimed_conclusion: str | None = None) -> str | None:
    """Why the step is false on its own arithmetic: a claim it asserts between numbers alone (`2 + 2 = 5`,
    `3 > 4`) that is false exactly, or None. Relations written with a decimal, a percent or ≈ are left to a
    checker that reads their rounding; so are those with names, whose values need the chain."""
    for rel in read_text(content, claimed_conclusion).claims:
        if rel.names or rel.op not in _EXACT_OPS or any(
                n.decimals > 0 for side in (rel.lhs_tree, rel.rhs_tree) for n in literals(side)) or \
                has_percent(rel.lhs_tree) or has_percent(rel.rhs_tree):
            continue
        try:
            lhs, rhs = evaluate(rel.lhs_tree), evaluate(rel.rhs_tree)
        except ExpressionError:
            continue
        holds = sympy.simplify(sympy.Rel(lhs, rhs, rel.op if rel.op != "!=" else "ne")) if rel.op != "=" \
            else sympy.simplify(lhs - rhs) == 0
        if holds is sympy.false or holds is False:
            return f"{rel.text} is false: {sympy.sstr(lhs)} against {sympy.sstr(rhs)}"
    return None


_EXACT_OPS = frozenset({"=", "<", ">", "<=", ">=", "!="})


def read_text(content: str, claimed_conclusion: str | None = None) -> StepMath:
    """A step's maths as the reader reads it; every relation of claimed_conclusion is a claim (`z = 5` there
    is what the step concludes, not a case), added when the content does not already claim it."""
    if len(content) + len(claimed_conclusion or "") > _CACHED_TEXT:
        return _read_text(content, claimed_conclusion)
    return _read(content, claimed_conclusion)


# The soundness gate re-reads every ancestor of every step, and reads what this translator read: memoised,
# since the reader is a pure function of the text and its results are immutable. Bounded in entries and in the
# length of what is kept, so the memory a server holds stays small whatever texts it is sent.
@functools.lru_cache(maxsize=_CACHED_READINGS)
def _read(content: str, claimed_conclusion: str | None) -> StepMath:
    return _read_text(content, claimed_conclusion)


def _read_text(content: str, claimed_conclusion: str | None) -> StepMath:
    math = extract(content)
    if not claimed_conclusion:
        return math
    extra = extract(claimed_conclusion)
    claimed = {r.text for r in math.claims}
    added = tuple(r for r in extra.relations if r.text not in claimed)
    return replace(math, claims=math.claims + added, notes=math.notes + extra.notes, unread=math.unread + extra.unread)


@dataclass(frozen=True)
class Question:
    """What the question gives (its relations, read as givens) and what it asks for."""

    givens: StepMath = field(default_factory=StepMath)
    asked_names: frozenset[str] = frozenset()  # "find c", "solve for x", "x = ?"
    asked_words: frozenset[str] = frozenset()  # "what is the hypotenuse" → hypotenuse
    nonnegative: bool = False  # it speaks of lengths or counts
    hundredths: bool = False  # it speaks of percents or cents: an answer may be a computed fraction times 100
    # givens that contradict each other ("Let x = 3. Let x = 4.", "Let x = 3. x + 1 = 5."): nothing follows
    # from them, so no step that uses their names is proven (the vacuity check)
    conflicts: tuple[tuple[Relation, Relation], ...] = ()
    functions: frozenset[str] = frozenset()  # letters it defines as functions (`p(n) = n^2 - n + 41`)
    # the names of people and things it tells of outside the sentence that asks, when that sentence names whom it
    # asks about ("Sean" in "Sean has 56 marbles. Cal has twice as many. How many does Cal have?"): an answer said
    # of one of them is not the asked quantity
    told_names: frozenset[str] = frozenset()

    @property
    def names(self) -> frozenset[str]:
        """Every name the question's givens use or it asks for."""
        used = {n for r in self.givens.relations for n in r.names}
        used |= {n for a in self.givens.assumptions for n in (a.relation.names if a.relation else {a.name or ""})}
        return frozenset(used - {""}) | self.asked_names

    @property
    def given_values(self) -> dict[str, sympy.Expr]:
        """The closed values the question binds its names to (none for a name it gives two values)."""
        values: dict[str, sympy.Expr] = {}
        for rel in self.givens.relations:
            value = _closed_value(rel.rhs_tree) if rel.bound_name else None
            if rel.bound_name and value is not None and rel.bound_name not in self.conflicting_names:
                values[rel.bound_name] = value
        return values

    @property
    def conflicting_names(self) -> frozenset[str]:
        """The names of the givens that contradict each other."""
        return frozenset().union(*(a.names | b.names for a, b in self.conflicts))

    def asked_in(self, text: str) -> frozenset[str]:
        """The names `text` puts right after an asked word ("the hypotenuse c = 9" → c)."""
        if not self.asked_words:
            return frozenset()
        words = "|".join(sorted(re.escape(w) for w in self.asked_words))
        found = set()
        linking = r"(?:\s+(?:is|be|was|equals|will\s+be|is\s+called|we\s+call))?"
        # one way to split each run of blanks, so a long run costs linear time
        for m in re.finditer(rf"\b(?:{words})s?\b{linking}[\s,:]*(?:(?:\$|\\\(|\\\[)\s*)?([A-Za-z])(?![\w'])", text,
                             re.IGNORECASE):
            name, rest = m.group(1), text[m.end():].lstrip()
            if name in "aAI" and re.match(r"[A-Za-z]{2,}", rest):
                continue  # the article "a", the pronoun "I"
            found.add(name)
        return frozenset(found)


def read_question(query: str) -> Question:
    """The question's givens (its relations; its hypotheses and cases are givens too) and what it asks for."""
    return _read_question(query) if len(query) <= _CACHED_TEXT else _question_of(query)


@functools.lru_cache(maxsize=_CACHED_QUESTIONS)
def _read_question(query: str) -> Question:
    return _question_of(query)


def _question_of(query: str) -> Question:
    if not query.strip():
        return Question()
    raw = extract(query, question=True)
    # the question's conditions ("if 2x + 3 = 7", "for n = 5") are what it gives, not hypotheses of a step; a
    # name it gives several values in cases ("15 when x = 2 and 3 when x = 5") has scenarios, not a value: no
    # given. Bindings of one name to two values ("Let x = 3. Let x = 4.") are no scenarios: they contradict.
    facts = tuple(a.relation for a in raw.assumptions if a.relation is not None and a.relation.op == "=")
    hypotheses = Counter(r.bound_name for r in (*raw.cases, *facts) if r.bound_name)
    scenarios = {name for name, count in Counter(r.bound_name for r in (*raw.bindings, *raw.cases, *facts)).items()
                 if name is not None and count > 1 and hypotheses[name]}
    fixed = tuple(r for r in (*raw.bindings, *raw.cases) if r.bound_name not in scenarios)
    claims = tuple(sorted((*raw.claims, *(f for f in facts if f.bound_name not in scenarios)), key=lambda r: r.span))
    givens = replace(raw, claims=claims, bindings=tuple(sorted(fixed, key=lambda r: r.span)), cases=(),
                     assumptions=tuple(a for a in raw.assumptions if a.relation is None or a.relation.op != "="))
    names: set[str] = set(_UNKNOWN_MARK.findall(query))
    words: set[str] = set()
    for m in _ASK.finditer(query):
        rest = query[m.end():]
        lone = _LONE_NAME.match(rest)
        if lone:
            names.add(lone.group(1))
            tail = rest[lone.end():]
            while (more := _AND_NAME.match(tail)) is not None:
                names.add(more.group(1))
                tail = tail[more.end():]
            continue
        taken, previous_end = 0, 0
        for word in _WORD.finditer(rest[:200]):
            lower = word.group().lower()
            if taken and re.search(r"[^\w\s'-]", rest[previous_end:word.start()]):
                break  # the asked phrase ends with its clause (or at a number, a formula)
            previous_end = word.end()
            if lower in _PHRASE_STOPS:
                break
            if lower in _NOT_NOUNS or len(lower) < 3:
                continue
            words.add(lower)
            taken += 1
            if taken == _MAX_ASKED_WORDS:
                break
    words.add("answer")
    question = Question(givens=givens, asked_names=frozenset(names), asked_words=frozenset(words),
                        nonnegative=bool(_NONNEGATIVE.search(query)), hundredths=_asks_hundredths(query),
                        conflicts=_conflicts(raw.bindings, (*fixed, *claims, *(
                            a.relation for a in givens.assumptions if a.relation is not None))))
    # "what is the length of the third side c?": the question names what it asks for
    return replace(question, asked_names=question.asked_names | question.asked_in(query),
                   functions=declared_functions(query), told_names=_told_names(query))


_HUNDREDTHS = re.compile(r"\b(?:percent|percentage|per\s+cent|cents?|pennies)\b|%", re.IGNORECASE)


def _asks_hundredths(query: str) -> bool:
    """Whether what the question asks is a percent or cents ("By what percent …?", "How many cents …?"): the
    asking sentence says so; "50 percent off" among the givens does not."""
    asking = [s for s in _SENTENCE_END.split(query) if "?" in s or _ASK.search(s)]
    return bool(asking and _HUNDREDTHS.search(asking[-1]))


def proper_names(text: str) -> frozenset[str]:
    """The capitalised words of `text` that are no sentence's function word ("Sean", "Cal", not "How", "The")."""
    return frozenset(w for w in _CAPITALISED.findall(text) if w.lower() not in _NOT_NAMES)


def _told_names(query: str) -> frozenset[str]:
    """The proper names of the question's sentences other than its last asking one (see `Question.told_names`)."""
    sentences = [s for s in _SENTENCE_END.split(query) if s.strip()]
    asking = next((k for k in range(len(sentences) - 1, -1, -1)
                   if "?" in sentences[k] or _ASK.search(sentences[k])), None)
    if asking is None:
        return frozenset()
    asked = proper_names(sentences[asking])
    if not asked:  # "How many do they have?": whom a pronoun means is not read, so no name is ruled out
        return frozenset()
    return frozenset().union(*(proper_names(s) for k, s in enumerate(sentences) if k != asking)) - asked


_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:['’]s)?\b")
_NOT_NAMES = frozenset((
    "how", "what", "which", "who", "whom", "whose", "when", "where", "why", "if", "the", "a", "an", "each", "every",
    "she", "he", "they", "it", "its", "his", "her", "their", "there", "this", "that", "these", "those", "in", "on",
    "at", "after", "before", "then", "so", "for", "we", "you", "i", "find", "compute", "calculate", "determine",
    "let", "suppose", "given", "assume", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "some", "all", "both", "many", "much", "during", "while", "today", "tomorrow", "yesterday", "monday",
    "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april",
    "may", "june", "july", "august", "september", "october", "november", "december", "therefore", "thus", "hence",
    "and", "but", "or", "since", "because", "as", "to", "of", "by", "with", "from", "into", "is", "are", "was",
    "were", "will", "can", "do", "does", "did", "has", "have", "had", "answer", "total", "altogether",
))


# `p(n) =`, `a(k)=`: a letter applied to another letter, then defined; `x(x + 1)` is a product
_DECLARES_FUNCTION = re.compile(r"(?<![A-Za-z\\])([A-Za-z])\(\s*([A-Za-z])\s*\)\s*=")


def declared_functions(text: str) -> frozenset[str]:
    """The letters `text` defines as functions of another letter (`p(n) = n^2 - n + 41`): where it writes
    `p(n + 1)`, that is p's value at n + 1, never p times n + 1."""
    return frozenset(m.group(1) for m in _DECLARES_FUNCTION.finditer(text) if m.group(1) != m.group(2))


def uses_function(source: str, functions: frozenset[str]) -> bool:
    """Whether a relation's text applies one of `functions` (`p(n+1)`, `p (3)`)."""
    return any(re.search(rf"(?<![A-Za-z\\]){re.escape(f)}\s*\(", source) for f in functions)


def _closed_value(node: Node) -> sympy.Expr | None:
    try:
        value = evaluate(node)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return None
    return None if value.free_symbols else value


def _conflicts(bindings: Sequence[Relation], givens: Sequence[Relation]) -> tuple[tuple[Relation, Relation], ...]:
    """Pairs of givens that cannot both hold: two bindings of one name to different values, or a given
    relation that is false once the names it uses are replaced by the values bound to them (decided exactly;
    a pair that cannot be decided is not reported)."""
    out: list[tuple[Relation, Relation]] = []
    values: dict[str, tuple[Relation, sympy.Expr]] = {}
    for rel in bindings:
        value = _closed_value(rel.rhs_tree) if rel.bound_name else None
        if rel.bound_name is None or value is None:
            continue
        seen = values.get(rel.bound_name)
        if seen is None:
            values[rel.bound_name] = (rel, value)
        elif sympy.simplify(seen[1] - value) != 0:
            out.append((seen[0], rel))
    if out:
        return tuple(out)
    for rel in givens:
        if rel.bound_name in values and values[rel.bound_name][0] is rel or not rel.names \
                or not rel.names <= values.keys():
            continue  # (a relation without names conflicts with no value: "Sam says 15 + 27 = 43. Is he right?")
        if false_under(rel, {name: value for name, (_, value) in values.items()}):
            out.append((values[min(rel.names)][0], rel))
    return tuple(out)


def false_under(rel: Relation, values: Mapping[str, sympy.Expr]) -> bool:
    """Whether `rel` is false once its names take `values` (exactly decided; undecided is not false)."""
    try:
        gap = evaluate(rel.lhs_tree) - evaluate(rel.rhs_tree)
        gap = sympy.simplify(gap.subs({s: values[s.name] for s in gap.free_symbols if s.name in values}))
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return False
    if gap.free_symbols or not gap.is_real:
        return False
    return bool({"=": gap != 0, "!=": gap == 0, "<": gap >= 0, ">": gap <= 0, "<=": gap > 0,
                 ">=": gap < 0}.get(rel.op, False))


_PROPERTY_TESTS = {
    "even": lambda v: v.is_integer and v % 2 == 0, "odd": lambda v: v.is_integer and v % 2 == 1,
    "positive": lambda v: v > 0, "negative": lambda v: v < 0, "nonnegative": lambda v: v >= 0,
    "nonpositive": lambda v: v <= 0, "integer": lambda v: v.is_integer, "prime": lambda v: v.is_integer and
    sympy.isprime(int(v)), "rational": lambda v: v.is_rational, "real": lambda v: v.is_real,
}


def holds_property(value: sympy.Expr, properties: Sequence[str]) -> bool:
    """Whether a closed value has every property it is said to have (`even`, `positive`, `prime`, …); a property
    the reader does not know, or one it cannot decide, counts as holding (never a contradiction it cannot show)."""
    for prop in properties:
        test = _PROPERTY_TESTS.get(prop.replace("-", ""))
        try:
            verdict = test(value) if test is not None and value.is_real else True
        except (TypeError, ValueError):
            verdict = True
        if verdict is False or verdict is sympy.false:
            return False
    return True


def answer_line(content: str) -> str | None:
    """The answer of a step that only states the final answer, else None: a GSM8K answer line (`#### 72` → `72`), or
    one sentence whose one number is boxed and whose other words only say what it counts ("Therefore, the combined
    number of marbles is \\boxed{336}.", "So Scarlett spent a total of $\\boxed{\\$33.00}$."). Such a sentence says
    the boxed value is the answer, as `#### N` does; a sentence with another number, a relation, a second box, a
    negation or a bound ("at least", "more than", "about") says more than that, and is not one."""
    stripped = content.strip()
    if not stripped.startswith("####"):
        return _boxed_answer(stripped)
    answer = stripped[4:].strip()
    return answer if answer and "\n" not in answer and "\r" not in answer else None


_MAX_ANSWER_SENTENCE = 400
_BOX_OPEN = "\\boxed{"
# what may surround the box: words, commas, an apostrophe, a colon, LaTeX delimiters and `\text{…}` words (no
# sign, no digit, no relation)
_ANSWER_PROSE = re.compile(r"[A-Za-z ,'’:]*")
_DELIMITERS = re.compile(r"\\[()\[\]]|\$|\\text\s*\{([A-Za-z ]*)\}")
# words that make the sentence say more than "the answer is N": a number or an operation on it, a negation, a bound,
# an estimate, a condition, a rate, a share, another unit of money
_MORE_THAN_AN_ANSWER = (VALUE_WORDS | HEDGE_WORDS | frozenset((
    "instead", "guess", "exactly", "each", "every", "had", "cent", "cents", "pence", "penny", "pennies", "percent",
    "incorrect", "wrong",
))) - {"up"}  # "fill up" is no bound; "up to" is (`_BOUND`)
_BOUND = re.compile(r"\bup\s+to\b", re.IGNORECASE)
_BOLD = re.compile(r"\*\*|__")  # markdown emphasis around the box or the sentence


def _boxed_answer(text: str) -> str | None:
    """The boxed value of a sentence that only states it as the answer (see `answer_line`), else None."""
    text = _BOLD.sub("", text)
    if len(text) > _MAX_ANSWER_SENTENCE or "\n" in text or text.count(_BOX_OPEN) != 1 or _BOUND.search(text):
        return None
    start = text.index(_BOX_OPEN)
    end = _box_end(text, start)
    if end is None:
        return None
    boxed = text[start + len(_BOX_OPEN):end - 1].strip()
    prose = _DELIMITERS.sub(lambda m: f" {m.group(1) or ''} ", text[:start] + " " + text[end:]).strip()
    prose = prose[:-1] if prose.endswith((".", "!")) else prose
    if not boxed or not _ANSWER_PROSE.fullmatch(prose):
        return None
    words = {w.lower() for w in _WORD.findall(prose.replace("’", "'").replace("'", " "))}
    return None if words & _MORE_THAN_AN_ANSWER else boxed


def _box_end(text: str, start: int) -> int | None:
    """Where the `\\boxed{` at `start` closes (just past its brace), or None when its braces never balance."""
    depth, end = 1, start + len(_BOX_OPEN)
    while end < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        end += 1
    return None if depth else end


def answer_units(content: str) -> list[str]:
    """The unit the word right after an answer sentence's box names ("liters" in "… is \\boxed{90} liters"), by
    name: what its number counts in (a unit elsewhere, "in that week", says when, not what)."""
    start = content.find(_BOX_OPEN)
    end = _box_end(content, start) if start >= 0 else None
    word = re.match(r"\s*([A-Za-z]+)", _DELIMITERS.sub(" ", content[end:])) if end is not None else None
    unit = word_unit(word.group(1).lower()) if word else None
    return [unit[1]] if unit is not None else []


def speaks_of_nonnegatives(text: str) -> bool:
    """Does `text` speak of a length, distance, side, area, age, "number of" or "how many" (nonnegative quantities)?"""
    return _NONNEGATIVE.search(text) is not None
