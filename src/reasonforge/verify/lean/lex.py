"""Lexing Lean 4 artifacts so anti-gaming rules apply to code, never to comments or string contents.

Lean comments nest (`/- /- -/ -/`), `--` runs to the end of the line, strings have escapes and raw
forms (`r#"…"#`), interpolated strings (`s!"…{e}…"`) hold code between braces, `'x'` is a character
but `h'` is an identifier, and `«sorry»` is the identifier `sorry`. `scan_artifact` lexes a step or the
Context and reports every construct that would let a pass mean nothing, plus the names it declares.

Two kinds of construct are refused: proof escapes (`sorry`, `native_decide`, `implemented_by`, new
axioms in steps, `set_option debug.skipKernelTC`, …) and anything that runs code while the file compiles
(`#eval`, `elab`, `macro`, `run_cmd`, `initialize`, meta-programming types, `plausible`, …). The second
matters as much as the first: compile-time code could print forged messages or write a forged .olean,
and Lean does not re-check an imported .olean.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "ALLOWED_OPTIONS", "Declaration", "LeanLexError", "ScanReport", "Token", "Violation", "quote_name",
    "scan_artifact", "tokenize",
]

TokenKind = Literal["ident", "hash", "number", "string", "char", "symbol"]


class LeanLexError(ValueError):
    """The text cannot be lexed (an unterminated comment, string or quoted name); carries the position."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.message, self.line, self.column = message, line, column


class Token(BaseModel):
    """One lexeme; `parts` are an identifier's components with «» removed (`Foo.«a b»` → ('Foo', 'a b'))."""

    model_config = ConfigDict(frozen=True)

    kind: TokenKind
    text: str
    line: int
    column: int
    parts: tuple[str, ...] = ()


class Violation(BaseModel):
    """A construct the checker refuses, with where it is and why (lines count from 1 within the artifact)."""

    line: int
    column: int
    what: str
    reason: str

    def describe(self) -> str:
        """One line for an error message."""
        return f"line {self.line}: `{self.what}` is not allowed: {self.reason}"


class Declaration(BaseModel):
    """A named declaration: its keyword and full name (namespaces applied)."""

    model_config = ConfigDict(frozen=True)

    kind: str
    parts: tuple[str, ...]
    line: int

    @property
    def name(self) -> str:
        """The dotted full name as Lean prints it (quoted components kept readable)."""
        return quote_name(self.parts)


class ScanReport(BaseModel):
    """What the lexer found in one artifact."""

    violations: list[Violation]
    declarations: list[Declaration]

    @property
    def axioms(self) -> list[str]:
        """Full names of `axiom` declarations (only the Context may have them)."""
        return [d.name for d in self.declarations if d.kind == "axiom"]

    @property
    def checkable(self) -> list[Declaration]:
        """Declarations whose axioms the driver prints (constants a later step can use)."""
        return [d for d in self.declarations if d.kind in _PRINTED_KINDS]


# ------------------------------------------------------------------------------------------ rules

# Any identifier component equal to one of these is refused, wherever it appears in code: each is a
# way to make Lean accept a statement without the kernel checking a proof of it, or to run arbitrary
# code while the file compiles (which could forge the checker's output).
_BANNED: dict[str, str] = {
    "sorry": "an unproved placeholder",
    "admit": "an unproved placeholder",
    "sorryAx": "the axiom behind `sorry`",
    "native_decide": "trusts compiled code instead of the kernel",
    "native": "`decide +native` trusts compiled code instead of the kernel",
    "ofReduceBool": "trusts compiled code instead of the kernel",
    "ofReduceNat": "trusts compiled code instead of the kernel",
    "reduceBool": "trusts compiled code instead of the kernel",
    "reduceNat": "trusts compiled code instead of the kernel",
    "trustCompiler": "trusts compiled code instead of the kernel",
    "implemented_by": "swaps a definition's code for unchecked code",
    "extern": "swaps a definition's code for foreign code",
    "csimp": "replaces code the kernel never compares (can hide `sorry` behind native evaluation)",
    "unsafe": "bypasses the kernel's checks",
    "import": "the checker writes every import itself",
    "prelude": "drops the standard prelude the checker relies on",
    "elab": "runs code while the file compiles",
    "elab_rules": "runs code while the file compiles",
    "macro": "defines syntax that runs code while the file compiles",
    "macro_rules": "defines syntax that runs code while the file compiles",
    "syntax": "extends the parser",
    "declare_syntax_cat": "extends the parser",
    "run_cmd": "runs code while the file compiles",
    "run_tac": "runs code while the file compiles",
    "run_elab": "runs code while the file compiles",
    "run_meta": "runs code while the file compiles",
    "initialize": "runs code when the module loads",
    "builtin_initialize": "runs code when the module loads",
    "private": "private names cannot be checked from the chain file; drop `private`",
    "by_elab": "runs code while the file compiles",
    "plausible": "runs the artifact's own instances as code while the file compiles",
    "slim_check": "runs the artifact's own instances as code while the file compiles",
}
# Meta-programming vocabulary. Code that runs while a module compiles could write a forged .olean, and
# importing an .olean does not re-check it; a proof step never needs these names, so none may appear.
_META = {"IO", "EIO", "BaseIO", "MetaM", "TacticM", "TermElabM", "CommandElabM", "CoreM", "Elab", "Meta",
         "Tactic", "Simproc", "DSimproc", "simproc", "dsimproc", "simproc_decl", "dsimproc_decl", "NormNumExt",
         "PositivityExt", "evalExpr", "evalConst"}
