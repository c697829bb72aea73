"""The FOL / propositional parser (FOLIO notation) and the `fol` artifact format.

Grammar (tightest first): `¬` (also `~ ! -`); `∧` (`& &&`); `∨` `⊕` at one level, left-associative
(`| || ^ ⊻ xor`); `→` (`-> => ⇒`, right-associative); `↔` (`<-> <=> ⟷ ⇔`, right-associative).
`∀x φ` / `∃x φ` (also `forall x`, `exists x`, an optional `.` after the variable): the scope extends as
far right as possible, as in NLTK and FOLIO's own unparenthesised rules (`∀x P(x) → Q(x)` means
`∀x (P(x) → Q(x))`). Terms are variables (bound by an enclosing quantifier) or constants (any other
identifier, digits allowed: `127`); atoms are `Pred(t, ...)`, a bare identifier (0-ary), `t = u`,
`t ≠ u` (`!=`) or `⊤`/`⊥` (`true`/`false`). FOLIO itself uses no equality.

Identifiers are read in NFKC form (`Ｃat` and `Cat` are one name, as a reader sees them), and a name a reader
could take for another is refused: one that mixes scripts (`Cаt` with a Cyrillic `а`) or a non-Latin name
whose every letter looks Latin (Cyrillic `Сор`). Otherwise the solver would see two names where the reader
sees one, and an artifact could look contradictory to a person and consistent to the solver.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.logic.syntax import (
    MAX_DEPTH,
    And,
    Atom,
    BoolConst,
    Const,
    Eq,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Quant,
    Term,
    Var,
    Xor,
)

# ------------------------------------------------------------------------------------------- tokens

_OPS = {
    "¬": "not", "~": "not", "!": "not", "-": "not",
    "∧": "and", "&": "and", "&&": "and",
    "∨": "or", "|": "or", "||": "or",
    "⊕": "xor", "⊻": "xor", "^": "xor",
    "→": "implies", "->": "implies", "=>": "implies", "⇒": "implies",
    "↔": "iff", "<->": "iff", "<=>": "iff", "⟷": "iff", "⇔": "iff",
    "∀": "forall", "∃": "exists",
    "=": "eq", "≠": "neq", "!=": "neq",
    "⊤": "true", "⊥": "false",
    "(": "(", ")": ")", ",": ",", ".": ".",
}
_WORDS = {"forall": "forall", "exists": "exists", "xor": "xor", "true": "true", "false": "false"}
_TOKEN_RE = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<ident>[^\W][\w’']*)"
    r"|(?P<op><->|<=>|->|=>|&&|\|\||!=|[¬~!\-∧&∨|⊕⊻^→⇒↔⟷⇔∀∃=≠⊤⊥(),.])"
)
_IDENTIFIER = re.compile(r"[^\W][\w’']*")
_NO_SCRIPT = frozenset({"COMMON", "INHERITED"})  # digits, `_`, `’`, combining marks: any script may use them
# Scripts one word may combine: Japanese writes kanji with kana, Korean may mix hanja and hangul.
_SCRIPT_FAMILIES = (frozenset({"HAN", "HIRAGANA", "KATAKANA"}), frozenset({"HAN", "HANGUL"}))
_BINARY = {"and": 4, "or": 3, "xor": 3, "implies": 2, "iff": 1}
_RIGHT_ASSOC = {"implies", "iff"}
_SYMBOL = {"and": "∧", "or": "∨", "xor": "⊕", "implies": "→", "iff": "↔"}


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # "ident", an _OPS value, or "eof"
    text: str
    col: int  # 1-based


class IdentifierError(ValueError):
    """An identifier a reader could take for another (the message says why and what to write)."""


def normalise_identifier(name: str) -> str:
    """`name` in NFKC form; raises IdentifierError when it mixes scripts or is a look-alike of a Latin name."""
    if name.isascii():
        return name
    text = unicodedata.normalize("NFKC", name)
    if not _IDENTIFIER.fullmatch(text):
        raise IdentifierError(f"{name!r} is {text!r} in NFKC form, which is not an identifier")
    problem = identifier_problem(text)
    if problem is not None:
        raise IdentifierError(problem)
    return text


def identifier_problem(name: str) -> str | None:
    """Why `name` could be mistaken for another name (mixed scripts, a non-Latin look-alike), or None."""
    if name.isascii():
        return None
    # Imported here: its Unicode tables take a moment to load, and ASCII names (nearly all) never need them.
    from confusable_homoglyphs import categories, confusables

    scripts: dict[str, str] = {}
    for ch in name:
        script = categories.alias(ch)
        if script not in _NO_SCRIPT:
            scripts.setdefault(script, ch)
    if len(scripts) > 1 and not any(set(scripts) <= family for family in _SCRIPT_FAMILIES):
        mixed = ", ".join(f"{script.title()} {ch!r}" for script, ch in scripts.items())
        return f"{name!r} mixes scripts ({mixed}): write each identifier in one script"
    if not scripts or "LATIN" in scripts:
        return None
    latin = []
    for ch in name:
        if categories.alias(ch) in _NO_SCRIPT:
            latin.append(ch)
            continue
        found = confusables.is_confusable(ch, preferred_aliases=["latin"])
        glyph = next((h["c"] for h in found[0]["homoglyphs"] if categories.alias(h["c"][0]) == "LATIN"), None) \
            if found else None
        if glyph is None:
            return None  # a letter with no Latin look-alike: the name cannot pass for a Latin one
        latin.append(glyph)
    script = next(iter(scripts)).title()
    return (f"{name!r} is written in {script} letters that each look Latin (it reads as {''.join(latin)!r}); "
            "write the Latin name")


def _tokenize(text: str, line: int, col0: int) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            raise ArtifactSyntaxError(f"unexpected character {text[pos]!r}", line=line, column=col0 + pos)
        if m.lastgroup == "ident":
            try:
                word = normalise_identifier(m.group())
            except IdentifierError as exc:
                raise ArtifactSyntaxError(f"identifier refused: {exc}", line=line, column=col0 + pos) from None
            toks.append(_Tok(_WORDS.get(word, "ident"), word, col0 + pos))
        elif m.lastgroup == "op":
            toks.append(_Tok(_OPS[m.group()], m.group(), col0 + pos))
        pos = m.end()
    toks.append(_Tok("eof", "", col0 + len(text)))
    return toks


# ------------------------------------------------------------------------------------------- parser


@dataclass
class _Symbol:
    kind: Literal["predicate", "constant", "variable"]
    arity: int
    line: int
    col: int


@dataclass
class FolParser:
    """Parses formulas one line at a time, keeping one symbol table so that arities and roles agree
    across all the lines of an artifact. `lenient` repairs FOLIO's known slips (an unmatched `)`,
    unclosed `(`, a `,` used as `∧`) and records each repair in `repairs`."""

    propositional: bool = False
    lenient: bool = False
    repairs: list[str] = field(default_factory=list)
    symbols: dict[str, _Symbol] = field(default_factory=dict)

    def parse(self, text: str, *, line: int = 1, column: int = 1) -> Formula:
        """Parse one formula; `line`/`column` locate `text` inside a larger artifact for errors. A line
        that fails leaves the symbol table and repairs as they were (callers may reuse the parser)."""
        symbols, repairs = dict(self.symbols), len(self.repairs)
        try:
            return _LineParser(self, text, line, column).run()
        except ArtifactSyntaxError:
            self.symbols = symbols
            del self.repairs[repairs:]
            raise


class _LineParser:
    def __init__(self, owner: FolParser, text: str, line: int, column: int) -> None:
        self.owner = owner
        self.line = line
        self.toks = _tokenize(text, line, column)
        if owner.lenient:
            self.toks = self.balance(self.toks)
        self.i = 0
        self.depth = 0
        self.bound: list[str] = []
        self.open_parens: list[int] = []

    # -- helpers
    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def error(self, message: str, col: int) -> ArtifactSyntaxError:
        return ArtifactSyntaxError(message, line=self.line, column=col)

    def repair(self, message: str, col: int) -> None:
        self.owner.repairs.append(f"line {self.line}, column {col}: {message}")

    def run(self) -> Formula:
        if self.peek().kind == "eof":
            raise self.error("expected a formula but the line is empty", self.peek().col)
        result = self.expr(0, None)
        if self.peek().kind != "eof":
            raise self.unexpected(self.peek())
        return result

    def balance(self, toks: list[_Tok]) -> list[_Tok]:
        # Repair on tokens, before parsing, so that quantifier scopes read as if the slip were never there.
        kept: list[_Tok] = []
        depth = 0
        for tok in toks[:-1]:
            if tok.kind == ")" and depth == 0:
                self.repair("dropped an unmatched ')'", tok.col)
                continue
            depth += {"(": 1, ")": -1}.get(tok.kind, 0)
            kept.append(tok)
        eof = toks[-1]
        if depth:
            self.repair(f"added {depth} missing ')' at the end of the line", eof.col)
            kept.extend(_Tok(")", ")", eof.col) for _ in range(depth))
        kept.append(eof)
        return kept

    def unexpected(self, tok: _Tok) -> ArtifactSyntaxError:
        """The error for a token found right after a complete operand."""
        if tok.kind == ")":
            return self.error("unmatched ')': no '(' is open here", tok.col)
        if tok.kind == ",":
            return self.error("',' is not a connective here (write ∧ for 'and')", tok.col)
        return self.error(
            f"expected a connective (∧, ∨, ⊕, →, ↔) or the end of the formula before {tok.text!r}", tok.col
        )

    # -- precedence climbing
    def binary_kind(self, tok: _Tok) -> str | None:
        if tok.kind in _BINARY:
            return tok.kind
        # Argument lists are parsed separately, so a ',' reaching here sits where a connective belongs.
        if tok.kind == "," and self.owner.lenient:
            return "and"
        return None

    def expr(self, min_prec: int, after: _Tok | None) -> Formula:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"formula nested too deeply (more than {MAX_DEPTH} levels)", self.peek().col)
        left = self.unary(after)
        left = self.continue_binary(left, min_prec)
        self.depth -= 1
        return left

    def continue_binary(self, left: Formula, min_prec: int) -> Formula:
        while True:
            tok = self.peek()
            kind = self.binary_kind(tok)
            if kind is None:
                return left
            prec = _BINARY[kind]
            if prec < min_prec:
                return left
            self.take()
            if tok.kind == ",":
                self.repair("read ',' as '∧'", tok.col)
            if kind in _RIGHT_ASSOC:
                right = self.expr(prec, tok)
                left = Implies(left, right) if kind == "implies" else Iff(left, right)
                continue
            operands = [left, self.expr(prec + 1, tok)]
            # Same-operator runs become one n-ary node; a different operator at this level nests left.
            while self.binary_kind(self.peek()) == kind:
                sep = self.take()
                if sep.kind == ",":
                    self.repair("read ',' as '∧'", sep.col)
                operands.append(self.expr(prec + 1, sep))
            left = And(tuple(operands)) if kind == "and" else Or(tuple(operands)) if kind == "or" \
                else Xor(tuple(operands))

    def unary(self, after: _Tok | None) -> Formula:
        tok = self.peek()
        if tok.kind == "not":
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.error(f"formula nested too deeply (more than {MAX_DEPTH} levels)", tok.col)
            arg = self.unary(tok)
            self.depth -= 1
            return Not(arg)
        if tok.kind in ("forall", "exists"):
            return self.quantifier()
        return self.primary(after)

    def quantifier(self) -> Formula:
        qtok = self.take()
        if self.owner.propositional:
            raise self.error("quantifiers are not allowed in propositional logic (use the fol language)", qtok.col)
        vtok = self.take()
        if vtok.kind != "ident":
            raise self.error(f"expected a variable name after {qtok.text!r}", vtok.col)
        self.declare(vtok.text, "variable", 0, vtok.col)
        if self.peek().kind == ".":
            self.take()
        self.bound.append(vtok.text)
        body = self.expr(0, vtok)
        self.bound.pop()
        return Quant("forall" if qtok.kind == "forall" else "exists", vtok.text, body)

    def primary(self, after: _Tok | None) -> Formula:
        tok = self.peek()
        if tok.kind == "(":
            self.take()
            self.open_parens.append(tok.col)
            inner = self.expr(0, tok)
            close = self.peek()
            if close.kind != ")":
                if close.kind == "eof":
                    raise self.error(f"unbalanced parenthesis opened at column {tok.col}", tok.col)
                raise self.unexpected(close)
            self.take()
            self.open_parens.pop()
            return inner
        if tok.kind in ("true", "false"):
            self.take()
            return BoolConst(tok.kind == "true")
        if tok.kind == "ident":
            return self.atom()
        if tok.kind == "eof":
            what = f"after {after.text!r}" if after is not None else "here"
            if self.open_parens:
                raise self.error(
                    f"expected a formula {what} but the line ended "
                    f"(unbalanced parenthesis opened at column {self.open_parens[-1]})",
                    tok.col,
                )
            raise self.error(f"expected a formula {what} but the line ended", tok.col)
        what = f"after {after.text!r}" if after is not None else "here"
        if tok.kind == ")":
            raise self.error(f"expected a formula {what}, found ')'", tok.col)
        raise self.error(f"expected a formula {what}, found {tok.text!r}", tok.col)

    def atom(self) -> Formula:
        name = self.take()
        nxt = self.peek()
        if nxt.kind in ("eq", "neq"):
            if self.owner.propositional:
                raise self.error("equality is not allowed in propositional logic (use the fol language)", nxt.col)
            left = self.term(name)
            self.take()
            rtok = self.take()
            if rtok.kind != "ident":
                raise self.error(f"expected a term after {nxt.text!r}", rtok.col)
            eq = Eq(left, self.term(rtok))
            return Not(eq) if nxt.kind == "neq" else eq
        if nxt.kind != "(":
            self.declare(name.text, "predicate", 0, name.col)
            return Atom(name.text)
        if self.owner.propositional:
            raise self.error(
                f"propositional atoms take no arguments: {name.text!r} is applied to arguments "
                "(use the fol language for predicates)",
                nxt.col,
            )
        self.take()
        args: list[Term] = []
        while True:
            tok = self.take()
            if tok.kind != "ident":
                if tok.kind == ")" and not args:
                    raise self.error(f"predicate {name.text!r} needs at least one argument inside '()'", tok.col)
                if tok.kind == "eof":
                    raise self.error(f"unbalanced parenthesis opened at column {nxt.col}", nxt.col)
                raise self.error(f"expected a variable or constant name, found {tok.text!r}", tok.col)
            args.append(self.term(tok))
            sep = self.take()
            if sep.kind == ")":
                break
            if sep.kind == "(":
                raise self.error("function terms are not supported: arguments are variables or constants", sep.col)
            if sep.kind == "eof":
                raise self.error(f"unbalanced parenthesis opened at column {nxt.col}", nxt.col)
            if sep.kind != ",":
                raise self.error(f"expected ',' or ')' in the arguments of {name.text!r}, found {sep.text!r}", sep.col)
        self.declare(name.text, "predicate", len(args), name.col)
        return Atom(name.text, tuple(args))

    def term(self, tok: _Tok) -> Term:
        if tok.text in self.bound:
            return Var(tok.text)
        self.declare(tok.text, "constant", 0, tok.col)
        return Const(tok.text)

    def declare(self, name: str, kind: Literal["predicate", "constant", "variable"], arity: int, col: int) -> None:
        seen = self.owner.symbols.get(name)
        if seen is None:
            self.owner.symbols[name] = _Symbol(kind, arity, self.line, col)
            return
        where = f"line {seen.line}, column {seen.col}"
        if {seen.kind, kind} == {"constant", "variable"}:
            return  # a quantifier may reuse a constant's name; inside its scope the name is the variable
        if seen.kind != kind:
            raise self.error(f"{name!r} is used as a {kind} here but as a {seen.kind} at {where}", col)
        if kind == "predicate" and seen.arity != arity:
            raise self.error(
                f"predicate {name!r} is used with {arity} argument(s) here but with {seen.arity} at {where}", col
            )


def parse_formula(text: str, *, propositional: bool = False, lenient: bool = False) -> Formula:
    """Parse a single formula (raises ArtifactSyntaxError with line and column)."""
    return FolParser(propositional=propositional, lenient=lenient).parse(text)


# ----------------------------------------------------------------------------------------- artifact


@dataclass(frozen=True)
class FolArtifact:
    """A parsed `fol`/`propositional` artifact: premises, conclusion and where each came from."""

    premises: list[Formula]
    conclusion: Formula
    premise_lines: list[int]
    conclusion_line: int
    repairs: list[str]


_TURNSTILES = ("⊢", "|-")
_SHAPE = "write one premise per line, then a last line starting with '⊢' (or '|-') holding the conclusion"


def parse_fol_artifact(text: str, *, propositional: bool = False, lenient: bool = False) -> FolArtifact:
    """Parse the artifact text format: premise lines, then `⊢ conclusion` (blank and `#` lines ignored)."""
    parser = FolParser(propositional=propositional, lenient=lenient)
    premises: list[Formula] = []
    premise_lines: list[int] = []
    conclusion: Formula | None = None
    conclusion_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip())
        if conclusion is not None:
            raise ArtifactSyntaxError(
                f"nothing may follow the conclusion line (line {conclusion_line}); {_SHAPE}",
                line=number,
                column=indent + 1,
            )
        marker = next((t for t in _TURNSTILES if stripped.startswith(t)), None)
        if marker is None:
            premises.append(parser.parse(raw, line=number))
            premise_lines.append(number)
            continue
        body = raw[indent + len(marker):]
        if not body.strip():
            raise ArtifactSyntaxError(
                f"the conclusion line has no formula after {marker!r}", line=number, column=indent + len(marker) + 1
            )
        conclusion = parser.parse(body, line=number, column=indent + len(marker) + 1)
        conclusion_line = number
    if conclusion is None:
        if not premises:
            raise ArtifactSyntaxError(f"empty artifact: {_SHAPE}", line=1, column=1)
        last = premise_lines[-1]
        raise ArtifactSyntaxError(f"no conclusion line: {_SHAPE}", line=last, column=1)
    return FolArtifact(premises, conclusion, premise_lines, conclusion_line, list(parser.repairs))
