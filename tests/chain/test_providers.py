"""Provider payloads read whole: every text the model states, in order, or a clear refusal — never a traceback."""

import json

import pytest

from reasonforge.chain import ReasoningChainError, read_reasoning
from reasonforge.chain.providers import Part, PartKind, split_think, think_parts

from llm_replay import recorded

R, A = PartKind.REASONING, PartKind.ANSWER


def parts(payload):
    return [(p.kind, p.text) for p in read_reasoning(payload).parts]


def chat_message(**message):
    return {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", **message}}]}


# ---- <think> tags ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("no tags", [(A, "no tags")]),
    ("<think>a</think>b", [(R, "a"), (A, "b")]),
    ("before <think>a</think> after", [(A, "before"), (R, "a"), (A, "after")]),
    ("<think>a <think>b</think> c</think> d", [(R, "a b c"), (A, "d")]),  # nested: the outer pair encloses
    ("a</think>b", [(R, "a"), (A, "b")]),  # the opening tag was in the prompt
    ("<think>a", [(R, "a")]),  # cut off inside the reasoning
    ("x</think>y</think>z", [(R, "x"), (A, "yz")]),  # a second stray closing tag does not cut the answer
    ("<think>a</think><think>b</think>c", [(R, "a"), (R, "b"), (A, "c")]),
    ("<think> </think>", []),
])
def test_think_parts(text, expected):
    assert [(p.kind, p.text) for p in think_parts(text)] == expected


def test_split_think_keeps_its_shape_for_callers():
    assert split_think("<think>a</think>b<think>c</think>d") == (["a", "c"], "b\n\nd")
    assert split_think("plain") == ([], "plain")


# ---- Anthropic -------------------------------------------------------------------------------------------------
def test_anthropic_blocks_in_order_with_tool_calls_and_redacted_thinking_skipped():
    message = {"type": "message", "role": "assistant", "content": [
        {"type": "thinking", "thinking": "2 + 3 = 5", "signature": "s"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "t1", "name": "calc", "input": {"expression": "2 + 2 = 5"}},
        {"type": "server_tool_use", "id": "t2", "name": "web_search", "input": {"query": "2 + 2"}},
        {"type": "web_search_tool_result", "tool_use_id": "t2", "content": []},
        {"type": "text", "text": "<think>hidden 1 + 1 = 3</think>So 2 + 3 = 5."},
    ]}
    assert parts(message) == [(R, "2 + 3 = 5"), (A, "Let me check."), (R, "hidden 1 + 1 = 3"), (A, "So 2 + 3 = 5.")]


def test_anthropic_cited_text_blocks_are_one_text():
    message = {"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "The document says "},
        {"type": "text", "text": "the grass is green", "citations": [{"type": "char_location", "cited_text": "x"}]},
        {"type": "text", "text": ". And 2 + 2 = 5."},
        {"type": "thinking", "thinking": "t"},
        {"type": "text", "text": "Separate."},
        {"type": "text", "text": "Also separate."},
    ]}
    assert parts(message) == [(A, "The document says the grass is green. And 2 + 2 = 5."), (R, "t"),
                              (A, "Separate."), (A, "Also separate.")]


@pytest.mark.parametrize(("content", "fragment"), [
    ([{"type": "image", "source": {}}], "content[0] is of type 'image', which is not read"),
    ([{"type": "text", "text": 5}], "content[0].text is a number, not a string"),
    ([{"type": "thinking", "thinking": ["x"]}], "content[0].thinking is an array, not a string"),
    (["2 + 2 = 5"], "content[0] is a string, not an object"),
    ([{"text": "no type"}], "content[0] has no type"),
    ([{"type": "tool_use", "id": "t", "name": "final_result", "input": {"answer": 6}}],
     "holds no thinking and no text blocks (only: tool_use)"),
    ([], "holds no thinking and no text blocks (only: none)"),
])
def test_anthropic_refusals(content, fragment):
    with pytest.raises(ReasoningChainError) as info:
        read_reasoning({"type": "message", "role": "assistant", "content": content})
    assert fragment in info.value.message


def test_a_user_message_is_not_the_models():
    with pytest.raises(ReasoningChainError, match="from 'user', not the model's"):
        read_reasoning({"type": "message", "role": "user", "content": [{"type": "text", "text": "2 + 2 = 5"}]})


# ---- Chat Completions ------------------------------------------------------------------------------------------
def test_chat_reads_reasoning_content_think_sections_content_refusal_and_audio():
    payload = chat_message(reasoning_content="r1", content="<think>r2</think>a1", refusal="I cannot say 2 + 2 = 5.",
                           audio={"id": "a", "transcript": "spoken 1 + 1 = 3"}, tool_calls=[
                               {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}])
    assert parts(payload) == [(R, "r1"), (R, "r2"), (A, "a1"), (A, "I cannot say 2 + 2 = 5."), (A, "spoken 1 + 1 = 3")]