_BANNED.update({name: "meta-programming is not allowed in proofs (code run while compiling could forge "
                      "the compiled module)" for name in _META})
# Only the Context (the problem's givens) may postulate; a step that does proves nothing.
_STEP_ONLY: dict[str, str] = {
    "axiom": "new axioms belong in the Context (the problem's givens), not in a step",
    "constant": "new constants belong in the Context (the problem's givens), not in a step",
    "opaque": "new opaque constants belong in the Context (the problem's givens), not in a step",
}
# `set_option NAME`: only options that change resources or printing, never soundness or warnings
# (`warn.sorry false` hides the sorry warning, `debug.skipKernelTC` skips the kernel).
ALLOWED_OPTIONS = ("maxHeartbeats", "maxRecDepth", "synthInstance.maxHeartbeats", "synthInstance.maxSize",
                   "autoImplicit", "relaxedAutoImplicit", "pp.", "linter.", "tactic.hygienic")
_DECL_KEYWORDS = {"theorem", "lemma", "def", "abbrev", "instance", "structure", "inductive", "class",
                  "axiom", "opaque", "constant", "example"}
_PRINTED_KINDS = {"theorem", "lemma", "def", "abbrev", "instance"}
# Tokens after which a declaration keyword is not a declaration (`deriving instance`, `@[instance]`).
_NOT_DECL_AFTER = {"deriving", "[", ",", "@["}

_SUBSCRIPTS = set("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₔₕₖₗₘₙₚₛₜᵢᵣᵤᵥⱼᵦᵧᵨᵩᵪ")
_NOT_LETTERS = set("λΠΣ")  # Greek letters Lean reserves for binders and big operators


def _id_start(ch: str) -> bool:
    if ch == "_" or ch in _SUBSCRIPTS:
        return ch == "_"
    if ch in _NOT_LETTERS:
        return False
    if ch.isalpha():
        return True
    # Lean counts letter-like symbols (ℕ, ℤ, ℝ, 𝔽 …) as identifier characters.
    return unicodedata.category(ch) in {"So", "Sm"} and ("\u2100" <= ch <= "\u214f" or "\U0001d400" <= ch <= "\U0001d7ff")


def _id_rest(ch: str) -> bool:
    return _id_start(ch) or ch.isdigit() or ch in "_'!?" or ch in _SUBSCRIPTS


# ------------------------------------------------------------------------------------------ lexer


