"""What the offline reader can read from a code step's text: doctest examples and a few plain claims.

Examples: runs of `>>>` lines (with `...` continuations) and the output written under them, wherever they
stand in the text: in prose, in a fenced block, in a docstring (a line holding only the closing quotes
ends the expected output); and examples in prose (`f(3) should return 9`), read only where their sentence states
them: one it supposes, negates, asks about or calls a bug ("if f(3) is 9, the one was forgotten") is not what the
code must give. Shared by the checker, which runs them against whatever artifact the step
carries (`step_checks.py`), and the offline translator, which turns them into tests (`translate/code_blocks.py`).

Claims: a small, explicit phrase table. Each entry names a reference any reader agrees on (the largest
element is `max(xs)`, the arithmetic mean `sum(xs) / len(xs)`, twice n `2 * n`), so a claim becomes a
property check on generated inputs. The table is strict on purpose: the phrase must stand alone (`returns
the largest element`, `returns the list sorted in descending order`), so that "returns the largest sum of a
subarray" or "returns the maximum of a and b" are not read as something they do not say; negated or
conditional phrasing ("does not return", "if the list is sorted, it returns") is never read. A requirement
("should return", "must return") is not a claim a step makes about its code, but it is what a question asks
for: read with `requirement=True` (the question's text), such phrasing counts, and only when nothing but
the sentence's end (or what the work costs, "in O(n)") follows the phrase: a question goes on to qualify
("..., without duplicates", "... with its index"). What the table does not know is not checked, and the
evidence says so.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["NUMBER_CLAIMS", "OPTIONS", "REFERENCES", "STRING_CLAIMS", "TRACEBACK", "ClaimKind", "ReadClaim",
           "code_blocks", "defined_functions", "doctest_blocks", "doctest_options", "elides", "loosened_by",
           "prose_examples", "raised_name", "read_claims", "strip_fences"]

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
PY_TAGS = {"", "python", "py", "python3", "pycon", "doctest"}
_CLOSING_QUOTES = ('"""', "'''")

Example = tuple[str, str | None]  # (source, expected output or None for a statement)

# Words that make a phrase something other than a statement of what the code does: negated, supposed, tried,
# called wrong (a claim of the table, or an example in prose).
_NEGATION = (r"not|never|no|cannot|instead|rather|unlike|would|could|might|may|tries|try|if|whether|unless|fails?|"
             r"wrong(?:ly)?|incorrect(?:ly)?|bug(?:gy)?|supposedly|claims?|pretends?|assume")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=\s*[-*>#])")


# doctest's own reading of a directive (`doctest.DocTestParser._OPTION_DIRECTIVE_RE`): a comment ending a source line
_DIRECTIVE = re.compile(r"#\s*doctest:\s*([^\n'\"]*)$", re.MULTILINE)
_OPTION = re.compile(r"([+-])\s*([A-Z_][A-Z0-9_]*)")
OPTIONS = frozenset({"ELLIPSIS", "NORMALIZE_WHITESPACE", "IGNORE_EXCEPTION_DETAIL", "SKIP", "DONT_ACCEPT_BLANKLINE",
                     "DONT_ACCEPT_TRUE_FOR_1"})
# options a whole text sets for its examples: `doctest.testmod(optionflags=doctest.ELLIPSIS)`, pytest's
# `doctest_optionflags = ELLIPSIS`, `flags = doctest.NORMALIZE_WHITESPACE`
_TEXT_OPTIONS = re.compile(r"[^\n]*optionflags[^\n]*|\bdoctest\.[A-Z_][A-Z0-9_]*", re.IGNORECASE)
_OPTION_NAME = re.compile(r"\b(?:" + "|".join(sorted(OPTIONS)) + r")\b")
_BLANKLINE = "<BLANKLINE>"
TRACEBACK = "Traceback (most recent call last)"
# the exception's name where the exception line stands: followed by its message's colon, or ending the output
_RAISED = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Iteration))(?=:|\s*$)")


