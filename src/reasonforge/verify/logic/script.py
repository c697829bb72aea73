"""Reads an `smtlib` step artifact into premises and a conclusion, keeping only declarative commands.

The script is never handed to a solver as written: a small s-expression reader (iterative, so deep
nesting cannot overflow Python's stack) rebuilds a script from declarations and assertions only, so
`echo`, `exit`, `check-sat`, `set-option`, `get-*` cannot change an outcome. `push`/`pop`/`reset`/
`reset-assertions` are simulated on the assertion stack: what is checked is the stack a solver would
hold at the end of the script, whose last assertion must be `(assert (not C))`.

Definitions are refused (`define-fun`, `define-const`, `define-sort`, `define-fun-rec`, and `:named` terms,
which define a name): a definition is an assumption the solver takes on trust, so an artifact states it as
a premise instead, where its provenance is checked like any other. Declared names must be in NFKC form and
be what a reader takes them for (one script, no Latin look-alikes; see `lang.logic.parse`).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.logic.parse import identifier_problem

_TOKEN_RE = re.compile(
    r"""(?P<ws>\s+)|(?P<comment>;[^\n]*)|(?P<open>\()|(?P<close>\))"""
    r"""|(?P<string>"(?:[^"]|"")*")|(?P<quoted>\|[^|\\]*\|)|(?P<atom>[^\s()";|]+)"""
)
_SIMPLE_SYMBOL = re.compile(r"[A-Za-z~!@$%^&*_+=<>.?/-][A-Za-z0-9~!@$%^&*_+=<>.?/-]*")
_SHAPE = (
    "an smtlib artifact declares its symbols, asserts each premise, and ends with "
    "(assert (not C)) where C is the conclusion"
)

# Built-in names a script may not redeclare: redefining `true` or `not` would change what the
# conclusion means.
RESERVED = frozenset(
    ["and", "or", "not", "xor", "=>", "=", "distinct", "ite", "true", "false", "forall", "exists", "let", "match", "par", "as", "_", "!", "Bool", "Int", "Real", "Array", "String", "BitVec", "RegLan", "+", "-", "*", "/", "div", "mod", "abs", "<", "<=", ">", ">=", "to_real", "to_int", "is_int", "select", "store", "concat", "extract", "bvadd", "bvmul", "bvneg", "bvand", "bvor", "bvnot", "bvult", "bvule", "str.++", "str.len"]
)


class Sym(str):
    """A symbol (quoted `|a b|` symbols are stored without their bars)."""


class Kw(str):
    """A keyword such as `:named`."""


class Lit(str):
    """A literal as written: numeral, decimal, `#x..`, `#b..` or a `"string"` with its quotes."""


class SList(list[Any]):
    """A parenthesised list; `pos` is the offset of its `(`."""

    __slots__ = ("pos",)
    pos: int


@dataclass
class _Source:
    text: str
    newlines: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.newlines = [m.start() for m in re.finditer("\n", self.text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.newlines, offset - 1)
        start = self.newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1

    def error(self, message: str, offset: int) -> ArtifactSyntaxError:
        line, column = self.position(offset)
        return ArtifactSyntaxError(message, line=line, column=column)


def read_sexprs(src: _Source) -> list[tuple[object, int]]:
    """All top-level s-expressions of the text, each with its start offset."""
    text = src.text
    top: list[tuple[object, int]] = []
    stack: list[SList] = []
    pos = 0
    for m in _TOKEN_RE.finditer(text):
        if m.start() != pos:
            break
        pos = m.end()
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        if kind == "open":
            lst = SList()
            lst.pos = m.start()
            stack.append(lst)
            continue
        if kind == "close":
            if not stack:
                raise src.error("unmatched ')': no '(' is open here", m.start())
            done = stack.pop()
            if stack:
                stack[-1].append(done)
            else:
                top.append((done, done.pos))
            continue
        value = m.group()
        item: object
        if kind == "quoted":
            item = Sym(value[1:-1])
        elif kind == "string":
            item = Lit(value)
        elif value.startswith(":"):
            item = Kw(value)
        elif value[0].isdigit() or value[0] == "#":
            item = Lit(value)
        else:
            item = Sym(value)
        if stack:
            stack[-1].append(item)
        else:
            top.append((item, m.start()))
    if pos != len(text):
        ch = text[pos]
        if ch == '"':
            raise src.error("unterminated string literal", pos)
        if ch == "|":
            raise src.error("unterminated |quoted symbol| (or a '\\' inside it)", pos)
        raise src.error(f"unexpected character {ch!r}", pos)
    if stack:
        message = f"unbalanced parenthesis: this '(' is never closed ({len(stack)} open at the end)"
        raise src.error(message, stack[-1].pos)
    return top


def render(expr: object) -> str:
    """Serialise an s-expression back to SMT-LIB text (iteratively: nesting depth is unbounded)."""
    out: list[str] = []
    stack: list[object] = [expr]
    close = object()
    while stack:
        item = stack.pop()
        if item is close:
            out.append(")")
        elif isinstance(item, SList):
            out.append("(")
            stack.append(close)
            for i, child in enumerate(reversed(item)):
                stack.append(child)
                if i != len(item) - 1:
                    stack.append(" ")
        elif isinstance(item, Sym):
            out.append(item if _SIMPLE_SYMBOL.fullmatch(item) else f"|{item}|")
        else:
            out.append(str(item))
    return "".join(out)


@dataclass
class SmtScript:
    """The declarative content of a script: commands to replay, how many premises, the conclusion C."""

    replay: list[str]  # declarations and premise asserts in script order (the final assert left out)
    replay_lines: list[int]  # the source line of each replay command
    conclusion_at: int  # how many replay commands precede the final assert
    premise_lines: list[int]  # the source line of each premise assert
    conclusion: str  # C, taken from the final (assert (not C))
    conclusion_line: int
    declared_logic: str | None
    ignored: dict[str, int]  # command name -> how many were ignored
    trees: list[SList]  # the replayed commands and C, as s-expressions (for `infer_logic`)

    def text(self, goal: str | None = None) -> str:
        """Replay text, with `(assert goal)` where the final assert stood when a goal is given (e.g. `C`
        or `(not C)`): a symbol declared only after the conclusion stays undeclared for it."""
        return "\n".join(self._commands(goal)[0])

    def line_of_replay(self, replay_line: int, goal: str | None) -> int:
        """Map a line of `text(goal)` back to the source line of the command it came from."""
        commands, lines = self._commands(goal)
        line = 1
        for text, source_line in zip(commands, lines):
            line += text.count("\n") + 1
            if replay_line < line:
                return source_line
        return self.conclusion_line

    def _commands(self, goal: str | None) -> tuple[list[str], list[int]]:
        if goal is None:
            return self.replay, self.replay_lines
        at = self.conclusion_at
        return ([*self.replay[:at], f"(assert {goal})", *self.replay[at:]],
                [*self.replay_lines[:at], self.conclusion_line, *self.replay_lines[at:]])


_IGNORED = {
    "check-sat", "check-sat-assuming", "echo", "exit", "set-option", "set-info", "get-model", "get-value",
    "get-assignment", "get-assertions", "get-proof", "get-unsat-core", "get-unsat-assumptions", "get-info",
    "get-option", "get-interpolant", "get-abduct", "get-difficulty", "get-learned-literals",
    "get-timeout-core",
}
_DECLARATIONS = {"declare-sort", "declare-fun", "declare-const", "declare-datatype", "declare-datatypes"}
_DEFINITIONS = {"define-fun", "define-const", "define-sort", "define-fun-rec", "define-funs-rec"}


@dataclass
class _Entry:
    kind: str  # "decl" or "assert"
    text: str
    offset: int
    tree: SList
    term: object = None


def parse_smtlib_artifact(text: str) -> SmtScript:
    """Read an smtlib artifact (raises ArtifactSyntaxError with line and column)."""
    src = _Source(text)
    levels: list[list[_Entry]] = [[]]
    names: list[dict[str, int]] = [{}]
    logic: str | None = None
    ignored: dict[str, int] = {}
    commands: set[str] = set()
    for expr, offset in read_sexprs(src):
        if not isinstance(expr, SList) or not expr or not isinstance(expr[0], Sym):
            raise src.error(f"expected a command such as (assert ...); {_SHAPE}", offset)
        head = str(expr[0])
        commands.add(head)
        if head in _IGNORED:
            ignored[head] = ignored.get(head, 0) + 1
        elif head == "set-logic":
            if len(expr) != 2 or not isinstance(expr[1], Sym):
                raise src.error("set-logic takes one logic name", offset)
            if logic is not None:
                raise src.error("set-logic may appear only once (before a reset)", offset)
            logic = str(expr[1])
        elif head == "assert":
            if len(expr) != 2:
                raise src.error("assert takes exactly one term", offset)
            named = _named_term(expr[1])
            if named is not None:
                raise src.error(
                    "a :named annotation defines a new symbol, an assumption the solver would take on trust; "
                    "write the term itself (and, for a name you need, a declared symbol and a premise)",
                    named.pos,
                )
            levels[-1].append(_Entry("assert", render(expr), offset, expr, expr[1]))
        elif head in _DECLARATIONS:
            for name, name_offset in _declared_names(src, expr, offset):
                if name in RESERVED:
                    raise src.error(f"{name!r} is a built-in symbol and cannot be redeclared", name_offset)
                problem = _name_problem(name)
                if problem is not None:
                    raise src.error(problem, name_offset)
                if any(name in scope for scope in names):
                    raise src.error(f"{name!r} is already declared; a symbol may be declared only once", name_offset)
                names[-1][name] = name_offset
            if head == "declare-sort" and len(expr) == 2:
                expr.append(Lit("0"))  # Z3 accepts a missing arity (the plan's example omits it); cvc5 does not
            levels[-1].append(_Entry("decl", render(expr), offset, expr))
        elif head in ("push", "pop"):
            count = _count_arg(src, expr, offset)
            if head == "push":
                for _ in range(count):
                    levels.append([])
                    names.append({})
            else:
                if count >= len(levels):
                    raise src.error(f"pop {count} but only {len(levels) - 1} push level(s) are open", offset)
                for _ in range(count):
                    levels.pop()
                    names.pop()
        elif head in ("reset", "reset-assertions"):
            # Both drop every assertion and (without :global-declarations, which we do not honour) every
            # declaration; reset also forgets the logic.
            levels, names = [[]], [{}]
            if head == "reset":
                logic = None
        elif head in _DEFINITIONS:
            raise src.error(
                f"{head} is not allowed: a definition is an assumption the solver would take on trust; declare "
                "the symbol and assert what it means as a premise (assert (forall ...)), so that its provenance "
                "is checked like any other premise's",
                offset,
            )
        else:
            raise src.error(f"unsupported command {head!r}; {_SHAPE}", offset)
    entries = [e for level in levels for e in level]
    asserts = [e for e in entries if e.kind == "assert"]
    if not asserts:
        if not commands:
            raise src.error(f"empty artifact: {_SHAPE}", 0)
        what = "no assertions remain at the end of the script (reset, reset-assertions or pop removed them)" \
            if any(head in ("reset", "reset-assertions", "pop") for head in commands) else "no assertions"
        raise src.error(f"{what}: {_SHAPE}", len(text.rstrip()) - 1)
    last = asserts[-1]
    term = last.term
    if not (isinstance(term, SList) and len(term) == 2 and term[0] == Sym("not") and isinstance(term[0], Sym)):
        raise src.error(f"the last assertion must have the form (assert (not C)); {_SHAPE}", last.offset)
    kept = [e for e in entries if e is not last]
    return SmtScript(
        replay=[e.text for e in kept],
        replay_lines=[src.position(e.offset)[0] for e in kept],
        conclusion_at=next(i for i, e in enumerate(entries) if e is last),
        premise_lines=[src.position(e.offset)[0] for e in asserts[:-1]],
        conclusion=render(term[1]),
        conclusion_line=src.position(last.offset)[0],
        declared_logic=logic,
        ignored=ignored,
        trees=[e.tree for e in kept] + [term[1]],
    )


def _named_term(term: object) -> SList | None:
    """The first `(! t ... :named n ...)` inside `term` (iteratively: nesting depth is unbounded)."""
    stack = [term]
    while stack:
        node = stack.pop()
        if isinstance(node, SList) and node:
            if node[0] == Sym("!") and isinstance(node[0], Sym) and any(a == Kw(":named") for a in node[2:]):
                return node
            stack.extend(node)
    return None


def _name_problem(name: str) -> str | None:
    """Why a declared symbol could be taken for another (not NFKC, mixed scripts, a Latin look-alike), or None."""
    if name.isascii():
        return None
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:
        return (f"symbol {name!r} is not in NFKC form (that is {normal!r}): a reader sees one name where the "
                "solver sees two; write the NFKC form")
    problem = identifier_problem(name)
    return None if problem is None else f"symbol refused: {problem}"


def _count_arg(src: _Source, expr: SList, offset: int) -> int:
    if len(expr) == 1:
        return 1
    if len(expr) == 2 and isinstance(expr[1], Lit) and str(expr[1]).isdigit():
        return int(expr[1])
    raise src.error(f"{expr[0]} takes an optional numeral", offset)


def _declared_names(src: _Source, expr: SList, offset: int) -> list[tuple[str, int]]:
    """The symbols a declaration introduces (sorts, functions, datatype constructors and selectors)."""
    head = str(expr[0])
    if len(expr) < 2 or not isinstance(expr[1], (Sym, SList)):
        raise src.error(f"{head} needs a name", offset)
    if head != "declare-datatypes":
        if not isinstance(expr[1], Sym):
            raise src.error(f"{head} needs a symbol as its name", offset)
        found = [(str(expr[1]), offset)]
        if head == "declare-datatype":
            if len(expr) != 3:
                raise src.error("declare-datatype takes a name and a list of constructors", offset)
            found += _constructor_names(src, expr[2], offset)
        return found
    # SMT-LIB 2.6: (declare-datatypes ((Name arity) ...) (ctors-for-Name ...))
    well_formed = len(expr) == 3 and isinstance(expr[1], SList) and isinstance(expr[2], SList)
    if not well_formed or len(expr[1]) != len(expr[2]):
        raise src.error("declare-datatypes must use the SMT-LIB 2.6 form ((Name arity) ...) (constructors ...)", offset)
    found = []
    for sort_decl, ctors in zip(expr[1], expr[2]):
        if not isinstance(sort_decl, SList) or not sort_decl or not isinstance(sort_decl[0], Sym):
            raise src.error("declare-datatypes: each sort is declared as (Name arity)", offset)
        found.append((str(sort_decl[0]), offset))
        found += _constructor_names(src, ctors, offset)
    return found


def _constructor_names(src: _Source, ctors: object, offset: int) -> list[tuple[str, int]]:
    if isinstance(ctors, SList) and len(ctors) == 3 and ctors[0] == Sym("par"):
        ctors = ctors[2]
    if not isinstance(ctors, SList):
        raise src.error("a datatype needs a list of constructors", offset)
    found: list[tuple[str, int]] = []
    for ctor in ctors:
        if not isinstance(ctor, SList) or not ctor or not isinstance(ctor[0], Sym):
            raise src.error("each constructor is written (name (selector Sort) ...)", offset)
        found.append((str(ctor[0]), offset))
        for sel in ctor[1:]:
            if not isinstance(sel, SList) or len(sel) != 2 or not isinstance(sel[0], Sym):
                raise src.error("each selector is written (name Sort)", offset)
            found.append((str(sel[0]), offset))
    return found


# ------------------------------------------------------------------------------------ logic choice

_EXOTIC = frozenset(
    ["^", "exp", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sqrt", "pi", "real.pi", "iand", "int.pow2", "bv2nat", "nat2bv", "int2bv", "ubv_to_int", "sbv_to_int", "lambda", "FloatingPoint", "Float16", "Float32", "Float64", "Float128", "RoundingMode", "Seq", "Set", "Bag"]
)


def infer_logic(script: SmtScript) -> tuple[str, bool, bool]:
    """The narrowest SMT-LIB logic covering the script (cvc5 needs one; under ALL it was orders of
    magnitude slower on nonlinear queries), read from the s-expressions, plus (quantified, arithmetic).
    It errs towards larger logics: a too-small one would make cvc5 reject the script (an `error`)."""
    found: set[str] = set()
    stack: list[object] = list(script.trees)
    while stack:
        node = stack.pop()
        if isinstance(node, SList):
            if not node:
                continue
            head = node[0]
            if head == "_" and isinstance(head, Sym):
                found.add("BV" if len(node) > 1 and str(node[1]).startswith("bv") else "ALL")
                continue  # indices are numerals that are not integers
            if isinstance(head, Sym):
                _head_features(str(head), node, found)
                if head in ("declare-sort", "declare-datatype", "declare-datatypes"):
                    # Skip the arity numerals: they say nothing about arithmetic.
                    stack.extend(node[2:] if head != "declare-sort" else ())
                    continue
            stack.extend(node)
        elif isinstance(node, Lit):
            text = str(node)
            found.add("S" if text.startswith('"') else "BV" if text.startswith("#") else "R" if "." in text else "I")
        elif isinstance(node, Sym):
            name = str(node)
            if name in _EXOTIC or name.startswith(("fp.", "seq.", "set.", "bag.")):
                found.add("ALL")
            elif name in ("Int", "Real", "Array", "BitVec", "String", "RegLan") or name.startswith(("str.", "re.")):
                found.add({"Int": "I", "Real": "R", "Array": "A", "BitVec": "BV"}.get(name, "S"))
            elif name in ("to_real", "to_int", "is_int"):
                found.update(("I", "R"))
    quantified = "Q" in found
    arithmetic = bool(found & {"I", "R"})
    if "ALL" in found:
        return "ALL", quantified, arithmetic
    logic = "" if quantified else "QF_"
    logic += "A" if "A" in found else ""
    logic += "UF" if "UF" in found or not (found & {"A", "BV", "DT", "S", "I", "R"}) else ""
    logic += "BV" if "BV" in found else ""
    logic += "DT" if "DT" in found else ""
    logic += "S" if "S" in found else ""
    if arithmetic or "S" in found:
        # Strings come with integer lengths (QF_SLIA); everything else picks its own arithmetic.
        logic += ("N" if "N" in found else "L") + ("I" if "I" in found or "S" in found else "") + \
            ("R" if "R" in found else "") + "A"
    if logic.endswith("A") and not arithmetic and "S" not in found:
        logic += "UF"  # arrays alone are not a logic name; (QF_)AUF is
    return logic, quantified, arithmetic


def _head_features(head: str, node: SList, found: set[str]) -> None:
    if head in ("forall", "exists"):
        found.add("Q")
    elif head == "declare-sort" or head == "declare-fun" and len(node) > 2 and isinstance(node[2], SList) and node[2]:
        found.add("UF")
    elif head in ("declare-datatype", "declare-datatypes"):
        found.add("DT")
    elif head == "*" and sum(1 for arg in node[1:] if not isinstance(arg, Lit)) > 1 or head in ("/", "div", "mod") and len(node) > 2 and not isinstance(node[2], Lit):
        found.add("N")
