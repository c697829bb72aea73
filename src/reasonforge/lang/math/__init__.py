"""The maths readers: a tokenizer, expressions (parse, evaluate exactly, print), LaTeX and prose readers
that pull the relations a step asserts out of its text."""

from reasonforge.lang.math.expr import (
    Binary,
    Call,
    ExpressionError,
    Name,
    Node,
    Num,
    Postfix,
    Unary,
    Undefined,
    evaluate,
    names_in,
    parse_expression,
    to_text,
)
from reasonforge.lang.math.reading import false_closed_claim
from reasonforge.lang.math.step import Relation, StepMath, Unread, UnreadReason
from reasonforge.lang.math.text import extract, extract_value, restate

__all__ = [
    "Binary", "Call", "ExpressionError", "Name", "Node", "Num", "Postfix", "Relation", "StepMath", "Unary", "Undefined",
    "Unread", "UnreadReason",
    "evaluate", "extract", "extract_value", "false_closed_claim", "names_in", "parse_expression", "restate", "to_text",
]