def doctest_blocks(text: str) -> list[list[Example]]:
    """Doctest examples: runs of `>>>` lines (with `...` continuations) and their expected output, as doctest reads
    them: an example under SKIP is not one (doctest never runs it), a `<BLANKLINE>` line of the output is an empty
    one (unless DONT_ACCEPT_BLANKLINE), and the options the text sets for all its examples (`optionflags`) are
    written into each example's directive, where `doctest_options` reads them."""
    blocks: list[list[Example]] = []
    current: list[Example] = []
    lines = text.splitlines()
    shared = _text_options(text)
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith(">>>"):
            source = [stripped[3:].strip()]
            i += 1
            while i < len(lines) and lines[i].strip().startswith("..."):
                source.append(lines[i].strip()[3:].lstrip(" "))
                i += 1
            expected: list[str] = []
            while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
                line = lines[i].strip()
                if line.startswith("```") or line.startswith(_CLOSING_QUOTES):
                    break
                closing = next((q for q in _CLOSING_QUOTES if line.endswith(q)), None)
                if closing is not None:  # `3"""`: the output ends the docstring
                    line = line[: -len(closing)].rstrip()
                    if line:
                        expected.append(line)
                    i += 1
                    break
                expected.append(line)
                i += 1
            example = _as_doctest_reads("\n".join(source), expected, shared)
            if example is not None:
                current.append(example)
            continue
        if not stripped and current:
            # a blank line ends an example block only if no >>> follows immediately
            nxt = next((ln.strip() for ln in lines[i + 1:] if ln.strip()), "")
            if not nxt.startswith(">>>"):
                blocks.append(current)
                current = []
        i += 1
    if current:
        blocks.append(current)
    return blocks


def doctest_options(source: str) -> frozenset[str]:
    """The doctest options an example's directives (`# doctest: +ELLIPSIS, -SKIP`) turn on, in doctest's order."""
    on: set[str] = set()
    for directive in _DIRECTIVE.finditer(source):
        for sign, name in _OPTION.findall(directive.group(1)):
            if name in OPTIONS:
                (on.add if sign == "+" else on.discard)(name)
    return frozenset(on)


def loosened_by(source: str, expected: str) -> str | None:
    """The doctest option in effect on an example under which its output `expected` matches more than it writes
    (ELLIPSIS when it elides with `...`, NORMALIZE_WHITESPACE), or None: compared as written, such an output
    would refute what doctest passes."""
    options = doctest_options(source)
    if "ELLIPSIS" in options and "..." in expected:
        return "ELLIPSIS"
    return "NORMALIZE_WHITESPACE" if "NORMALIZE_WHITESPACE" in options else None


