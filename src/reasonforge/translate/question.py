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

# Worked examples from GSM8K's training split (never its test split, where ProcessBench's problems come from), so
# a small model sees the format and the kinds of sentence it meets: a fraction, a percent, a sum of parts, a rate.
# They are a fixed prefix of every request, which the prompt cache reads once.
_PROGRAM_EXAMPLES = (
    (("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips "
     "did Natalia sell altogether in April and May?"),
     "```python\napril_clips = 48\nmay_clips = april_clips / 2\nanswer = april_clips + may_clips\n```"),
    (("Betty is saving money for a new wallet which costs $100. Betty has only half of the money she needs. Her "
     "parents decided to give her $15 for that purpose, and her grandparents twice as much as her parents. How much "
     "more money does Betty need to buy the wallet?"),
     ("```python\nwallet_dollars = 100\nbetty_dollars = wallet_dollars / 2\nparents_dollars = 15\n"
     "grandparents_dollars = parents_dollars * 2\n"
     "answer = wallet_dollars - betty_dollars - parents_dollars - grandparents_dollars\n```")),
    (("Mark has a garden with flowers. He planted plants of three different colors in it. Ten of them are yellow, and "
     "there are 80% more of those in purple. There are only 25% as many green flowers as there are yellow and purple "
     "flowers. How many flowers does Mark have in his garden?"),
     ("```python\nyellow_flowers = 10\npurple_flowers = yellow_flowers + yellow_flowers * 80 / 100\n"
     "green_flowers = (yellow_flowers + purple_flowers) * 25 / 100\n"
     "answer = yellow_flowers + purple_flowers + green_flowers\n```")),
    ("James writes a 3-page letter to 2 different friends twice a week.  How many pages does he write a year?",
     ("```python\npages_per_letter = 3\nletters_per_week = 2 * 2\npages_per_week = pages_per_letter * letters_per_week\n"
     "answer = pages_per_week * 52\n```")),
)

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

# GSM8K's training split, as above: a rate stated per hour and used per minute, an amount still needed, and a
# total over unknowns, each an equation the solver solves rather than a computation written out.
_PROBLEM_EXAMPLES = (
    (("Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How much did she "
     "earn?"),
     "```\ndollars_per_minute * 60 = 12\nearned_dollars = dollars_per_minute * 50\nanswer = earned_dollars\n```"),
    (_PROGRAM_EXAMPLES[1][0],
     ("```\nwallet_dollars = 100\nbetty_dollars = wallet_dollars / 2\nparents_dollars = 15\n"
     "grandparents_dollars = parents_dollars * 2\n"
     "betty_dollars + parents_dollars + grandparents_dollars + needed_dollars = wallet_dollars\n"
     "answer = needed_dollars\n```")),
    (("A deep-sea monster rises from the waters once every hundred years to feast on a ship and sate its hunger. Over "
     "three hundred years, it has consumed 847 people. Ships have been built larger over time, so each new ship has "
     "twice as many people as the last ship. How many people were on the ship the monster ate in the first hundred "
     "years?"),
     ("```\nsecond_ship_people = first_ship_people * 2\nthird_ship_people = second_ship_people * 2\n"
     "first_ship_people + second_ship_people + third_ship_people = 847\nanswer = first_ship_people\n```")),
    (_PROGRAM_EXAMPLES[3][0],
     "```\npages_per_week = 3 * 2 * 2\npages_per_year = pages_per_week * 52\nanswer = pages_per_year\n```"),
)

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


def _with_examples(examples: tuple[tuple[str, str], ...], question: str) -> list[ChatMessage]:
    turns = [turn for problem, reply in examples for turn in (ChatMessage(role="user", content=f"Problem: {problem}"),
                                                              ChatMessage(role="assistant", content=reply))]
    return [*turns, ChatMessage(role="user", content=f"Problem: {question[:MAX_QUESTION_PROMPT_CHARS]}")]


def question_messages(question: str) -> list[ChatMessage]:
    """The turns that ask for the program of `question` (the worked examples first)."""
    return _with_examples(_PROGRAM_EXAMPLES, question)


def problem_messages(question: str) -> list[ChatMessage]:
    """The turns that ask for the problem model of `question` (the worked examples first)."""
    return _with_examples(_PROBLEM_EXAMPLES, question)


def question_program(reply: ChatReply) -> str:
    """The program (or problem model) a reply carries: its fenced block, else its whole text; "" when it has no
    text."""
    text = reply.text or ""
    fenced = _FENCE.search(text)
    return (fenced.group(1) if fenced else text).strip()
