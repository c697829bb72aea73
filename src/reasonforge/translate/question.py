"""A model formalises a word problem from its text alone: a program of assignments that computes the answer.

This is the mathematics half of the plan's independent translations: the formaliser never sees the chain, so
when its program computes the values a step states and the answer the chain claims, two derivations that share
nothing but the question agree (`pipeline.corroboration`). `samples` programs are asked for, the first at the
configured temperature, each later one at the retry temperature with its own seed (`llm.sampling`), so they are
independent samples, not the same reply again. The reply format is a fenced `python` block of `name = expression`
lines ending in `answer = ...`; under a GBNF grammar (llama.cpp) a small model can write nothing else. The
program is never executed: `verify.math.programs` reads and evaluates it exactly.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from reasonforge.registry import Spec
from reasonforge.translate.llm import ChatMessage, ChatReply

__all__ = ["QUESTION_GRAMMAR", "QUESTION_SYSTEM", "QuestionPrograms", "question_messages", "question_program"]

MAX_QUESTION_PROMPT_CHARS = 4_000  # a word problem is a paragraph; a longer one is cut, not sent whole
MAX_PROGRAM_TOKENS = 400

QUESTION_SYSTEM = (
    "You turn a math word problem into a short Python program that computes its answer. Write one assignment "
    "per line, `name = expression`, naming each quantity for what it counts. Use only numbers the problem "
    "states (digits or words: 'half' is / 2, 'twice' is * 2, '20%' is 20 / 100) and unit constants (60 minutes "
    "in an hour, 7 days in a week, 12 months in a year), the operators + - * / and parentheses, and names "
    "assigned on earlier lines. The last line is `answer = ...`. Reply with the program in one ```python block "
    "and nothing else.")

# One worked example (GSM8K's training split), so a small model sees the format once.
_EXAMPLE_PROBLEM = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
                    "How many clips did Natalia sell altogether in April and May?")
_EXAMPLE_PROGRAM = "```python\napril_clips = 48\nmay_clips = april_clips / 2\nanswer = april_clips + may_clips\n```"

QUESTION_GRAMMAR = r'''
root ::= "```python\n" line{0,24} "answer = " expr "\n```"
line ::= name " = " expr "\n"
name ::= [a-z_] [a-z0-9_]{0,30}
expr ::= term (" " op " " term){0,12}
term ::= number | name | "(" expr ")"
op ::= "+" | "-" | "*" | "/"
number ::= [0-9]{1,12} ("." [0-9]{1,8})?
'''

_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL)


class QuestionPrograms(BaseModel):
    """What a formaliser wrote for one question: one program per sample, and how many must agree."""

    programs: list[str] = Field(description="One per sample, as written (\"\" where a reply carried no text).")
    required: int = Field(ge=1, description="How many programs must give the same answer for it to count.")
    formaliser: Spec


def question_messages(question: str) -> list[ChatMessage]:
    """The turns that ask for the program of `question` (one worked example first)."""
    return [ChatMessage(role="user", content=f"Problem: {_EXAMPLE_PROBLEM}"),
            ChatMessage(role="assistant", content=_EXAMPLE_PROGRAM),
            ChatMessage(role="user", content=f"Problem: {question[:MAX_QUESTION_PROMPT_CHARS]}")]


def question_program(reply: ChatReply) -> str:
    """The program a reply carries (its fenced block, else its whole text); "" when it has no text."""
    text = reply.text or ""
    fenced = _FENCE.search(text)
    return (fenced.group(1) if fenced else text).strip()
