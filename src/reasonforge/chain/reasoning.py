"""Reasoning chains out of model outputs: provider payloads (OpenAI, Anthropic, DeepSeek) or plain text → steps.

`parse_reasoning_chain(response)` accepts a provider's JSON as a dict (or an SDK object with
`model_dump()`), or a string, and returns `list[ReasoningStep]` (ids 1..n, each depending on the previous
one). The reasoning (summaries, thinking blocks, `reasoning_content`, `<think>` sections) is used when the
payload has any, else the final answer text.

`request_from_reasoning(submission)` turns a `ReasoningSubmission` (text or a provider payload, with the question)
into the `VerifyRequest` every other path verifies; its claimed answer, when the caller gives none, is what the
response's final answer states (`final_answer`: the last `\\boxed{…}`, a `#### …` line, or "the answer is …").

`split_reasoning(text)` cuts plain reasoning text into steps, by these rules, in order:
1. Two or more "Step k" headers (`Step 1:`, `**Step 2.**`, `### Step 3 -`): one step per header section;
   text before the first header is a step of its own.
2. Otherwise paragraphs (blank-line separated). A paragraph holding top-level list items (`1.`, `2)`,
   `-`, `*`, `•`, indented at most one space) is split into its lead-in lines and one step per item;
   nested (indented) items stay inside their parent.
3. LaTeX display blocks (`$$…$$`, `\\[…\\]`, `\\begin{equation|align|…}…\\end{…}`) are never split, even across
   blank lines; a block standing alone joins the step before it (the sentence that introduces it).
4. Markdown headings on their own (`# Title`) are titles, not reasoning, and are dropped.
Markers (`1.`, `-`, `Step 3:`) are removed from the step's content; nothing else is rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from reasonforge.chain.parse import decode_text, load_json
from reasonforge.chain.providers import (
    Reasoning,
    ReasoningChainError,
    from_anthropic_message,
    from_chat_completion,
    from_responses,
    split_think,
)
from reasonforge.errors import InputError
from reasonforge.types import ReasoningSource, ReasoningStep, ReasoningSubmission, VerifyRequest

__all__ = ["final_answer", "parse_reasoning_chain", "read_reasoning", "reasoning_from_bytes", "request_from_reasoning",
           "split_reasoning"]

Prefer = Literal["auto", "reasoning", "answer"]
_EXPECTED = ("an OpenAI Responses object ({object: 'response', output: [...]}), a Chat Completions object "
             "({choices: [{message: ...}]}, OpenAI / DeepSeek / vLLM / Ollama), an Anthropic message "
             "({type: 'message', content: [...]}), or reasoning text")
_STEP_HEADER = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*|__)?[ \t]*step[ \t]+(\d+)[ \t]*(?:[:.)\-–—][ \t]*)?"
                          r"(?:\*\*|__)?[ \t]*(?:[:.\-–—][ \t]*)?", re.IGNORECASE)
_ITEM = re.compile(r"^ ?(?:\d{1,3}[.)]|[-*•+])[ \t]+")
_HEADING = re.compile(r"^#{1,6}[ \t]+\S")
_DISPLAY_OPEN = re.compile(r"^\s*(\$\$|\\\[|\\begin\{(equation|align|gather|multline|eqnarray|displaymath)\*?\})")
_DISPLAY_CLOSE = {"$$": re.compile(r"\$\$\s*$"), "\\[": re.compile(r"\\\]\s*$")}


def read_reasoning(response: Any) -> Reasoning:
    """Which provider shape `response` has, and its reasoning segments and answer."""
    if hasattr(response, "model_dump") and not isinstance(response, Mapping):
        response = response.model_dump()  # openai / anthropic SDK objects are pydantic models
    if isinstance(response, str):
        thoughts, answer = split_think(response)
        return Reasoning("text", tuple(thoughts), answer if thoughts else response)
    if not isinstance(response, Mapping):
        raise ReasoningChainError(f"cannot read a reasoning chain from a {type(response).__name__}; expected {_EXPECTED}")
    if isinstance(response.get("error"), Mapping) and "choices" not in response and "output" not in response:
        error = response["error"]
        raise ReasoningChainError(f"the payload is an API error ({error.get('type', '?')}: "
                                  f"{str(error.get('message', ''))[:200]}), not a response")
    if response.get("object") == "response" or ("output" in response and "choices" not in response):
        return from_responses(response)
    if "choices" in response:
        return from_chat_completion(response)
    if response.get("type") == "message" or ("content" in response and response.get("role") == "assistant"):
        return from_anthropic_message(response)
    keys = ", ".join(sorted(map(str, response))) or "none"
    raise ReasoningChainError(f"unrecognised response shape (keys: {keys}); expected {_EXPECTED}")


def parse_reasoning_chain(response: Any, *, prefer: Prefer = "auto") -> list[ReasoningStep]:
    """The reasoning steps of a model response (dict, SDK object or string), ids 1..n in order.

    `prefer="auto"` uses the reasoning when the payload has any, else the answer; "reasoning" or "answer"
    force one (an error if it is empty)."""
    reading = read_reasoning(response)
    if prefer == "answer" or (prefer == "auto" and not reading.segments):
        units = split_reasoning(reading.answer)
        source = "answer text"
    else:
        units = list(reading.segments) if reading.whole_segments else [
            unit for segment in reading.segments for unit in split_reasoning(segment)]
        source = "reasoning"
    if not units:
        raise ReasoningChainError(f"the {reading.provider} payload has no {source} to split into steps"
                                  + ("" if prefer != "auto" else " (and no reasoning either)"))
    return [ReasoningStep(step_id=index, content=text) for index, text in enumerate(units, start=1)]


_BOXED = re.compile(r"\\boxed\s*\{")
_HASHES = re.compile(r"^[ \t]*####[ \t]*(\S[^\n]*?)[ \t]*$", re.MULTILINE)
_ANSWER_IS = re.compile(r"\b(?:the\s+)?(?:final\s+)?answer\s*(?:is|:)\s*[:\s]*(?:\$\s*)?(?P<a>[^\n]*?)\s*(?:\$\s*)?[.!]?\s*$",
                        re.IGNORECASE | re.MULTILINE)
_MAX_ANSWER = 200
_ANSWER_TAIL = 4000
_PREFER: dict[ReasoningSource, Prefer] = {ReasoningSource.AUTO: "auto", ReasoningSource.REASONING: "reasoning",
                                          ReasoningSource.ANSWER: "answer"}


def final_answer(text: str) -> str:
    """The answer a response's text states: the last `\\boxed{…}` (braces balanced), else the last `#### …`
    line, else the last "the answer is …" line; "" when it states none (never a guess from the prose)."""
    boxes = list(_BOXED.finditer(text))
    if boxes:
        start = boxes[-1].end()
        depth, at = 1, start
        while at < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[at], 0)
            at += 1
        if depth == 0:
            return text[start:at - 1].strip()[:_MAX_ANSWER]
    tail = text[-_ANSWER_TAIL:]  # an answer is stated at the end; the line scans below then stay bounded
    hashes = _HASHES.findall(tail)
    if hashes:
        return hashes[-1].strip()[:_MAX_ANSWER]
    stated = [m.group("a") for m in _ANSWER_IS.finditer(tail) if m.group("a").strip()]
    return stated[-1].strip().rstrip(".").strip()[:_MAX_ANSWER] if stated else ""


def reasoning_from_bytes(data: bytes, *, what: str = "reasoning") -> str | dict[str, Any]:
    """Reasoning as read from a file or a stream: a provider's response when it is a JSON object (checked as
    strictly as a request), else the text itself (strict UTF-8)."""
    text = decode_text(data, what=what)
    if not text.lstrip().startswith("{"):
        return text
    payload = load_json(text, what=what)
    if not isinstance(payload, dict):
        raise InputError(f"the {what} starts with '{{' but is not one JSON object; send a provider's response "
                         "object, or plain reasoning text", field=what)
    return payload


def request_from_reasoning(submission: ReasoningSubmission) -> VerifyRequest:
    """The `VerifyRequest` for reasoning as it arrived: its steps split out, its claimed answer the caller's or
    the one its final answer states (ReasoningChainError when there is nothing to split)."""
    reading = read_reasoning(submission.reasoning)
    steps = parse_reasoning_chain(submission.reasoning, prefer=_PREFER[submission.source])
    claimed = submission.claimed_answer
    if claimed is None:
        # The answer text says what is claimed; a response whose answer is empty (cut off) claims what its
        # reasoning last stated.
        last = reading.answer if reading.answer.strip() else (reading.segments[-1] if reading.segments else "")
        claimed = final_answer(last)
    return VerifyRequest(reasoning_chain=steps, domain=submission.domain, original_query=submission.original_query,
                         claimed_answer=claimed, proof_level=submission.proof_level, prover=submission.prover,
                         callback_url=submission.callback_url, generate_certificate=submission.generate_certificate,
                         translator=submission.translator, samples=submission.samples, agree=submission.agree)


def split_reasoning(text: str) -> list[str]:
    """The steps of a reasoning text, in order (empty list for blank text)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return []
    lines = text.split("\n")
    inside = _inside_display(lines)
    headers = [i for i, line in enumerate(lines) if _STEP_HEADER.match(line) and not inside[i]]
    if len(headers) >= 2:
        units = _by_headers(lines, headers)
    else:
        units = []
        for paragraph in _paragraphs(lines):
            units.extend(_split_items(paragraph))
    return _finish(units)