class _Lexer:
    def __init__(self, src: str, line_offset: int = 0) -> None:
        self.src = src
        self.line_offset = line_offset
        self.starts = [0] + [m.end() for m in re.finditer("\n", src)]
        self.tokens: list[Token] = []

    def where(self, i: int) -> tuple[int, int]:
        row = bisect_right(self.starts, i) - 1
        return row + 1 + self.line_offset, i - self.starts[row]

    def fail(self, message: str, i: int) -> LeanLexError:
        return LeanLexError(message, *self.where(i))

    def emit(self, kind: TokenKind, start: int, end: int, parts: tuple[str, ...] = ()) -> None:
        line, col = self.where(start)
        self.tokens.append(Token(kind=kind, text=self.src[start:end], line=line, column=col, parts=parts))

    def run(self) -> list[Token]:
        src, i, n = self.src, 0, len(self.src)
        while i < n:
            ch = src[i]
            if ch.isspace():
                i += 1
            elif src.startswith("--", i):
                j = src.find("\n", i)
                i = n if j < 0 else j + 1
            elif src.startswith("/-", i):
                i = self.block_comment(i)
            elif ch == '"':
                i = self.string(i, interpolated=self.interpolation_prefix(i))
            elif ch == "r" and re.match(r'r#*"', src[i:i + 64]) and not self.glued(i):
                i = self.raw_string(i)
            elif ch == "'" and self.char_literal_at(i):
                i = self.char_literal(i)
            elif ch == "#" and i + 1 < n and _id_start(src[i + 1]) and not self.glued(i):
                j = i + 1
                while j < n and _id_rest(src[j]):
                    j += 1
                # `#v[…]` is a literal, `#print` a command.
                self.emit("symbol" if src.startswith("[", j) else "hash", i, j)
                i = j
            elif _id_start(ch) or ch == "«":
                i = self.identifier(i)
            elif ch.isdigit():
                j = i + 1
                while j < n and (src[j].isalnum() or src[j] in "._"):
                    j += 1
                self.emit("number", i, j)
                i = j
            elif src.startswith("@[", i):
                self.emit("symbol", i, i + 2)
                i += 2
            else:
                self.emit("symbol", i, i + 1)
                i += 1
        return self.tokens

    def glued(self, i: int) -> bool:
        """True when position i continues a preceding identifier or number (`1#1`, `ar"x"` …)."""
        return i > 0 and (_id_rest(self.src[i - 1]) or self.src[i - 1] == "»")

    def block_comment(self, i: int) -> int:
        depth, j, src = 0, i, self.src
        while j < len(src):
            if src.startswith("/-", j):
                depth += 1
                j += 2
            elif src.startswith("-/", j):
                depth -= 1
                j += 2
                if depth == 0:
                    return j
            else:
                j += 1
        raise self.fail("unterminated comment `/-`", i)

    def interpolation_prefix(self, i: int) -> bool:
        # `s!"…"`, `m!"…"`, `f!"…"`: an identifier ending in `!` glued to the quote.
        prev = self.tokens[-1] if self.tokens else None
        return bool(prev and prev.kind == "ident" and prev.text.endswith("!") and self.glued(i))

    def string(self, i: int, *, interpolated: bool) -> int:
        src, j = self.src, i + 1
        depth, code_start = 0, 0
        while j < len(src):
            ch = src[j]
            if depth == 0:
                if ch == "\\":
                    j += 2
                    continue
                if ch == '"':
                    self.emit("string", i, j + 1)
                    return j + 1
                if interpolated and ch == "{":
                    depth, code_start = 1, j + 1
            else:
                # Inside `{…}` of an interpolated string: code, with nested braces and strings.
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        line, _ = self.where(code_start)
                        inner = _Lexer(src[code_start:j], line_offset=line - 1)
                        self.tokens.extend(inner.run())
                elif ch == '"':
                    j = self.string(j, interpolated=False)
                    self.tokens.pop()  # the nested literal is content, its position is not needed
                    continue
            j += 1
        raise self.fail("unterminated string", i)

    def raw_string(self, i: int) -> int:
        m = re.match(r'r(#*)"', self.src[i:])
        assert m is not None
        close = '"' + m.group(1)
        end = self.src.find(close, i + m.end())
        if end < 0:
            raise self.fail("unterminated raw string", i)
        self.emit("string", i, end + len(close))
        return end + len(close)

    def char_literal_at(self, i: int) -> bool:
        if self.glued(i):
            return False  # `h'` is an identifier
        return bool(re.match(r"'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'", self.src[i:i + 16]))

    def char_literal(self, i: int) -> int:
        m = re.match(r"'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'", self.src[i:i + 16])
        assert m is not None
        self.emit("char", i, i + m.end())
        return i + m.end()

    def identifier(self, i: int) -> int:
        src, j, parts = self.src, i, []
        while True:
            if j < len(src) and src[j] == "«":
                end = src.find("»", j + 1)
                if end < 0:
                    raise self.fail("unterminated quoted name «", j)
                parts.append(src[j + 1:end])
                j = end + 1
            elif j < len(src) and _id_start(src[j]):
                k = j + 1
                while k < len(src) and _id_rest(src[k]):
                    k += 1
                parts.append(src[j:k])
                j = k
            else:
                break
            # A dot glued to another name component continues the identifier (`Nat.succ`, `h.1` stops).
            if j + 1 < len(src) and src[j] == "." and (_id_start(src[j + 1]) or src[j + 1] == "«"):
                j += 1
                continue
            break
        self.emit("ident", i, j, tuple(parts))
        return j


