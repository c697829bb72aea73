"""Reasoning chains out of recorded provider payloads and plain text."""


import copy
from typing import Any

import pytest

from reasonforge.chain import (
    ReasoningChainError,
    final_answer,
    parse_reasoning_chain,
    read_reasoning,
    reasoning_from_bytes,
    request_from_reasoning,
    split_reasoning,
)
from reasonforge.errors import InputError, ReasonForgeError
from reasonforge.types import ReasoningSubmission

from llm_replay import recorded


def contents(response, **kw):
    return [s.content for s in parse_reasoning_chain(response, **kw)]


def test_openai_responses_reasoning_summaries_are_one_step_each():
    steps = parse_reasoning_chain(recorded("openai_responses_reasoning"))
    assert [s.step_id for s in steps] == [1, 2, 3, 4, 5, 6]
    assert steps[0].content.startswith("**Considering street crossing safety**\n\nI need to parse the user's query")
    assert steps[4].content.startswith("**Finalizing crossing procedure**") and "- At night, wear" in steps[4].content
    assert steps[5].content.endswith("Let's finalize this concise guidance!")
    assert all(s.dependencies is None for s in steps)  # each step depends on the previous one


def test_openai_responses_answer_when_asked():
    steps = contents(recorded("openai_responses_reasoning"), prefer="answer")
    assert steps[0] == "Here’s a simple, safe way to cross a street:" and len(steps) == 11
    assert steps[1].startswith("Pick a safe spot: a marked crosswalk")


def test_anthropic_thinking_blocks_are_split_into_steps():
    steps = contents(recorded("anthropic_thinking"))
    assert len(steps) == 9
    assert steps[0].startswith("This is a basic question about street safety.")
    assert steps[1] == "I'll include:"
    assert steps[2:8] == ["Finding the right place to cross (crosswalks, intersections)", "Checking for traffic signals",
                          "Looking both ways for approaching vehicles", "Making eye contact with drivers",
                          "Walking (not running) across the street", "Staying alert while crossing"]
    assert steps[8].startswith("I'll keep my answer straightforward")


def test_anthropic_answer_keeps_nested_bullets_inside_numbered_items():
    steps = contents(recorded("anthropic_thinking"), prefer="answer")
    assert len(steps) == 6  # the "# How to Cross…" title is dropped; 5 items and the closing remark
    assert steps[0].startswith("**Find the right place to cross**\n   - Use marked crosswalks")
    assert steps[-1].startswith("Remember, safety should always be your priority")


def test_deepseek_reasoning_content_paragraphs():
    steps = contents(recorded("deepseek_reasoner"))
    assert len(steps) == 5
    assert steps[0].startswith("Okay, the user is asking how to cross the street.")
    assert steps[4].endswith("Need to present it clearly and concisely.")


def test_deepseek_think_tags_in_content():
    body = recorded("openai_chat_json_mode")
    body["model"] = "deepseek-r1:14b"
    body["choices"][0]["message"]["content"] = "<think>\nFirst, 2 + 2 = 4.\n\nThen 4 * 3 = 12.\n</think>\n\nThe answer is 12."
    reading = read_reasoning(body)
    assert reading.provider == "deepseek" and reading.answer == "The answer is 12."
    assert contents(body) == ["First, 2 + 2 = 4.", "Then 4 * 3 = 12."]


def test_chat_completion_without_reasoning_uses_the_answer():
    body = recorded("openai_chat_json_mode")
    body["choices"][0]["message"]["content"] = "1. x = 2\n2. So x^2 = 4"
    assert contents(body) == ["x = 2", "So x^2 = 4"]


def test_sdk_objects_with_model_dump_are_accepted():
    class Response:
        def model_dump(self):
            return recorded("anthropic_thinking")

    assert len(parse_reasoning_chain(Response())) == 9


@pytest.mark.parametrize(("text", "expected"), [
    ("Step 1: Let x = 3.\nStep 2: Then x + 1 = 4.\n**Step 3.** So x + 2 = 5.",
     ["Let x = 3.", "Then x + 1 = 4.", "So x + 2 = 5."]),
    ("We know:\n- All whales are mammals.\n- Moby is a whale.\n\nTherefore Moby is a mammal.",
     ["We know:", "All whales are mammals.", "Moby is a whale.", "Therefore Moby is a mammal."]),
    ("First, expand.\n$$\n(x+1)^2 = x^2 + 2x + 1\n$$\n\nSo the identity holds.",
     ["First, expand.\n$$\n(x+1)^2 = x^2 + 2x + 1\n$$", "So the identity holds."]),
    ("We compute\n\n\\[\na = 1\n\nb = 2\n\\]\n\nHence a + b = 3.",
     ["We compute\n\\[\na = 1\n\nb = 2\n\\]", "Hence a + b = 3."]),
    ("Preamble.\n### Step 1\nx = 1\n### Step 2\nx + 1 = 2", ["Preamble.", "x = 1", "x + 1 = 2"]),
    ("1) a = 1\n2) b = 2", ["a = 1", "b = 2"]),
    ("Just one paragraph, no structure.", ["Just one paragraph, no structure."]),
])
def test_plain_text_shapes(text, expected):
    assert split_reasoning(text) == expected
    assert contents(text) == expected


@pytest.mark.parametrize(("payload", "fragment"), [
    ({"foo": 1, "bar": 2}, "unrecognised response shape (keys: bar, foo); expected an OpenAI Responses object"),
    (recorded("openai_error_429"), "is an API error (tokens: Rate limit reached"),
    (recorded("anthropic_tool_use"), "holds no thinking and no text blocks (only: tool_use)"),
    ({"choices": [{"delta": {"content": "x"}}]}, "streamed chunk"),
    (42, "cannot read a reasoning chain from a int"),
    ("   ", "no answer text"),
])
def test_unknown_or_empty_payloads_give_a_clear_error(payload, fragment):
    with pytest.raises(ReasoningChainError) as info:
        parse_reasoning_chain(payload)
    assert fragment in info.value.message