def _inside_display(lines: list[str]) -> list[bool]:
    """For each line, whether it sits inside a display block opened on an earlier line."""
    inside: list[bool] = []
    state = None
    for line in lines:
        inside.append(state is not None)
        state = _display_state(line, state)
    return inside


def _display_state(line: str, state: str | None) -> str | None:
    """The display block still open after `line` (None when none is)."""
    if state is None:
        opened = _DISPLAY_OPEN.match(line)
        if opened is None:
            return None
        marker = opened.group(1)
        rest = line[opened.end():]
        if marker.startswith("\\begin"):
            env = opened.group(2)
            return None if re.search(rf"\\end\{{{env}\*?\}}", rest) else f"\\end{{{env}"
        return None if _DISPLAY_CLOSE[marker].search(rest) else marker
    if state.startswith("\\end{"):
        return None if state in line else state
    return None if _DISPLAY_CLOSE[state].search(line) else state


def _by_headers(lines: list[str], headers: list[int]) -> list[str]:
    units = ["\n".join(lines[: headers[0]])]
    for start, end in zip(headers, [*headers[1:], len(lines)], strict=True):
        first = _STEP_HEADER.sub("", lines[start], count=1)
        units.append("\n".join([first, *lines[start + 1:end]]))
    return units


def _paragraphs(lines: list[str]) -> list[list[str]]:
    """Blank-line separated paragraphs; a display block is never cut (it may span blank lines)."""
    paragraphs: list[list[str]] = []
    current: list[str] = []
    state: str | None = None
    for line in lines:
        if state is None and not line.strip():
            if current:
                paragraphs.append(current)
                current = []
            continue
        current.append(line)
        state = _display_state(line, state)
    if current:
        paragraphs.append(current)
    return paragraphs