def test_chat_reasoning_given_twice_is_read_once():
    same = chat_message(reasoning_content="2 + 3 = 5", reasoning="2 + 3 = 5", reasoning_details=[
        {"type": "reasoning.text", "text": "2 + 3 = 5"}, {"type": "reasoning.encrypted", "data": "x"}], content="ok")
    assert parts(same) == [(R, "2 + 3 = 5"), (A, "ok")]
    different = chat_message(reasoning="a = 1", reasoning_details=[{"type": "reasoning.summary", "summary": "b = 2"}],
                             content="ok")
    assert parts(different) == [(R, "a = 1"), (R, "b = 2"), (A, "ok")]


def test_chat_content_lists_mistral_thinking_and_refusal_parts():
    payload = chat_message(content=[
        {"type": "thinking", "thinking": [{"type": "text", "text": "2 + 3 = 5"}]},
        {"type": "text", "text": "So 2 + 3 = 5."},
        {"type": "refusal", "refusal": "No more."},
    ])
    assert parts(payload) == [(R, "2 + 3 = 5"), (A, "So 2 + 3 = 5."), (A, "No more.")]


@pytest.mark.parametrize(("payload", "fragment"), [
    ({"choices": [{"message": {"role": "assistant", "content": "a"}}, {"message": {"role": "assistant",
                                                                                   "content": "b"}}]},
     "holds 2 choices"),
    ({"choices": ["x"]}, "choices[0] is a string, not an object"),
    ({"choices": [{"delta": {"content": "x"}}]}, "streamed chunk"),
    (chat_message(reasoning_content=["x"], content="a"), "choices[0].message.reasoning_content is an array"),
    (chat_message(content={"text": "x"}), "choices[0].message.content is an object, not an array"),
    (chat_message(content=[{"type": "image_url", "image_url": {}}]), "is of type 'image_url', which is not read"),
    (chat_message(content=[{"type": "text", "text": None}, "x"]), "content[1] is a string, not an object"),
    (chat_message(content="a", audio="x"), "audio is a string, not an object"),
    (chat_message(content="a", reasoning_details=[{"type": "reasoning.other"}]), "'reasoning.other'"),
    ({"choices": [{"message": {"role": "user", "content": "2 + 2 = 5"}}]}, "from 'user'"),
])
def test_chat_refusals(payload, fragment):
    with pytest.raises(ReasoningChainError) as info:
        read_reasoning(payload)
    assert fragment in info.value.message


# ---- Responses -------------------------------------------------------------------------------------------------
def test_responses_reasoning_text_then_summaries_then_messages_and_refusals():
    payload = {"object": "response", "output": [
        {"type": "reasoning", "encrypted_content": "opaque",
         "content": [{"type": "reasoning_text", "text": "full 2 + 3 = 5"}],
         "summary": [{"type": "summary_text", "text": "**Adding**\n\nsummary 2 + 3 = 5"}]},
        {"type": "function_call", "call_id": "c", "name": "calc", "arguments": "{\"x\": \"2 + 2 = 5\"}"},
        {"type": "function_call_output", "call_id": "c", "output": "4"},
        {"type": "web_search_call", "id": "w", "status": "completed"},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "first", "annotations": []},
            {"type": "refusal", "refusal": "I refuse 1 + 1 = 3."}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "second"}]},
    ]}
    reading = read_reasoning(payload)
    assert [(p.kind, p.text) for p in reading.parts] == [
        (R, "full 2 + 3 = 5"), (R, "**Adding**\n\nsummary 2 + 3 = 5"), (A, "first"), (A, "I refuse 1 + 1 = 3."),
        (A, "second")]


@pytest.mark.parametrize(("output", "fragment"), [
    ([{"type": "audio_transcript", "text": "2 + 2 = 5"}], "output[0] is of type 'audio_transcript', which is not read"),
    ([{"type": "message", "role": "assistant", "content": [{"type": "output_audio", "data": "x"}]}],
     "content[0] is of type 'output_audio'"),
    ([{"type": "reasoning", "summary": "2 + 2 = 5"}], "output[0].summary is a string, not an array"),
    ([{"type": "reasoning", "summary": [{"type": "summary_text", "text": 1}]}], "summary[0].text is a number"),
    (["2 + 2 = 5"], "output[0] is a string, not an object"),
    ([{"type": "message", "role": "user", "content": []}], "from 'user'"),
])
def test_responses_refusals(output, fragment):
    with pytest.raises(ReasoningChainError) as info:
        read_reasoning({"object": "response", "output": output})
    assert fragment in info.value.message


def test_recorded_payloads_read_whole():
    for name in ("openai_responses_reasoning", "anthropic_thinking", "deepseek_reasoner", "openai_chat_json_mode"):
        reading = read_reasoning(recorded(name))
        assert reading.parts and all(isinstance(p, Part) and p.text == p.text.strip() and p.text for p in reading.parts)
        assert reading.parts[-1].kind is A  # every one of them ends on its visible answer


def test_a_long_key_list_is_cut_in_the_message():
    payload = {f"key{i}": i for i in range(500)}
    with pytest.raises(ReasoningChainError) as info:
        read_reasoning(payload)
    assert len(info.value.message) < 1000 and "key0" in info.value.message
    assert json.dumps(info.value.message)
