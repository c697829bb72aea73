"""Reasoning chains out of model outputs: provider payloads (OpenAI, Anthropic, DeepSeek) or plain text → steps.

`parse_reasoning_chain(response, prefer=...)` accepts a provider's JSON as a dict (or an SDK object with
`model_dump()`), or a string, and returns `list[ReasoningStep]` (ids 1..n, each depending on the previous
one). `read_reasoning` reads every text the response states, in payload order, as reasoning or answer
(`chain.providers`); which of them become steps is `prefer` (`types.ReasoningSource`):
- `auto` (the default): all of it — the reasoning (summaries, thinking blocks, `reasoning_content`, `<think>`
  sections) and the visible answer, in the order the response holds them (the reasoning first in every
  provider format; interleaved Anthropic blocks in block order), so no text that states something is left
  unchecked;
- `reasoning` or `answer`: only that side (the caller's choice: the verdict then speaks for that side alone);
  an error when the response has none of it.

`final_answer(text)` is the answer a text states: the last `\\boxed{…}`, `#### N` line or "the answer is …" by
position (a `#### …` line counts when it holds a value and no relation; fenced code is not read: a program's
output or comment states nothing). `stated_answer(reading)`, a response's answer, is the last one in the whole
response, reasoning included: when it states two different answers, the later one is the answer it ends on
and is claimed (an empty claim would switch the check of the final answer off: a response could then end on any
answer after stating the right one once).

`request_from_reasoning(submission)` turns a `ReasoningSubmission` (text or a provider payload, with the question)
into the `VerifyRequest` every other path verifies; its claimed answer, when the caller gives none, is the
response's stated answer.

`split_reasoning(text)` cuts one text into steps, by these rules, in order:
1. Two or more "Step k" headers (`Step 1:`, `**Step 2.**`, `### Step 3 -`): one step per header section;
   text before the first header is a step of its own.
2. Otherwise paragraphs (blank-line separated); a Markdown heading line is a block of its own. A paragraph
   holding top-level list items (`1.`, `2)`, `-`, `*`, `•`, indented at most one space) is split into its
   lead-in lines and one step per item; nested (indented) items stay inside their parent. A text that is one
   paragraph without items (no blank line: GSM8K style, the way models write short solutions) is a step per line;
   a line that continues the one before (it starts lower-case or with an operator, or the line before ends in an
   operator or a comma) joins it.
3. LaTeX display blocks (`$$…$$`, `\\[…\\]`, `\\begin{equation|align|…}…\\end{…}`) and fenced code (```` ``` ````,
   `~~~`) are never split, even across blank lines, and nothing inside them is a header, an item or a heading;
   a display block standing alone joins the step before it (the sentence that introduces it), a fenced block
   standing alone is a step of its own (code is not the sentence's maths: its reader decides what it says).
4. A heading — a Markdown `#` line, a line wholly in bold (`**…**`), a lone step marker (`Step 2:`) — is a
   step like any other text (its markers removed: "## Hence 2 + 2 = 5" is the step "Hence 2 + 2 = 5") unless
   it is a title that claims nothing: every word a section word ("Solution", "Final Answer", "Step 2:",
   "Breaking down the problem"), numbers only to number it, nothing after "answer" or "result". A heading
   with any other word is kept: one the reader cannot read is unsupported, never dropped unread.
5. A block that only states the answer the text ends on ("The answer is $\\boxed{6}$.", "#### 6",
   "**Final answer:** 6") joins the step before it: the claimed answer is compared at the last step. One that
   states another answer stays a step of its own (nothing proves it).
Markers (`1.`, `-`, `Step 3:`, `##`, a whole-line `**…**`) are removed from the step's content; nothing else is
rewritten. Every rule works line by line or over a bounded token scan: time linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from reasonforge.chain.parse import decode_text, load_json
from reasonforge.chain.providers import (
    PartKind,
    Reasoning,
    ReasoningChainError,
    from_anthropic_message,
    from_chat_completion,
    from_responses,
    from_text,
)
from reasonforge.errors import InputError
from reasonforge.types import ReasoningSource, ReasoningStep, ReasoningSubmission, VerifyRequest

__all__ = ["final_answer", "parse_reasoning_chain", "read_reasoning", "reasoning_from_bytes", "request_from_reasoning",
           "split_reasoning", "stated_answer"]

Prefer = Literal["auto", "reasoning", "answer"]
_EXPECTED = ("an OpenAI Responses object ({object: 'response', output: [...]}), a Chat Completions object "
             "({choices: [{message: ...}]}, OpenAI / DeepSeek / vLLM / Ollama), an Anthropic message "
             "({type: 'message', content: [...]}), or reasoning text")
_SIDES: dict[str, tuple[PartKind, ...]] = {"auto": (PartKind.REASONING, PartKind.ANSWER),
                                           "reasoning": (PartKind.REASONING,), "answer": (PartKind.ANSWER,)}
_SIDE_NAMES = {"auto": "reasoning and no answer text", "reasoning": "reasoning", "answer": "answer text"}
_PREFER: dict[ReasoningSource, Prefer] = {ReasoningSource.AUTO: "auto", ReasoningSource.REASONING: "reasoning",
                                          ReasoningSource.ANSWER: "answer"}

# (each run of blanks has one place to go: a blank line after "####" cannot be tried in two ways)
_STEP_HEADER = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*)?(?:(?:\*\*|__)[ \t]*)?step[ \t]+(\d+)[ \t]*(?:[:.)\-–—][ \t]*)?"
                          r"(?:\*\*|__)?[ \t]*(?:[:.\-–—][ \t]*)?", re.IGNORECASE)
_CONTINUES = re.compile(r"^\s*(?:[a-z]{2}|[=+\-*/×÷<>≤≥≠^,;:)\]}]|\\(?:times|cdot|div|le|ge|ne|quad|qquad)\b)")
_OPEN_END = re.compile(r"(?:[:=+\-*/×÷<>≤≥≠^,(\[{]|\\(?:times|cdot|div|quad))\s*$")
_ITEM = re.compile(r"^ ?(?:\d{1,3}[.)]|[-*•+])[ \t]+")
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})(?:[ \t]+|$)")
_BOLD_LINE = re.compile(r"^(\*\*|__)(?P<inner>(?:(?!\1).)+)\1[ \t]*(?P<tail>[:.]?)$")
_DISPLAY_OPEN = re.compile(r"^\s*(\$\$|\\\[|\\begin\{(equation|align|gather|multline|eqnarray|displaymath)\*?\}"
                           r"|```|~~~)")
_DISPLAY_CLOSE = {"$$": re.compile(r"\$\$\s*$"), "\\[": re.compile(r"\\\]\s*$"), "```": re.compile(r"```"),
                  "~~~": re.compile(r"~~~")}
_FENCES = ("```", "~~~")

# ---- answers ------------------------------------------------------------------------------------------------------
_MAX_ANSWER = 200
_ANSWER_ANCHOR = re.compile(r"\b(?:the\s+)?(?:final\s+)?answer\s*(?:is\b(?![’']t)|:)", re.IGNORECASE)
_BRACES = re.compile(r"\\boxed\s*\{|\{|\}")
_HASHES = re.compile(r"^[ \t]{0,3}####(?!#)[ \t]*(?P<v>\S.*)$")  # greedy: no backtracking over blank runs
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
# A relation inside an answer makes it a claim to read, not a value: `x = 6`, `a < b`, `x \in S`.
_RELATION = re.compile(r"[=<>≤≥≠≈≡∈∉⊂⊆⊃⊇→⇒⇔↔∼]|\\(?:le|ge|leq|geq|ne|neq|lt|gt|approx|equiv|sim|simeq|cong|in|notin|"
                       r"subset|subseteq|supset|supseteq|to|implies|iff|Rightarrow|Leftrightarrow|rightarrow)"
                       r"(?![A-Za-z])")
_VALUE_MARK = re.compile(r"[0-9\\π∞√]")
_ANSWER_ONLY = re.compile(r"(?:(?:so|thus|therefore|hence|finally|overall|in conclusion|in summary|in total)"
                          r"\s*,?\s+)?(?:the\s+)?(?:final\s+)?answer\s*(?:is\b|:)\s*:?\s*(?P<v>.+?)\s*[.!]?"
                          r"|####[ \t]*(?P<h>.+)"
                          r"|(?:final\s+answer\s*:?\s*)?(?P<b>\$*\s*\\boxed\s*\{.*\}\s*\$*)\s*[.!]?",
                          re.IGNORECASE | re.DOTALL)
_WRAPPERS = (re.compile(r"^\\boxed\s*\{(.*)\}$", re.DOTALL), re.compile(r"^\$+(.*?)\$+$", re.DOTALL),
             re.compile(r"^\\\((.*)\\\)$", re.DOTALL), re.compile(r"^\\\[(.*)\\\]$", re.DOTALL),
             re.compile(r"^(?:\*\*|__)(.*)(?:\*\*|__)$", re.DOTALL))

# ---- titles -------------------------------------------------------------------------------------------------------
# Words a section title is made of. A heading made only of these (and numbers after a numbering word) states
# nothing about the problem; any other word may be a claim ("## Moby swims"), so the heading stays a step.
_TITLE_WORDS = frozenset("""
a an the of and or to for in on with by at from about our my your its it this these what we need how let's lets
solution solutions answer answers final summary summarize summarizing analysis analyze analyzing approach
approaches overview reasoning explanation explanations explain explaining step steps step-by-step verification
verifying verify check checking checks conclusion conclusions concluding introduction setup set setting up
problem problems question questions given givens information info data method methods proof proofs note notes
result results part parts case cases section stage phase option options way ways attempt attempts
understanding understand breaking break down calculation calculations calculating calculate computing compute
computation computations work working details detail detailed key insight insights idea ideas plan planning
strategy recap restating restate finding find identifying identify defining define definition definitions
variable variables equation equations expression expressions solving solve simplifying simplify simplification
first second third fourth fifth next final finally last thinking thoughts thought process response draft review
reviewing double-check double-checking sanity substitution substituting substitute expanding expand factoring
factor rewriting rewrite background context assumption assumptions goal goals task tasks main unknown unknowns
known knowns start starting begin beginning quick brief short full complete walkthrough outline sketch
derivation deriving derive evaluate evaluating evaluation alternative another other direct total totals
lemma lemmas claim claims theorem example examples exercise appendix remark remarks observation observations
conditions constraints requirements inputs outputs output input formula formulas values value numbers
""".split())  # noqa: SIM905 - a word list reads better as text
_NUMBERING_WORDS = frozenset({"step", "steps", "part", "case", "section", "stage", "phase", "option", "way", "attempt",
                              "lemma", "claim", "theorem", "example", "exercise", "appendix", "remark", "observation",
                              "method", "approach", "problem", "question"})
# A title may name the answer or the result, never go on to say it ("## Answer: first" states one).
_STATING_WORDS = frozenset({"answer", "answers", "result", "results", "conclusion", "conclusions"})
_TITLE_TOKEN = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*|\d+|\S")
_TITLE_PUNCTUATION = frozenset(":.-–—(),&/'\"*_`")
_MAX_TITLE, _MAX_TITLE_WORDS = 120, 12
_ROMAN = re.compile(r"[ivxlc]{1,5}|[a-z]", re.IGNORECASE)


# ---- reading --------------------------------------------------------------------------------------------------------
def read_reasoning(response: Any) -> Reasoning:
    """Which provider shape `response` has, and every text it states, in order (`chain.providers`)."""
    if hasattr(response, "model_dump") and not isinstance(response, Mapping):
        try:
            response = response.model_dump()  # openai / anthropic SDK objects are pydantic models
        except Exception as exc:  # noqa: BLE001 - an object from outside: whatever it raises is a refusal
            raise ReasoningChainError(f"cannot read the {type(response).__name__} object ({type(exc).__name__}); "
                                      f"expected {_EXPECTED}") from None
    if isinstance(response, str):
        return from_text(response)
    if not isinstance(response, Mapping):
        raise ReasoningChainError(f"cannot read a reasoning chain from a {type(response).__name__}; expected {_EXPECTED}")
    if isinstance(response.get("error"), Mapping) and "choices" not in response and "output" not in response:
        error = response["error"]
        raise ReasoningChainError(f"the payload is an API error ({str(error.get('type', '?'))[:80]}: "
                                  f"{str(error.get('message', ''))[:200]}), not a response")
    if response.get("object") == "response" or ("output" in response and "choices" not in response):
        return from_responses(response)
    if "choices" in response:
        return from_chat_completion(response)
    if response.get("type") == "message" or ("content" in response and "role" in response):
        return from_anthropic_message(response)
    keys = ", ".join(sorted(str(k)[:40] for k in response)[:12]) or "none"
    raise ReasoningChainError(f"unrecognised response shape (keys: {keys}); expected {_EXPECTED}")


def parse_reasoning_chain(response: Any, *, prefer: Prefer = "auto") -> list[ReasoningStep]:
    """The steps of a model response (dict, SDK object or string), ids 1..n in order.

    `prefer="auto"` makes steps of all its text, reasoning and answer; "reasoning" or "answer" of that side
    only (an error when it is empty)."""
    return _steps(read_reasoning(response), prefer)


def _steps(reading: Reasoning, prefer: Prefer) -> list[ReasoningStep]:
    if prefer not in _SIDES:
        raise ReasoningChainError(f"prefer must be auto, reasoning or answer, not {str(prefer)[:40]!r}")
    units: list[str] = []
    for part in reading.parts:
        if part.kind in _SIDES[prefer]:
            units.extend(_units(part.text))
    units = _join_answers(units, stated_answer(reading))
    if not units:
        raise ReasoningChainError(f"the {reading.provider} payload has no {_SIDE_NAMES[prefer]} to split into steps")
    return [ReasoningStep(step_id=index, content=text) for index, text in enumerate(units, start=1)]


def stated_answer(reading: Reasoning) -> str:
    """The answer a response states: the last one (`final_answer`) of its last text that states one, reasoning
    included; "" when none does."""
    for part in reversed(reading.parts):
        answer = final_answer(part.text)
        if answer:
            return answer
    return ""


def request_from_reasoning(submission: ReasoningSubmission) -> VerifyRequest:
    """The `VerifyRequest` for reasoning as it arrived: its steps split out, its claimed answer the caller's or
    the one the response states (ReasoningChainError when there is nothing to split)."""
    reading = read_reasoning(submission.reasoning)
    steps = _steps(reading, _PREFER[submission.source])
    claimed = submission.claimed_answer if submission.claimed_answer is not None else stated_answer(reading)
    return VerifyRequest(reasoning_chain=steps, domain=submission.domain, original_query=submission.original_query,
                         claimed_answer=claimed, reference_answer=submission.reference_answer,
                         proof_level=submission.proof_level, prover=submission.prover,
                         callback_url=submission.callback_url, generate_certificate=submission.generate_certificate,
                         translator=submission.translator, samples=submission.samples, agree=submission.agree)


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


# ---- the stated answer --------------------------------------------------------------------------------------------
def final_answer(text: str) -> str:
    """The answer `text` states: of its `\\boxed{…}` (braces balanced), `#### N` lines and "the answer is …",
    the last by position; "" when it states none (never a guess from the prose). Fenced code is not read."""
    masked = _mask_code(text)
    found = [*_boxes(masked), *_answer_lines(masked)]
    return max(found)[1] if found else ""


def _mask_code(text: str) -> str:
    """`text` with the lines of fenced code blocks blanked (same length, newlines kept)."""
    if "```" not in text and "~~~" not in text:
        return text
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = line.lstrip()[:3]
        if fence is None and opened in _FENCES:
            fence = None if line.lstrip()[3:].find(opened) >= 0 else opened
            out.append(" " * len(line))
        elif fence is not None:
            if line.lstrip().startswith(fence):
                fence = None
            out.append(" " * len(line))
        else:
            out.append(line)
    return "\n".join(out)


def _boxes(text: str) -> Iterator[tuple[int, str]]:
    """(position, content) of every balanced `\\boxed{…}`: one pass over the braces, a stack of open ones."""
    if "\\boxed" not in text:
        return
    stack: list[tuple[int, int]] = []  # (box position or -1 for a plain brace, where its content starts)
    for token in _BRACES.finditer(text):
        if token.group() == "}":
            if stack:
                box, start = stack.pop()
                if box >= 0 and token.start() - start <= 2 * _MAX_ANSWER:  # a longer box is no answer to read
                    value = text[start:token.start()].strip()
                    if value:
                        yield box, value[:_MAX_ANSWER]
        else:
            stack.append((token.start() if token.group() != "{" else -1, token.end()))


def _answer_lines(text: str) -> Iterator[tuple[int, str]]:
    """(position, answer) of each `#### N` line and each "the answer is …" (the rest of its line, to the end of
    its sentence; the next line when the rest is empty, as in "The answer is:\\n6")."""
    offset = 0
    lines = text.split("\n")
    for number, line in enumerate(lines):
        hashes = _HASHES.match(line) if "####" in line else None
        if hashes and _is_value(hashes.group("v")):
            yield offset, _clean(hashes.group("v").rstrip())
        elif "nswer" in line or "NSWER" in line:
            anchors = list(_ANSWER_ANCHOR.finditer(line))
            if anchors:
                rest = line[anchors[-1].end():anchors[-1].end() + 4 * _MAX_ANSWER].lstrip(" \t:*_")
                if not rest.strip() and number + 1 < len(lines):
                    rest = lines[number + 1][:4 * _MAX_ANSWER].strip()
                value = _clean(_SENTENCE_END.split(rest, maxsplit=1)[0])
                if value:
                    yield offset + anchors[-1].start(), value
        offset += len(line) + 1


def _clean(value: str) -> str:
    """An answer without its wrappers: `$18$`, `**18**`, `\\(18\\)`, `\\boxed{18}` are 18."""
    value = value.strip().strip("*_").strip()
    for _ in range(4):
        before = value
        for wrapper in _WRAPPERS:
            inner = wrapper.match(value)
            if inner:
                value = inner.group(1).strip()
        value = value.rstrip(".").strip()
        if value == before:
            break
    return value[:_MAX_ANSWER]


def _is_value(text: str) -> bool:
    """A stated value (a number, a LaTeX or symbolic form), not a relation and not words alone."""
    return bool(_VALUE_MARK.search(text)) and not _RELATION.search(text) and len(text) <= _MAX_ANSWER


def _normal(answer: str) -> str:
    return re.sub(r"\s+", "", _clean(answer)).lower()


def _answer_only(unit: str) -> str | None:
    """The value a block states when stating an answer is all it does ("The answer is $\\boxed{6}$.", "#### 6",
    "**Final answer:** 6"), else None."""
    if len(unit) > 2 * _MAX_ANSWER or "\n" in unit.strip():
        return None
    plain = unit.strip().replace("**", "").replace("__", "")
    match = _ANSWER_ONLY.fullmatch(plain)
    if match is None:
        return None
    value = next(v for v in match.group("v", "h", "b") if v is not None).strip()
    return value if _is_value(value) and _balanced(value) else None


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _join_answers(units: list[str], answer: str) -> list[str]:
    """Rule 5: a block stating the response's answer joins the step before it."""
    if not answer:
        return units
    target = _normal(answer)
    out: list[str] = []
    for unit in units:
        value = _answer_only(unit)
        if out and value is not None and _normal(value) == target:
            out[-1] = f"{out[-1]}\n{unit}"
        else:
            out.append(unit)
    return out


