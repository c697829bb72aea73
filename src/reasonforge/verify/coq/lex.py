"""A lexer for Coq vernacular, good enough to police untrusted artifacts before `coqc` sees them.

It follows Coq's own lexical rules where they matter for policing: comments `(* *)` nest and the
strings inside them are lexed (so `(* "*)" *)` is one comment), strings double their quotes (`""`),
a sentence ends at a `.` followed by a blank or the end of the text, and a comment separates tokens
(`Adm(* *)itted` is the two identifiers `Adm` and `itted`, exactly as Coq reads it). Whatever this
lexer cannot read (an unterminated comment or string) is refused, never guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CoqLexError", "Sentence", "Token", "sentences", "tokenize"]


class CoqLexError(ValueError):
    """The artifact is not lexically valid Coq; carries the 1-based line and column."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Token:
    """One token: `kind` is ident | num | string | sym | end (a sentence-ending `.`)."""

    kind: str
    text: str
    line: int
    column: int

    @property
    def last(self) -> str:
        """The last component of a qualified identifier (`Coq.ZArith.Z.add` → `add`)."""
        return self.text.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Sentence:
    """The tokens of one vernacular sentence (its final `.` excluded) and where it starts."""

    tokens: tuple[Token, ...]

    @property
    def line(self) -> int:
        """Line of the sentence's first token."""
        return self.tokens[0].line if self.tokens else 0

    def idents(self) -> list[str]:
        """Every identifier of the sentence, qualified ones whole."""
        return [t.text for t in self.tokens if t.kind == "ident"]


def _is_ident_start(ch: str) -> bool:
    return ch == "_" or ch.isalpha()


def _is_ident_part(ch: str) -> bool:
    return ch == "_" or ch == "'" or ch.isalnum()


def tokenize(text: str) -> list[Token]:
    """Split `text` into tokens, dropping blanks and comments; raise CoqLexError on what Coq would refuse."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    line, line_start = 1, 0

    def column(pos: int) -> int:
        return pos - line_start + 1

    def skip_string(pos: int, start_line: int, start_col: int) -> int:
        # pos is just after the opening quote; returns the index after the closing quote.
        nonlocal line, line_start
        while pos < n:
            ch = text[pos]
            if ch == '"':
                if pos + 1 < n and text[pos + 1] == '"':
                    pos += 2
                    continue
                return pos + 1
            if ch == "\n":
                line, line_start = line + 1, pos + 1
            pos += 1
        raise CoqLexError("unterminated string (a string opened here is never closed)", start_line, start_col)

    while i < n:
        ch = text[i]
        if ch == "\n":
            line, line_start = line + 1, i + 1
            i += 1
            continue
        if ch.isspace():
            i += 1
            continue
        if text.startswith("(*", i):
            start_line, start_col = line, column(i)
            depth, i = 1, i + 2
            while depth:
                if i >= n:
                    raise CoqLexError("unterminated comment: `(*` is never closed by `*)` (comments nest)",
                                      start_line, start_col)
                if text.startswith("(*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*)", i):
                    depth, i = depth - 1, i + 2
                elif text[i] == '"':  # Coq lexes strings inside comments: a "*)" in one does not close it
                    i = skip_string(i + 1, line, column(i))
                else:
                    if text[i] == "\n":
                        line, line_start = line + 1, i + 1
                    i += 1
            continue
        start, tok_line, tok_col = i, line, column(i)
        if ch == '"':
            i = skip_string(i + 1, tok_line, tok_col)
            tokens.append(Token("string", text[start:i], tok_line, tok_col))
            continue
        if _is_ident_start(ch):
            i += 1
            while i < n:
                if _is_ident_part(text[i]):
                    i += 1
                elif text[i] == "." and i + 1 < n and _is_ident_start(text[i + 1]):
                    i += 2  # a qualified name: `Z.add` is one token
                else:
                    break
            tokens.append(Token("ident", text[start:i], tok_line, tok_col))
            continue
        if ch.isdigit():
            i += 1
            while i < n and (text[i].isdigit() or text[i] == "_"):
                i += 1
            if i + 1 < n and text[i] == "." and text[i + 1].isdigit():  # a decimal, not a sentence end
                i += 1
                while i < n and (text[i].isdigit() or text[i] == "_"):
                    i += 1
            tokens.append(Token("num", text[start:i], tok_line, tok_col))
            continue
        if ch == ".":
            j = i
            while j < n and text[j] == ".":
                j += 1
            run = j - i
            at_end = j >= n or text[j].isspace()
            if at_end and run in (1, 3):  # `.` (or `...` after `Proof with`) then a blank ends the sentence
                tokens.append(Token("end", text[i:j], tok_line, tok_col))
            else:
                tokens.append(Token("sym", text[i:j], tok_line, tok_col))
            i = j
            continue
        tokens.append(Token("sym", ch, tok_line, tok_col))
        i += 1
    return tokens


def sentences(text: str) -> list[Sentence]:
    """The artifact's sentences in order; trailing tokens without a final `.` form a last sentence."""
    out: list[Sentence] = []
    current: list[Token] = []
    for token in tokenize(text):
        if token.kind == "end":
            out.append(Sentence(tuple(current)))
            current = []
        else:
            current.append(token)
    if current:
        out.append(Sentence(tuple(current)))
    return out
