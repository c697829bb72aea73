"""A model writes a code step's examples from the question alone, never shown the implementation or the author's words.

This is the code half of the plan's independent translations: the author's own tests show only that the code
agrees with itself; examples written by a translator that saw the task and the function's bare signature (its
name and parameters, to know what to call) say what the code should do, and the implementation then runs
against them (`verify.code.step_checks`, origin WRITTEN, original and every mutant). The writer is not shown
the step's prose or the function's docstring: they are the author's, and what the author writes could steer
the examples ("largest([3, 1, 2]) is 1"); examples the author can steer are no independent evidence.
A failing written example leaves the step `unsupported` (the examples may be the ones that are wrong), never
`failed`. The reply is `>>> call` / expected-output pairs in one fenced block; under a GBNF grammar (llama.cpp)
a small model can write nothing else.
"""

from __future__ import annotations

import ast
import copy
import re

from reasonforge.translate.llm import ChatMessage, ChatReply
from reasonforge.verify.code.step_text import defined_functions

__all__ = ["EXAMPLES_GRAMMAR", "EXAMPLES_SYSTEM", "examples_grammar", "examples_messages", "signatures",
           "written_examples"]

MAX_EXAMPLE_TOKENS = 300
_MAX_PROMPT_CHARS = 4_000

EXAMPLES_SYSTEM = (
    "You write test examples for a Python function from its task description and signature; you never see its "
    "body or its author's description. Write 3 examples in doctest form, each a line `>>> call(...)` followed by a line with the exact "
    "expected result as a Python literal. Cover an ordinary input and an edge case the description implies. "
    "Reply with the examples in one ```python block and nothing else.")

EXAMPLES_GRAMMAR = r'''
root ::= "```python\n" example{1,4} "```"
example ::= ">>> " name "(" [^\n`]{0,200} "\n" [^\n`>]{1,200} "\n"
name ::= [a-zA-Z_] [a-zA-Z0-9_]{0,40}
'''
_SIGNATURE_NAME = re.compile(r"^(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)


def examples_grammar(shown: list[str]) -> str:
    """`EXAMPLES_GRAMMAR` with each example calling one of the functions the signatures `shown` name: a small
    model that would write `assert f(...)` (the way the task states its tests) cannot glue `assert` to the name
    and call a function nothing defines."""
    names = sorted({m.group(1) for text in shown for m in _SIGNATURE_NAME.finditer(text)})
    if not names:
        return EXAMPLES_GRAMMAR
    return EXAMPLES_GRAMMAR.replace('name ::= [a-zA-Z_] [a-zA-Z0-9_]{0,40}',
                                    "name ::= " + " | ".join(f'"{n}"' for n in names))

_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL)


def signatures(step_text: str) -> list[str]:
    """The step's functions as the writer may see them: name and parameters, the docstring and body cut out."""
    shown = []
    for fn in defined_functions(step_text):
        bare = copy.deepcopy(fn)
        bare.body = [ast.Expr(ast.Constant(...))]
        bare.decorator_list = []
        shown.append(ast.unparse(bare))
    return shown


def examples_messages(question: str, shown: list[str]) -> list[ChatMessage]:
    """The turn that asks for examples of the step's functions (`shown`: their bare signatures), from the task."""
    parts = [f"Task: {question[:_MAX_PROMPT_CHARS]}" if question.strip() else "", "Signature:\n" + "\n\n".join(shown)]
    return [ChatMessage(role="user", content="\n\n".join(p for p in parts if p))]


def written_examples(reply: ChatReply) -> str:
    """The `>>>` lines and their outputs a reply carries ("" when it has none)."""
    text = reply.text or ""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    return body.strip() if ">>>" in body else ""
