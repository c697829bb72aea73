"""First-order / propositional formulas in FOLIO notation: the AST, the printer and signatures.

The grammar the parser reads (`parse.py`) is the one the printer writes; `to_text` output parses back to
the same AST.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# Deep enough for anything a person or a translator writes; shallow enough that the recursive parser,
# printer and Z3 builder stay far below Python's recursion limit (about 3 frames per level).
MAX_DEPTH = 128


# ---------------------------------------------------------------------------------------------- AST


@dataclass(frozen=True, slots=True)
class Var:
    """A variable bound by an enclosing quantifier."""

    name: str


@dataclass(frozen=True, slots=True)
class Const:
    """A constant (an individual of the domain)."""

    name: str


Term = Var | Const


@dataclass(frozen=True, slots=True)
class Atom:
    """`pred(args...)`; a propositional atom when `args` is empty."""

    pred: str
    args: tuple[Term, ...] = ()


@dataclass(frozen=True, slots=True)
class Eq:
    """`left = right` between terms (`≠` parses as `Not(Eq)`)."""

    left: Term
    right: Term


@dataclass(frozen=True, slots=True)
class BoolConst:
    """`⊤` or `⊥`."""

    value: bool


@dataclass(frozen=True, slots=True)
class Not:
    """`¬arg`."""

    arg: Formula


@dataclass(frozen=True, slots=True)
class And:
    """`a ∧ b ∧ ...` (two or more conjuncts, flattened only where the text had no parentheses)."""

    args: tuple[Formula, ...]


@dataclass(frozen=True, slots=True)
class Or:
    """`a ∨ b ∨ ...`."""

    args: tuple[Formula, ...]


@dataclass(frozen=True, slots=True)
class Xor:
    """`a ⊕ b ⊕ ...`: exclusive or folded left, i.e. true iff an odd number of args are true."""

    args: tuple[Formula, ...]


@dataclass(frozen=True, slots=True)
class Implies:
    """`left → right`."""

    left: Formula
    right: Formula


@dataclass(frozen=True, slots=True)
class Iff:
    """`left ↔ right`."""

    left: Formula
    right: Formula


@dataclass(frozen=True, slots=True)
class Quant:
    """`∀var body` (kind "forall") or `∃var body` (kind "exists")."""

    kind: Literal["forall", "exists"]
    var: str
    body: Formula


Formula = Atom | Eq | BoolConst | Not | And | Or | Xor | Implies | Iff | Quant


# ------------------------------------------------------------------------------------------ printer

_PREC = {And: 4, Or: 3, Xor: 3, Implies: 2, Iff: 1}
_NARY_SYMBOL = {And: "∧", Or: "∨", Xor: "⊕"}
_ASCII = {"¬": "~", "∧": "&", "∨": "|", "⊕": "^", "→": "->", "↔": "<->", "∀": "forall ", "∃": "exists ",
          "≠": "!=", "⊤": "true", "⊥": "false"}


def to_text(formula: Formula, *, ascii: bool = False, explicit: bool = False) -> str:
    """Render in FOLIO notation (or ASCII), parsing back to the same AST; `explicit` brackets all compound operands."""
    text = _render(formula, explicit)
    if ascii:
        for uni, asc in _ASCII.items():
            text = text.replace(uni, asc)
    return text


def _is_literal(f: Formula) -> bool:
    return isinstance(f, (Atom, Eq, BoolConst)) or (isinstance(f, Not) and isinstance(f.arg, (Atom, Eq, BoolConst)))


def _operand(child: Formula, parent_prec: int, *, strict: bool, explicit: bool) -> str:
    # `explicit` (the translator's artifacts) brackets every operand but a literal, and every quantifier
    # body, so that a reader (or another tool) needs no precedence rules. Otherwise: quantifiers swallow
    # everything to their right, so as operands they always get parentheses.
    prec = _PREC.get(type(child), 9)
    if explicit:
        bracket = not _is_literal(child)
    else:
        bracket = isinstance(child, Quant) or prec < parent_prec or (strict and prec == parent_prec)
    return f"({_render(child, explicit)})" if bracket else _render(child, explicit)


def _render(f: Formula, explicit: bool) -> str:
    if isinstance(f, Atom):
        return f.pred if not f.args else f"{f.pred}({', '.join(t.name for t in f.args)})"
    if isinstance(f, Eq):
        return f"{f.left.name} = {f.right.name}"
    if isinstance(f, BoolConst):
        return "⊤" if f.value else "⊥"
    if isinstance(f, Not):
        if isinstance(f.arg, Eq):
            return f"{f.arg.left.name} ≠ {f.arg.right.name}"
        bare = _is_literal(f.arg) if explicit else isinstance(f.arg, (Atom, BoolConst, Not))
        return "¬" + _render(f.arg, explicit) if bare else f"¬({_render(f.arg, explicit)})"
    if isinstance(f, (And, Or, Xor)):
        prec = _PREC[type(f)]
        # Nested same-level nodes only come from explicit parentheses, so children at this level keep them.
        return f" {_NARY_SYMBOL[type(f)]} ".join(_operand(a, prec, strict=True, explicit=explicit) for a in f.args)
    if isinstance(f, (Implies, Iff)):
        prec = _PREC[type(f)]
        symbol = "→" if isinstance(f, Implies) else "↔"
        left = _operand(f.left, prec, strict=True, explicit=explicit)
        return f"{left} {symbol} {_operand(f.right, prec, strict=False, explicit=explicit)}"
    if isinstance(f, Quant):
        symbol = "∀" if f.kind == "forall" else "∃"
        body = f.body
        bare = not explicit and isinstance(body, (Atom, BoolConst, Not, Quant))
        if bare and not (isinstance(body, Not) and isinstance(body.arg, Eq)):
            return f"{symbol}{f.var} {_render(body, explicit)}"
        return f"{symbol}{f.var} ({_render(body, explicit)})"
    raise TypeError(f"not a formula: {f!r}")


# -------------------------------------------------------------------------------------- signatures


@dataclass
class Signature:
    """Predicates (name → arity) and constants used by a set of formulas, in first-use order."""

    predicates: dict[str, int] = field(default_factory=dict)
    constants: list[str] = field(default_factory=list)
    quantified: bool = False
    equality: bool = False


def signature_of(formulas: list[Formula]) -> Signature:
    """Collect the predicates and constants of `formulas` (raises on conflicting arities)."""
    sig = Signature()
    seen_consts: set[str] = set()
    stack: list[Formula] = list(reversed(formulas))
    while stack:
        f = stack.pop()
        if isinstance(f, Atom):
            arity = sig.predicates.setdefault(f.pred, len(f.args))
            if arity != len(f.args):
                raise ValueError(f"predicate {f.pred!r} used with {len(f.args)} and {arity} arguments")
            terms: tuple[Term, ...] = f.args
        elif isinstance(f, Eq):
            sig.equality = True
            terms = (f.left, f.right)
        else:
            terms = ()
            if isinstance(f, Not):
                stack.append(f.arg)
            elif isinstance(f, (And, Or, Xor)):
                stack.extend(reversed(f.args))
            elif isinstance(f, (Implies, Iff)):
                stack.extend((f.right, f.left))
            elif isinstance(f, Quant):
                sig.quantified = True
                stack.append(f.body)
        for t in terms:
            if isinstance(t, Const) and t.name not in seen_consts:
                seen_consts.add(t.name)
                sig.constants.append(t.name)
    clash = seen_consts & set(sig.predicates)
    if clash:
        raise ValueError(f"{min(clash)!r} is used both as a predicate and as a constant")
    return sig


def is_propositional(sig: Signature) -> bool:
    """True when the formulas use only 0-ary atoms (no terms, no quantifiers)."""
    return not sig.quantified and not sig.constants and all(a == 0 for a in sig.predicates.values())