# ---- splitting ----------------------------------------------------------------------------------------------------
def split_reasoning(text: str) -> list[str]:
    """The steps of a reasoning text, in order (empty list for blank text)."""
    return _join_answers(_units(text), final_answer(text))


def _units(text: str) -> list[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return []
    lines = text.split("\n")
    inside = _inside_display(lines)
    headers = [i for i, line in enumerate(lines) if _STEP_HEADER.match(line) and not inside[i]]
    if len(headers) >= 2:
        units = _by_headers(lines, headers)
    else:
        paragraphs = _paragraphs(lines)
        if len(paragraphs) == 1 and not _has_items(paragraphs[0]):
            units = _by_lines(paragraphs[0])
        else:
            units = []
            for paragraph in paragraphs:
                units.extend(_split_items(paragraph))
    return _finish(units)


def _has_items(paragraph: list[str]) -> bool:
    state: str | None = None
    for line in paragraph:
        if state is None and _ITEM.match(line):
            return True
        state = _display_state(line, state)
    return False


def _by_lines(paragraph: list[str]) -> list[str]:
    """Rule 2a: a text with no blank line, header or list item is a step per line (GSM8K style), a display block
    or fenced code kept whole; a line that continues the one before (starting with a lower-case word or an
    operator, or after a line ending in an operator, a colon or a comma) joins it, so no sentence or relation is
    cut in two; a line that starts with a one-letter name (`x = 26`) is a statement of its own."""
    units: list[list[str]] = []
    state: str | None = None
    for line in paragraph:
        continues = bool(units) and (state is not None or _CONTINUES.match(line) is not None
                                     or _OPEN_END.search(units[-1][-1]) is not None)
        if continues:
            units[-1].append(line)
        else:
            units.append([line])
        state = _display_state(line, state)
    return ["\n".join(unit) for unit in units]


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
    if state in _FENCES:
        return None if line.lstrip().startswith(state) else state
    return None if _DISPLAY_CLOSE[state].search(line) else state


def _is_heading_line(line: str) -> bool:
    """A Markdown heading, not a `#### N` answer line."""
    hashes = _HEADING.match(line)
    if hashes is None:
        return False
    answer = _HASHES.match(line)
    return not (len(hashes.group(1)) == 4 and answer is not None and _is_value(answer.group("v")))


def _by_headers(lines: list[str], headers: list[int]) -> list[str]:
    units = ["\n".join(lines[: headers[0]])]
    for start, end in zip(headers, [*headers[1:], len(lines)], strict=True):
        first = _STEP_HEADER.sub("", lines[start], count=1)
        units.append("\n".join([first, *lines[start + 1:end]]))
    return units


def _paragraphs(lines: list[str]) -> list[list[str]]:
    """Blank-line separated paragraphs, a heading line a block of its own; a display block or fenced code is
    never cut (it may span blank lines)."""
    paragraphs: list[list[str]] = []
    current: list[str] = []
    state: str | None = None
    for line in lines:
        if state is None and (not line.strip() or _is_heading_line(line)):
            if current:
                paragraphs.append(current)
                current = []
            if line.strip():
                paragraphs.append([line])
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
    """A LaTeX display block and nothing else (fenced code is not: it stays a step of its own)."""
    lines = unit.strip().split("\n")
    opened = _DISPLAY_OPEN.match(lines[0])
    if opened is None or opened.group(1) in _FENCES:
        return False
    state = None
    for number, line in enumerate(lines):
        state = _display_state(line, state)
        if state is None:
            return number == len(lines) - 1
    return True  # an unclosed display block is still only maths


def _heading(unit: str) -> str | None:
    """A one-line heading's text without its markers (`## …`, a whole-line `**…**`, a lone step marker), else
    None."""
    if "\n" in unit:
        return None
    hashes = _HEADING.match(unit)
    if hashes is not None and _is_heading_line(unit):
        text = unit[hashes.end():].rstrip().rstrip("#").strip()
        bold = _BOLD_LINE.match(text)
        return bold.group("inner").strip() + bold.group("tail") if bold else text
    bold = _BOLD_LINE.match(unit)
    if bold is not None:
        return bold.group("inner").strip() + bold.group("tail")
    marker = _STEP_HEADER.match(unit)
    return unit if marker is not None and not unit[marker.end():].strip() else None


def _is_title(text: str) -> bool:
    """Rule 4: section words only, numbers only after a numbering word (or as a leading `1.`), nothing after
    "answer" or "result"."""
    tokens = _TITLE_TOKEN.findall(text[:_MAX_TITLE])
    if len(text) > _MAX_TITLE or len(tokens) > 2 * _MAX_TITLE_WORDS:
        return False
    said = [index for index, token in enumerate(tokens) if token.lower() in _STATING_WORDS]
    if said and any(token not in _TITLE_PUNCTUATION for token in tokens[said[0] + 1:]):
        return False
    for index, token in enumerate(tokens):
        if token in _TITLE_PUNCTUATION:
            continue
        before = [t for t in tokens[:index] if t not in "()"]
        after_numbering = bool(before) and before[-1].lower() in _NUMBERING_WORDS
        if token.isdigit():
            leading = index == 0 and len(tokens) > 1 and tokens[1] in ".)"
            if len(token) > 3 or not (after_numbering or leading):
                return False
        elif token.lower() in _TITLE_WORDS:
            continue
        elif not (after_numbering and _ROMAN.fullmatch(token)):
            return False
    return sum(t not in _TITLE_PUNCTUATION for t in tokens) <= _MAX_TITLE_WORDS


def _finish(units: list[str]) -> list[str]:
    """Drop titles and blanks, strip heading markers, attach lone display blocks to the step they belong to."""
    out: list[str] = []
    pending: list[str] = []
    for unit in units:
        stripped = unit.strip()
        heading = _heading(stripped) if stripped else None
        if heading is not None:
            if _is_title(heading):
                continue
            stripped = heading
        if not stripped:
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