def elides(expected: str) -> bool:
    """Whether an output written as a Python literal holds `...` where a value stands: repr never writes the
    Ellipsis constant so (it writes `Ellipsis`), so the `...` elides what was printed (doctest's ELLIPSIS, set
    where the text does not show it)."""
    try:
        tree = ast.parse(expected.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return any(isinstance(node, ast.Constant) and node.value is Ellipsis for node in ast.walk(tree))


def raised_name(expected: str) -> str | None:
    """The name of the exception an expected traceback shows (`ValueError` of `Traceback (most recent call
    last): ... ValueError: empty`), or None when no exception line can be told from the rest."""
    found = _RAISED.search(expected, len(TRACEBACK))
    return found.group(1).split(".")[-1] if found else None


def _text_options(text: str) -> frozenset[str]:
    """The options a text turns on for all its examples (its `optionflags`)."""
    return frozenset(name for m in _TEXT_OPTIONS.finditer(text) for name in _OPTION_NAME.findall(m.group(0)))


def _as_doctest_reads(source: str, expected: list[str], shared: frozenset[str]) -> Example | None:
    """One example as doctest runs it (see `doctest_blocks`), or None when doctest skips it."""
    own = doctest_options(source)
    written = [m.group(1) + m.group(2) for d in _DIRECTIVE.finditer(source) for m in _OPTION.finditer(d.group(1))]
    inherited = sorted(name for name in shared if not any(w[1:] == name for w in written))
    if inherited:  # the example's own directive decides what it names; the text's options, the rest
        options = ", ".join(["+" + name for name in inherited] + written)
        source = f"{_DIRECTIVE.sub('', source).rstrip()}  # doctest: {options}"
    if "SKIP" in own or "SKIP" in inherited:
        return None
    if "DONT_ACCEPT_BLANKLINE" not in own and "DONT_ACCEPT_BLANKLINE" not in inherited:
        expected = ["" if line == _BLANKLINE else line for line in expected]
    return source, " ".join(expected) if expected else None


# `f(3) should return 9`, `f(3) → 9`, `f(3) == 9`: a call, one of these, and a literal to the end of the clause
_PROSE_SEPARATOR = re.compile(r"\s*(?:should\s+(?:return|be|give|equal|output)|must\s+(?:return|be|give)|will\s+"
                              r"(?:return|be|give)|returns|gives|outputs|is|==|→|->|=>|⟶)\s*", re.IGNORECASE)
_CALL_START = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
_CLAUSE_END = re.compile(r"[.;,]?\s*(?:$|\n)|[.;]\s+|,\s+(?=[A-Za-z])")
_MAX_PROSE_EXAMPLE = 2000
# Words that make an example in prose something other than what the code is to give: a case supposed or
# described ("if f(3) is 9, the one was forgotten", "when f(3) returns 9"), a negation, a bug, a question. The
# claims' negations, and the hypothesis words the maths reader (`lang/math/roles.py`) reads as a case.
_NOT_STATED = re.compile(
    rf"\b(?:{_NEGATION}|when|whenever|suppose[sd]?|supposing|assum(?:es|ed|ing)|imagine|say|were|bugs?|"
    r"mistakes?|mistaken(?:ly)?|erroneous(?:ly)?|broken|faulty|forg[eo]t(?:s|ten)?|naive(?:ly)?|typo|otherwise|"
    r"else|versus|vs)\b|n't\b|\?", re.IGNORECASE)
# a list item (`- f(3) is 9`, `2) f(4) is 16`): the line leading the list in ("Common bugs:") governs it too
_ITEM = re.compile(r"[ \t]*(?:[-*+•>#]|\(?\d{1,3}[.)])\s")


def prose_examples(text: str) -> list[list[Example]]:
    """Examples written in prose (`_prose_of`: not code), one each: a call, then "should return" (be, give, equal),
    "returns", "==", "→" or "->", then a Python literal that ends its clause (`sum_list([1, 2]) should return 3.`).
    Read whole or not at all: the call must parse, the value must be a literal (`ast.literal_eval`), nothing but the
    clause's end may follow it, and a doctest line (`>>>`, read by `doctest_blocks`) is not read. Only what the text
    states is read: an example whose sentence (or, in a list, the line leading the list in) also supposes, negates,
    calls it a bug or asks (`_NOT_STATED`: "if f(3) is 9, the one was forgotten", "f(3) should not return 9",
    "f(3) == 9 is wrong", "Common bugs:" over "- f(3) is 9") is a case described, not what the code must give."""
    prose = "\n".join(_prose_of(text))
    bounds = [m.end() for m in _SENTENCE_END.finditer(prose)]
    lines = prose.splitlines()
    starts = [0]
    for kept in prose.splitlines(keepends=True):
        starts.append(starts[-1] + len(kept))
    out: list[list[Example]] = []
    for i, line in enumerate(lines):
        if line.lstrip().startswith((">>>", "...")) or len(line) > _MAX_PROSE_EXAMPLE:
            continue
        for start in _CALL_START.finditer(line):
            close = _closing_paren(line, start.end() - 1)
            if close is None:
                continue
            call = line[start.start():close + 1]
            separator = _PROSE_SEPARATOR.match(line, close + 1)
            if separator is None:
                continue
            clause = _literal_clause(line[separator.end():])
            if clause is None:
                continue
            value, length = clause
            try:
                ast.parse(call, mode="eval")
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                continue
            at = starts[i] + start.start()
            first = _sentence_before(bounds, at)
            if _ITEM.match(line):
                lead = _lead_in(lines, i)
                if lead is not None:
                    first = min(first, _sentence_before(bounds, starts[lead] + len(lines[lead].rstrip())))
            end = starts[i] + separator.end() + length
            after = bisect.bisect_right(bounds, end)
            around = prose[first:at] + " " + prose[end:bounds[after] if after < len(bounds) else len(prose)]
            if _NOT_STATED.search(around) is None:
                out.append([(call, value)])
    return out


def _sentence_before(bounds: list[int], pos: int) -> int:
    """Where the sentence holding `pos` starts."""
    k = bisect.bisect_right(bounds, pos)
    return bounds[k - 1] if k else 0


def _lead_in(lines: list[str], item: int) -> int | None:
    """The line that leads in the list whose item is line `item` (the nearest line above that is neither an item
    nor blank), if any."""
    for k in range(item - 1, -1, -1):
        if lines[k].strip() and not _ITEM.match(lines[k]):
            return k
    return None


def _prose_of(text: str) -> list[str]:
    """The prose of a text, where examples in words stand: never its code (fenced blocks are code: an `assert`
    in a test is the author's test, read as such elsewhere), and of a text that is code defining functions (a
    question's stub) only the docstrings."""
    text = strip_fences(text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return [text]
    defining = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    if not any(isinstance(node, defining) for node in ast.walk(tree)):
        return [text]
    return [doc for node in ast.walk(tree) if isinstance(node, (ast.Module, *defining))
            if (doc := ast.get_docstring(node))]


def _closing_paren(line: str, opening: int) -> int | None:
    """The index of the parenthesis closing the one at `opening` (strings skipped), else None."""
    depth, quote = 0, ""
    for k in range(opening, len(line)):
        ch = line[k]
        if quote:
            if ch == quote and line[k - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return k if ch == ")" else None
    return None


# `set((4, 5))`, `sorted([3, 1])`: a builtin applied to a literal, as MBPP's asserts write an expected value
_BUILT = re.compile(r"(set|tuple|list|sorted)\((.*)\)", re.DOTALL)
_BUILDERS: dict[str, Callable[[Any], Any]] = {"set": set, "tuple": tuple, "list": list, "sorted": sorted}


def _literal_clause(rest: str) -> tuple[str, int] | None:
    """The Python literal that `rest` starts with when only the clause's end follows it (its source, or the
    literal a builtin makes of a literal: `set((4, 5))` → `{4, 5}`), and how much of `rest` it takes; else None."""
    for end in sorted({m.start() for m in _CLAUSE_END.finditer(rest)}):
        candidate = rest[:end].strip().strip("`")
        if not candidate:
            return None
        built = _BUILT.fullmatch(candidate)
        try:
            if built is None:
                ast.literal_eval(candidate)
                return candidate, end
            value = _BUILDERS[built.group(1)](ast.literal_eval(built.group(2)))
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
        shown = repr(value)
        return (shown, end) if shown != "set()" else None  # `set()` is no literal
    return None


def code_blocks(text: str) -> list[str]:
    """The Python code in `text`: its fenced python blocks that are not doctest sessions, or, when it has
    no fence and parses as a module (a function stub with its docstring, as a question may hold), the text."""
    fenced = [m.group(2) for m in FENCE.finditer(text) if m.group(1).lower() in PY_TAGS]
    if fenced or "```" in text:
        return [body for body in fenced if not body.lstrip().startswith(">>>")]
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [text]


def strip_fences(text: str) -> str:
    """`text` without its fenced blocks (the prose around them)."""
    return FENCE.sub("\n", text)


def defined_functions(text: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The top-level functions (not tests) that the text's code defines, in order."""
    out: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for body in code_blocks(text):
        try:
            tree = ast.parse(body)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        out.extend(n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                   and not n.name.startswith("test"))
    return out


# ------------------------------------------------------------------------------------------ claims


class ClaimKind(StrEnum):
    """The references a read claim is checked against (one sequence argument)."""

    MAX = "max"
    MIN = "min"
    SORTED = "sorted"
    SORTED_DESC = "sorted_desc"
    SUM = "sum"
    REVERSED_LIST = "reversed_list"
    REVERSED_STR = "reversed_str"
    LENGTH_LIST = "length_list"
    LENGTH_STR = "length_str"
    MEAN = "mean"
    MEDIAN = "median"
    ABS = "abs"
    DOUBLE = "double"
    TRIPLE = "triple"
    SQUARE = "square"


REFERENCES: dict[ClaimKind, str] = {  # the reference, as a function of the argument x
    ClaimKind.MAX: "max(x)", ClaimKind.MIN: "min(x)", ClaimKind.SORTED: "sorted(x)",
    ClaimKind.SORTED_DESC: "sorted(x, reverse=True)", ClaimKind.SUM: "sum(x)",
    ClaimKind.REVERSED_LIST: "x[::-1]", ClaimKind.REVERSED_STR: "x[::-1]", ClaimKind.LENGTH_LIST: "len(x)",
    ClaimKind.LENGTH_STR: "len(x)", ClaimKind.MEAN: "sum(x) / len(x)", ClaimKind.MEDIAN: "sorted(x)[len(x) // 2]",
    ClaimKind.ABS: "abs(x)", ClaimKind.DOUBLE: "2 * x", ClaimKind.TRIPLE: "3 * x", ClaimKind.SQUARE: "x * x",
}
NUMBER_CLAIMS = frozenset({ClaimKind.ABS, ClaimKind.DOUBLE, ClaimKind.TRIPLE, ClaimKind.SQUARE})
STRING_CLAIMS = frozenset({ClaimKind.REVERSED_STR, ClaimKind.LENGTH_STR})


@dataclass(frozen=True)
class ReadClaim:
    """One claim the phrase table read: its kind, the words matched, the sentence around them, and the
    function it names (or None: the reader has to find the function)."""

    kind: ClaimKind
    phrase: str
    sentence: str
    function: str | None = None


_VERB = r"(?:returns?|returning|gives?|computes?|calculates?|finds?|outputs?|yields?|produces?)"
_DET = r"(?:the\s+|a\s+|an\s+|its\s+)?(?:given\s+|input\s+)?(?:non-?empty\s+)?"
_NAME = r"`[A-Za-z_]\w*`"
_SEQ = rf"(?:list|array|sequence|iterable|collection|input|numbers|values|elements|items|integers|{_NAME})"
_ELEMENTS = r"(?:elements|numbers|values|items|integers|entries)"
_IN_SEQ = rf"(?:\s+(?:of|in|from)\s+{_DET}{_SEQ}(?:\s+{_NAME})?)?"
# what may follow a claim: its end, or words that do not change what is returned
_END = (r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:in\s+O\(|in\s+(?:linear|constant|one|a\s+single)\b|using\b|with\b|"
        r"for\s+(?:any|every|each|all|a)\b|by\s+))")
_DESC = r"\s+in\s+(?:descending|decreasing|reverse)\s+order"
_ASC = r"(?:\s+in\s+(?:ascending|increasing|sorted|non-decreasing)\s+order)?"
_PATTERNS: list[tuple[re.Pattern[str], ClaimKind | None]] = [
    (re.compile(rf"\b{_VERB}\s+the\s+(?:largest|biggest|greatest|maximum|max|highest)"
                rf"(?:\s+(?:element|item|value|number|entry|integer))?{_IN_SEQ}{_END}", re.IGNORECASE), ClaimKind.MAX),
    (re.compile(rf"\b{_VERB}\s+the\s+(?:smallest|least|lowest|minimum|min)"
                rf"(?:\s+(?:element|item|value|number|entry|integer))?{_IN_SEQ}{_END}", re.IGNORECASE), ClaimKind.MIN),
    (re.compile(rf"\b{_VERB}\s+(?:the|a|an)\s+(?:new\s+)?sorted\s+(?:copy|version|list|array)"
                rf"(?:\s+of\s+{_DET}{_SEQ})?(?P<order>{_DESC}|{_ASC}){_END}", re.IGNORECASE), None),
    (re.compile(rf"\b{_VERB}\s+the\s+(?:list|array|elements|items|numbers|input|{_NAME})\s+"
                rf"(?:sorted(?P<order>{_DESC}|{_ASC})|in\s+(?:ascending|increasing|sorted)\s+order){_END}", re.IGNORECASE), None),
    (re.compile(rf"\b{_VERB}\s+the\s+(?:elements|items|numbers|values)\s+in\s+(?:descending|decreasing)\s+order{_END}",
                re.IGNORECASE), ClaimKind.SORTED_DESC),
    (re.compile(rf"\b{_VERB}\s+the\s+(?:sum|total)\s+of\s+(?:all\s+)?(?:(?:the\s+)?{_ELEMENTS}"
                rf"(?:\s+(?:of|in)\s+{_DET}{_SEQ})?|{_DET}(?:list|array|sequence|input|{_NAME})){_END}", re.IGNORECASE),
     ClaimKind.SUM),
    (re.compile(rf"\b{_VERB}\s+the\s+(?:reversed?|backwards?)\s+(?P<noun>list|array|sequence|string|str|word)"
                rf"{_END}", re.IGNORECASE), None),
    (re.compile(rf"\b{_VERB}\s+the\s+(?P<noun>list|array|sequence|string|word)\s+(?:reversed|backwards){_END}", re.IGNORECASE),
     None),
    (re.compile(rf"\b{_VERB}\s+the\s+reverse\s+of\s+{_DET}(?P<noun>list|array|sequence|string|word){_END}", re.IGNORECASE),
     None),
    (re.compile(rf"\breverses\s+(?:the|a)\s+(?:given\s+|input\s+)?(?P<noun>string|word){_END}", re.IGNORECASE), None),
    (re.compile(rf"\b{_VERB}\s+the\s+(?:length|size)\s+of\s+{_DET}(?P<noun>list|array|sequence|string|word|"
                rf"{_NAME}){_END}", re.IGNORECASE), None),
    (re.compile(rf"\b{_VERB}\s+the\s+number\s+of\s+(?P<noun>elements|items|entries|characters|letters)\s+"
                rf"(?:in|of)\s+{_DET}(?:list|array|sequence|string|word|{_NAME}){_END}", re.IGNORECASE), None),
]
# a number the claim is about: a name (`n`, n), or the argument in words
_NUM = (r"(?:`[A-Za-z_]\w*`|(?!(?:as|the|a|an|it|its|that|this|and|or|of|in|is|to|by|with|for)\b)[A-Za-z_]\w*|"
        r"its\s+(?:argument|input)|the\s+(?:argument|input|number|value|integer|given\s+number))")
_LIST_OF = rf"(?:\s+of\s+{_DET}(?:{_ELEMENTS}(?:\s+(?:of|in)\s+{_DET}{_SEQ})?|{_SEQ}))?"
_PATTERNS += [
    (re.compile(rf"\b{_VERB}\s+the\s+(?:arithmetic\s+)?(?:mean|average){_LIST_OF}{_END}", re.IGNORECASE), ClaimKind.MEAN),
    (re.compile(rf"\b{_VERB}\s+the\s+median{_LIST_OF}{_END}", re.IGNORECASE), ClaimKind.MEDIAN),
    (re.compile(rf"\b{_VERB}\s+(?:the\s+|its\s+)?absolute\s+value(?:\s+of\s+{_NUM})?{_END}", re.IGNORECASE), ClaimKind.ABS),
    (re.compile(rf"\b{_VERB}\s+(?:twice|double|two\s+times)\s+{_NUM}{_END}", re.IGNORECASE), ClaimKind.DOUBLE),
    (re.compile(rf"\bdoubles\s+{_NUM}{_END}", re.IGNORECASE), ClaimKind.DOUBLE),
    (re.compile(rf"\b{_VERB}\s+(?:three\s+times|triple)\s+{_NUM}{_END}", re.IGNORECASE), ClaimKind.TRIPLE),
    (re.compile(rf"\btriples\s+{_NUM}{_END}", re.IGNORECASE), ClaimKind.TRIPLE),
    (re.compile(rf"\b{_VERB}\s+the\s+square\s+of\s+{_NUM}{_END}", re.IGNORECASE), ClaimKind.SQUARE),
    (re.compile(rf"\b{_VERB}\s+{_NUM}\s+squared{_END}", re.IGNORECASE), ClaimKind.SQUARE),
    (re.compile(rf"\bsquares\s+{_NUM}{_END}", re.IGNORECASE), ClaimKind.SQUARE),
]
# The requirement words are claims in a question (what the code is to do), never in a step.
_REQUIREMENT = r"should|shall|must|supposed|meant|intended|expected|wants?|needs?"
_NOT_A_CLAIM = re.compile(rf"\b(?:{_NEGATION}|{_REQUIREMENT})\b|n't\b", re.IGNORECASE)
_NOT_A_REQUIREMENT = re.compile(rf"\b(?:{_NEGATION})\b|n't\b", re.IGNORECASE)


def _kind(pattern_kind: ClaimKind | None, match: re.Match[str]) -> ClaimKind:
    if pattern_kind is not None:
        return pattern_kind
    groups = match.groupdict()
    text = match.group(0).lower()
    if "order" in groups:
        return ClaimKind.SORTED_DESC if re.search(r"descending|decreasing|reverse", groups["order"] or "", re.IGNORECASE) \
            else ClaimKind.SORTED
    noun = (groups.get("noun") or "").lower()
    stringy = noun in {"string", "str", "word", "characters", "letters"}
    if "length" in text or "size" in text or "number of" in text:
        return ClaimKind.LENGTH_STR if stringy else ClaimKind.LENGTH_LIST
    return ClaimKind.REVERSED_STR if stringy else ClaimKind.REVERSED_LIST


def read_claims(text: str, function: str | None = None, *, requirement: bool = False) -> list[ReadClaim]:
    """The claims of `text` that the phrase table reads, in order (one per phrase); `function`: the
    function they are about when the text says so by where it stands (its docstring); `requirement`: the
    text says what the code is to do (a question), so "should return" is read too."""
    refuse = _NOT_A_REQUIREMENT if requirement else _NOT_A_CLAIM
    found: list[tuple[int, ReadClaim]] = []
    taken: list[tuple[int, int]] = []
    for pattern, kind in _PATTERNS:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            start = _sentence_start(text, m.start())
            if refuse.search(text[max(start, m.start() - 60):m.start()]):
                continue
            if requirement and not _ends_the_claim(text[m.end():_sentence_end(text, m.end())]):
                continue  # "returns the list sorted, without duplicates": the rest of the sentence may qualify it
            taken.append((m.start(), m.end()))
            sentence = " ".join(text[start:_sentence_end(text, m.end())].split())
            found.append((m.start(), ReadClaim(kind=_kind(kind, m), phrase=" ".join(m.group(0).split()),
                                               sentence=sentence, function=function)))
    return [claim for _, claim in sorted(found, key=lambda pair: pair[0])]


_COST = re.compile(r"\s*in\s+(?:O\(|(?:linear|constant|one|a\s+single)\b)", re.IGNORECASE)


def _ends_the_claim(rest: str) -> bool:
    """A requirement is read only when nothing but its end, or what it costs, follows it in its sentence."""
    return not rest.strip(" .!?:") or bool(_COST.match(rest))


def _sentence_start(text: str, pos: int) -> int:
    starts = [m.end() for m in _SENTENCE_END.finditer(text, 0, pos)]
    return max(starts, default=0)


def _sentence_end(text: str, pos: int) -> int:
    m = _SENTENCE_END.search(text, pos)
    return m.start() if m else len(text)