def tokenize(src: str) -> list[Token]:
    """Lex Lean 4 source into tokens, dropping comments; raises LeanLexError on unterminated input."""
    return _Lexer(src).run()


# ------------------------------------------------------------------------------------------ scanning


def quote_name(parts: tuple[str, ...] | list[str]) -> str:
    """Join name components, quoting with «» any component that is not a plain identifier."""
    out = []
    for part in parts:
        plain = part and _id_start(part[0]) and all(_id_rest(c) for c in part[1:])
        out.append(part if plain else f"«{part}»")
    return ".".join(out)


def _option_allowed(name: str) -> bool:
    return any(name == opt or (opt.endswith(".") and name.startswith(opt)) for opt in ALLOWED_OPTIONS)


def _rule_violations(tokens: list[Token], *, is_context: bool) -> Iterator[Violation]:
    option_names: set[int] = set()  # an option's name is judged as an option, not as identifiers
    for index, tok in enumerate(tokens):
        if index in option_names:
            continue
        if tok.kind == "hash":
            reason = ("stops Lean before the rest of the file is checked" if tok.text == "#exit" else
                      "commands starting with # print or run code; the checker issues its own #print axioms")
            yield Violation(line=tok.line, column=tok.column, what=tok.text, reason=reason)
            continue
        if tok.kind != "ident":
            continue
        nxt = tokens[index + 1] if index + 1 < len(tokens) else None
        if tok.parts == ("eval",) and nxt is not None and nxt.text == "%":
            yield Violation(line=tok.line, column=tok.column, what="eval%", reason="evaluates code while the file compiles")
            continue
        for part in tok.parts:
            banned = _BANNED.get(part) or (None if is_context else _STEP_ONLY.get(part))
            if banned is None and part.startswith("unsafe"):
                banned = "bypasses the kernel's checks"
            if banned:
                yield Violation(line=tok.line, column=tok.column, what=part, reason=banned)
                break
        if tok.parts == ("set_option",):
            name = ".".join(nxt.parts) if nxt is not None and nxt.kind == "ident" else ""
            option_names.add(index + 1)
            if not _option_allowed(name):
                reason = ("skips the kernel's type check" if name == "debug.skipKernelTC" else
                          f"only {', '.join(ALLOWED_OPTIONS)} options may be set (they change resources or "
                          "printing, never what counts as a proof)")
                yield Violation(line=tok.line, column=tok.column, what=f"set_option {name}".strip(),
                                reason=reason)


def _declarations(tokens: list[Token]) -> list[Declaration]:
    scopes: list[tuple[str, ...]] = []  # one entry per open namespace / section / mutual block
    found: list[Declaration] = []
    for index, tok in enumerate(tokens):
        if tok.kind != "ident" or len(tok.parts) != 1:
            continue
        word = tok.parts[0]
        nxt = tokens[index + 1] if index + 1 < len(tokens) else None
        prev = tokens[index - 1] if index > 0 else None
        line_start = prev is None or prev.line < tok.line
        if word == "namespace" and nxt is not None and nxt.kind == "ident":
            scopes.append(nxt.parts)
        elif word in {"section", "mutual"}:
            scopes.append(())
        elif word == "end" and line_start and scopes:
            # Lean 4 uses `end` only to close a namespace, section or mutual block.
            scopes.pop()
        elif word in _DECL_KEYWORDS and not (prev is not None and prev.text in _NOT_DECL_AFTER):
            if word == "example":
                found.append(Declaration(kind=word, parts=(), line=tok.line))
            elif nxt is not None and nxt.kind == "ident" and nxt.parts and nxt.parts[0] not in _DECL_KEYWORDS:
                parts = nxt.parts
                full = parts[1:] if parts[0] == "_root_" else tuple(p for ps in scopes for p in ps) + parts
                found.append(Declaration(kind=word, parts=full, line=tok.line))
    return found


def scan_artifact(src: str, *, is_context: bool = False) -> ScanReport:
    """Lex an artifact and report refused constructs and declared names (see module doc)."""
    try:
        tokens = tokenize(src)
    except LeanLexError as exc:
        return ScanReport(violations=[Violation(line=exc.line, column=exc.column, what="lexing",
                                                reason=exc.message)], declarations=[])
    return ScanReport(violations=list(_rule_violations(tokens, is_context=is_context)),
                      declarations=_declarations(tokens))