@pytest.mark.parametrize(("text", "answer"), [
    ("so x = 3. The answer is $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}"),
    ("\\boxed{1} first, then \\boxed{\\{2, 3\\}}", "\\{2, 3\\}"),
    ("She has 18 eggs.\n#### 18", "18"),
    ("The final answer is: 42.", "42"),
    ("The answer is $18$.", "18"),
    ("We get 5 apples.", ""),  # nothing states an answer: none is guessed from the prose
    ("\\boxed{unclosed", ""),
])
def test_final_answer_reads_only_what_the_text_states(text, answer):
    assert final_answer(text) == answer


def test_final_answer_is_bounded_on_hostile_text():
    for text in ("the answer is " * 100_000, "\\boxed{" * 100_000, "#### " + " " * 100_000 + "x"):
        assert len(final_answer(text)) <= 200


def test_request_from_reasoning_splits_the_payload_and_reads_its_answer():
    completion = {"object": "chat.completion", "choices": [{"index": 0, "message": {
        "role": "assistant", "content": "<think>2 + 2 = 4\n\nSo 4 + 1 = 5</think>The answer is 5."}}]}
    request = request_from_reasoning(ReasoningSubmission(reasoning=completion, domain="mathematics",
                                                         original_query="What is 2 + 2 + 1?", proof_level="quick"))
    assert [s.content for s in request.reasoning_chain] == ["2 + 2 = 4", "So 4 + 1 = 5"]
    assert (request.claimed_answer, request.proof_level.value, request.original_query) == (
        "5", "quick", "What is 2 + 2 + 1?")
    given = request_from_reasoning(ReasoningSubmission(reasoning=completion, domain="mathematics", claimed_answer="6"))
    assert given.claimed_answer == "6"  # the caller's answer wins
    answer_only = request_from_reasoning(ReasoningSubmission(reasoning=completion, domain="mathematics",
                                                             source="answer"))
    assert [s.content for s in answer_only.reasoning_chain] == ["The answer is 5."]
    with pytest.raises(ReasoningChainError, match="no choices"):
        request_from_reasoning(ReasoningSubmission(reasoning={"choices": []}, domain="logic"))


def test_reasoning_from_bytes_tells_payloads_from_text():
    assert reasoning_from_bytes(b'  {"choices": []}') == {"choices": []}
    assert reasoning_from_bytes("Step 1: x ≥ 2".encode()) == "Step 1: x ≥ 2"
    with pytest.raises(InputError, match="line 1"):
        reasoning_from_bytes(b'{"choices": [}')
    with pytest.raises(InputError, match="UTF-8"):
        reasoning_from_bytes(b"\xff\xfe")


@pytest.mark.parametrize(("payload", "message"), [
    ({"object": "response", "output": [{"type": "reasoning", "summary": 5}]},
     "the response's output[0].summary is a number, not a list of objects"),
    ({"object": "response", "output": [{"type": "reasoning", "summary": [], "content": 7}]},
     "the response's output[0].content is a number, not a list of objects"),
    ({"object": "response", "output": [{"type": "reasoning", "summary": ["text"]}]},
     "the response's output[0].summary[0] is a string, not an object"),
    ({"object": "response", "output": [{"type": "message", "content": 3}]},
     "the response's output[0].content is a number, not a list of objects"),
    ({"object": "response", "output": [{"type": "message", "content": [{"type": "output_text", "text": [1]}]}]},
     "the response's output[0].content[0].text is a list, not a string"),
    ({"choices": [{"message": {"content": "x", "reasoning_content": ["a"]}}]},
     "the response's choices[0].message.reasoning_content is a list, not a string"),
    ({"choices": [{"message": {"content": 5}}]}, "the response's choices[0].message.content is a number"),
    ({"type": "message", "content": [{"type": "thinking", "thinking": {"a": 1}}]},
     "the response's content[0].thinking is an object, not a string"),
    ({"type": "message", "content": [{"type": "text", "text": True}]},
     "the response's content[0].text is a boolean, not a string"),
])
def test_a_field_of_the_wrong_type_is_refused_by_its_path(payload, message):
    # once a TypeError (a number iterated) or silently read as if the field were absent
    with pytest.raises(ReasoningChainError) as info:
        request_from_reasoning(ReasoningSubmission(reasoning=payload, domain="mathematics"))
    assert message in info.value.message


def _fields(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        out += _fields(item, (*path, key))
    return out


def _with(payload: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(payload)
    holder = out
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    return out


OTHER_KINDS = (None, True, 0, 2.5, "", "text", [], [1, "a"], {}, {"type": "text"})


@pytest.mark.parametrize("name", ["openai_responses_reasoning", "deepseek_reasoner", "openai_chat_json_mode",
                                  "openai_chat_tool_calls", "anthropic_thinking", "anthropic_tool_use"])
def test_any_field_of_a_recorded_payload_replaced_by_any_kind_is_read_or_refused(name):
    """The family: every field of a real response, replaced by a value of each JSON kind, is read into a request
    or refused with a ReasonForgeError: never another exception."""
    payload = recorded(name)
    for path in _fields(payload)[1:]:
        for value in OTHER_KINDS:
            try:
                request_from_reasoning(ReasoningSubmission(reasoning=_with(payload, path, value), domain="logic"))
            except ReasonForgeError:
                pass
