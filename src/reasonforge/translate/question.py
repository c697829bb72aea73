"""A model formalises a word problem from its text alone, twice over: a program of assignments that computes the
answer, and a problem model of equations that states it.

This is the mathematics half of the plan's independent translations: the formaliser never sees the chain, so
when its program computes the values a step states and the answer the chain claims, two derivations that share
nothing but the question agree (`pipeline.corroboration`). `samples` programs are asked for, the first at the
configured temperature, each later one at the retry temperature with its own seed (`llm.sampling`), so they are
independent samples, not the same reply again. The reply format is a fenced `python` block of `name = expression`
lines ending in `answer = ...`; under a GBNF grammar (llama.cpp) a small model can write nothing else. The
program is never executed: `verify.math.programs` reads and evaluates it exactly.

The problem model (the SatLM idea) is declarative: one equation per line over named unknowns, written the way the
problem tells it rather than the way it is solved ("she gives away half, then 3, and has 5 left" is
`start / 2 - 3 = 5`), the last line `answer = ...`. `verify.math.problem_model` has Z3 decide whether it forces
one answer. The two are asked for separately, `samples` of each, so a program and a model that agree are two
formalisations, not one reply read twice.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from reasonforge.registry import Spec
from reasonforge.translate.llm import ChatMessage, ChatReply

__all__ = [
    "PROBLEM_GRAMMAR", "PROBLEM_SYSTEM", "QUESTION_GRAMMAR", "QUESTION_SYSTEM", "QuestionPrograms", "problem_messages",
    "question_messages", "question_program",
]

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

# the arithmetic both replies are written in: names, numbers, + - * / and parentheses (`terms` per expression)
_EXPRESSIONS = '''name ::= [a-z_] [a-z0-9_]{{0,30}}
expr ::= term (" " op " " term){{0,{terms}}}
term ::= number | name | "(" expr ")"
op ::= "+" | "-" | "*" | "/"
number ::= [0-9]{{1,12}} ("." [0-9]{{1,8}})?
'''

QUESTION_GRAMMAR = r'''
root ::= "```python\n" line{0,24} "answer = " expr "\n```"
line ::= name " = " expr "\n"
''' + _EXPRESSIONS.format(terms=12)

PROBLEM_SYSTEM = (
    "You write a math word problem as equations, without solving it. Name each quantity for what it counts, "
    "with its unit in the name. Write one equation per line, `expression = expression`, saying exactly what one "
    "sentence of the problem says, in the order the problem says it; an unknown may appear before the line that "
    "fixes it. Use only numbers the problem states (digits or words: 'half' is / 2, 'twice' is * 2, '20%' is "
    "20 / 100) and unit constants (60 minutes in an hour, 7 days in a week), the operators + - * / and "
    "parentheses. The last line is `answer = ...`, the quantity the question asks for. Reply with the equations "
    "in one ``` block and nothing else.")

# GSM8K's training split: the rate is stated per hour and used per minute, so the model is an equation to solve.
_PROBLEM_EXAMPLE = ("Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How "
                    "much did she earn?")
_PROBLEM_EXAMPLE_MODEL = "```\ndollars_per_minute * 60 = 12\nearned_dollars = dollars_per_minute * 50\nanswer = earned_dollars\n```"

PROBLEM_GRAMMAR = r'''
root ::= "```\n" line{0,20} "answer = " expr "\n```"
line ::= expr " = " expr "\n"
''' + _EXPRESSIONS.format(terms=10)

_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL)


class QuestionPrograms(BaseModel):
    """What a formaliser wrote for one question: one program per sample, and how many must agree."""

    programs: list[str] = Field(description="One per sample, as written (\"\" where a reply carried no text).")
    problem_models: list[str] = Field(default_factory=list, description=(
        "The equations of each problem-model sample, as written; none written, no answer counts."))
    required: int = Field(ge=1, description="How many programs must give the same answer for it to count.")
    formaliser: Spec


def question_messages(question: str) -> list[ChatMessage]:
    """The turns that ask for the program of `question` (one worked example first)."""
    return [ChatMessage(role="user", content=f"Problem: {_EXAMPLE_PROBLEM}"),
            ChatMessage(role="assistant", content=_EXAMPLE_PROGRAM),
            ChatMessage(role="user", content=f"Problem: {question[:MAX_QUESTION_PROMPT_CHARS]}")]


def problem_messages(question: str) -> list[ChatMessage]:
    """The turns that ask for the problem model of `question` (one worked example first)."""
    return [ChatMessage(role="user", content=f"Problem: {_PROBLEM_EXAMPLE}"),
            ChatMessage(role="assistant", content=_PROBLEM_EXAMPLE_MODEL),
            ChatMessage(role="user", content=f"Problem: {question[:MAX_QUESTION_PROMPT_CHARS]}")]


def question_program(reply: ChatReply) -> str:
    """The program (or problem model) a reply carries: its fenced block, else its whole text; "" when it has no
    text."""
    text = reply.text or ""
    fenced = _FENCE.search(text)
    return (fenced.group(1) if fenced else text).strip()