def _split_items(paragraph: list[str]) -> list[str]:
    """A paragraph's lead-in and its top-level list items, one unit each."""
    units: list[list[str]] = [[]]
    state: str | None = None
    for line in paragraph:
        if state is None and _ITEM.match(line):
            units.append([_ITEM.sub("", line, count=1)])
        else:
            units[-1].append(line)
        state = _display_state(line, state)
    return ["\n".join(unit) for unit in units if unit]


def _is_display_only(unit: str) -> bool:
    lines = unit.strip().split("\n")
    if not lines or not _DISPLAY_OPEN.match(lines[0]):
        return False
    state = None
    for number, line in enumerate(lines):
        state = _display_state(line, state)
        if state is None:
            return number == len(lines) - 1
    return True  # an unclosed display block is still only maths


def _finish(units: list[str]) -> list[str]:
    """Drop headings and blanks, attach lone display blocks to the step they belong to."""
    out: list[str] = []
    pending: list[str] = []
    for unit in units:
        stripped = unit.strip()
        if not stripped or (_HEADING.match(stripped) and "\n" not in stripped):
            continue
        if _is_display_only(stripped):
            if out:
                out[-1] = f"{out[-1]}\n{stripped}"
            else:
                pending.append(stripped)
            continue
        if pending:
            stripped = "\n".join([*pending, stripped])
            pending = []
        out.append(stripped)
    if pending:
        out.append("\n".join(pending))
    return out
