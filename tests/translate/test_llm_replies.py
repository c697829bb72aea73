"""Every reply a model endpoint can send is read strictly and within bounds: a `ChatReply` or one `ModelError`.

The instances an adversary found (a tool call's `function` that is a string, a token count that is "many" or
1e400 or a list) and the families around them: any JSON value at any field of a real recorded reply, any bytes
as a body, any status, a reply trickled a byte at a time (under the call's one deadline), a body too large, a
stream nobody asked for. Each is tried over loopback HTTP against the real backends, and from the command line.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasonforge.translate.llm import (
    AnthropicBackend,
    ChatMessage,
    ChatReply,
    ChatRequest,
    ModelError,
    ModelSettings,
    OpenAIChatBackend,
    decode_anthropic_message,
    decode_openai_chat,
)

from hostile_endpoint import HostileEndpoint, Script
from llm_replay import field_paths, recorded, replaced

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CHAT_REPLIES = ("openai_chat_json_mode", "openai_chat_tool_calls", "deepseek_reasoner")
ANTHROPIC_REPLIES = ("anthropic_thinking", "anthropic_tool_use")

# Any JSON value, nested a few levels (the shapes a broken or hostile server sends in place of a field).
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


def _request() -> ChatRequest:
    return ChatRequest(system="translate", messages=[ChatMessage(role="user", content="Step 1: x = 2")])


def _openai(url: str, **kw: Any) -> OpenAIChatBackend:
    async def no_sleep(_seconds: float) -> None:
        return None

    settings_ = ModelSettings(base_url=f"{url}/v1", model="gpt-4o", api_key="sk-test-key-123456", **kw)
    return OpenAIChatBackend(settings_, sleep=no_sleep)


def _anthropic(url: str, **kw: Any) -> AnthropicBackend:
    async def no_sleep(_seconds: float) -> None:
        return None

    settings_ = ModelSettings(provider="anthropic", base_url=url, model="claude-sonnet-4-5",
                              api_key="sk-ant-test-123456", **kw)
    return AnthropicBackend(settings_, sleep=no_sleep)


def _complete(backend: OpenAIChatBackend | AnthropicBackend) -> ChatReply:
    return asyncio.run(backend.complete(_request()))




def _with_bad_field(name: str, path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    body = recorded(name)
    holder = body
    for part in path[:-1]:
        holder = holder.setdefault(part, {}) if isinstance(part, str) else holder[part]
    holder[path[-1]] = value
    return body


# ---- the instances --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "value", "named"), [
    (("choices", 0, "message", "tool_calls"), [{"id": "c", "type": "function", "function": "submit_translation"}],
     "choices[0].message.tool_calls[0].function is a string, not an object"),
    (("usage", "prompt_tokens"), "many", 'usage.prompt_tokens is "many", not a token count'),
    (("usage", "completion_tokens_details", "reasoning_tokens"), [415],
     "usage.completion_tokens_details.reasoning_tokens is an array, not a token count"),
    (("usage", "completion_tokens"), -3, "usage.completion_tokens is -3, not a token count"),
    (("choices", 0, "message", "content"), 7, "choices[0].message.content is a number, not a string"),
    (("choices", 0, "message", "reasoning_content"), {"text": "hm"}, "reasoning_content is an object, not a string"),
])
def test_a_chat_reply_field_of_the_wrong_type_is_one_model_error_naming_it(path, value, named):
    body = _with_bad_field("deepseek_reasoner", path, value)
    with pytest.raises(ModelError, match="expected an OpenAI chat.completion object") as decoded:
        decode_openai_chat(body)
    assert named in decoded.value.message
    with HostileEndpoint(Script(body=json.dumps(body).encode())) as server, pytest.raises(ModelError) as sent:
        _complete(_openai(server.url))
    assert named in sent.value.message


def test_a_token_count_of_1e400_is_refused_by_the_json_reader_and_as_a_value():
    body = json.dumps(recorded("openai_chat_json_mode")).replace('"prompt_tokens": 137', '"prompt_tokens": 1e400')
    assert "1e400" in body
    with HostileEndpoint(Script(body=body.encode())) as server, pytest.raises(ModelError) as sent:
        _complete(_openai(server.url))
    assert "usage.prompt_tokens: the number 1e400" in sent.value.message and "overflows to infinity" in sent.value.message
    # decoded by a lenient reader first (Python's json gives inf), the field reader still refuses it
    with pytest.raises(ModelError, match="usage.prompt_tokens is Infinity, not a token count"):
        decode_openai_chat(json.loads(body))


@pytest.mark.parametrize(("path", "value", "named"), [
    (("usage", "input_tokens"), "many", 'usage.input_tokens is "many", not a token count'),
    (("usage", "output_tokens"), 2.5, "usage.output_tokens is 2.5, not a token count"),
    (("content", 0), "thinking", "content[0] is a string, not an object"),
    (("content", 0, "thinking"), ["a"], "content[0].thinking is an array, not a string"),
    (("stop_reason",), {"x": 1}, "stop_reason is an object, not a string"),
])
def test_an_anthropic_field_of_the_wrong_type_is_one_model_error_naming_it(path, value, named):
    body = _with_bad_field("anthropic_thinking", path, value)
    with pytest.raises(ModelError, match="expected an Anthropic message") as decoded:
        decode_anthropic_message(body)
    assert named in decoded.value.message
    with HostileEndpoint(Script(body=json.dumps(body).encode())) as server, pytest.raises(ModelError) as sent:
        _complete(_anthropic(server.url))
    assert named in sent.value.message


def test_an_anthropic_tool_use_whose_input_is_not_an_object_is_refused():
    body = _with_bad_field("anthropic_tool_use", ("content", 0, "input"), "city=Paris")
    with pytest.raises(ModelError, match=r"content\[0\].input is a string, not an object"):
        decode_anthropic_message(body)


def test_tool_call_arguments_nested_beyond_any_reply_go_to_the_parser_as_text():
    deep = '{"a": ' + "[" * 10_000 + "]" * 10_000 + "}"
    body = _with_bad_field("openai_chat_tool_calls", ("choices", 0, "message", "tool_calls"),
                           [{"id": "c", "type": "function", "function": {"name": "f", "arguments": deep}}])
    reply = decode_openai_chat(body)
    assert reply.tool_arguments is None and reply.text == deep  # the parser reports it to the model (bad_json)


@pytest.mark.parametrize(("body", "words"), [
    (b"[" * 100_000, "nested more than 64 levels"),
    (b'{"choices": [], "choices": [1]}', 'repeats the key "choices"'),
    (b'{"choices": NaN}', "NaN"),
    (b"\xff\xfe{}", "UTF-16"),
    (b"<html>502 Bad Gateway</html>", "not valid JSON"),
    (b'"just a string"', "JSON that is a string, not an object"),
    (b"", "not valid JSON"),
])
def test_a_body_that_is_not_one_bounded_json_object_is_one_model_error(body, words):
    with HostileEndpoint(Script(body=body)) as server, pytest.raises(ModelError) as error:
        _complete(_openai(server.url))
    assert words in error.value.message


# ---- any shape ------------------------------------------------------------------------------------------------
def _total(decode: Any, body: Any) -> ChatReply | None:
    """The decoder's answer: a reply, or None for its one error; anything else fails the test."""
    try:
        return decode(body)
    except ModelError as exc:
        assert exc.message.startswith("the reply's ") and "; expected an " in exc.message, exc.message
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_json_value_at_any_field_of_a_recorded_reply_is_a_reply_or_one_model_error(data):
    name = data.draw(st.sampled_from(CHAT_REPLIES + ANTHROPIC_REPLIES))
    body = recorded(name)
    path = data.draw(st.sampled_from(field_paths(body)))
    mutated = replaced(body, path, data.draw(JSON_VALUES))
    decode = decode_anthropic_message if name.startswith("anthropic") else decode_openai_chat
    reply = _total(decode, mutated)
    if reply is not None:
        assert reply.usage.input_tokens >= 0 and reply.usage.output_tokens >= 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES, st.sampled_from([decode_openai_chat, decode_anthropic_message]))
def test_any_json_value_at_all_is_a_reply_or_one_model_error(value, decode):
    _total(decode, value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.binary(max_size=300) | JSON_VALUES.map(lambda v: json.dumps(v).encode()),
       status=st.sampled_from([200, 201, 400, 401, 404, 422]),
       content_type=st.sampled_from(["application/json", "text/plain", "text/event-stream"]),
       anthropic=st.booleans())
def test_any_body_any_status_over_http_is_a_reply_or_one_model_error(endpoint, body, status, content_type, anthropic):
    endpoint.script = Script(body=body, status=status, content_type=content_type)
    backend = _anthropic(endpoint.url, max_retries=0) if anthropic else _openai(endpoint.url, max_retries=0)
    try:
        _complete(backend)
    except ModelError as exc:
        assert "sk-test-key-123456" not in exc.message and "sk-ant-test-123456" not in exc.message


@pytest.fixture(scope="module")
def endpoint():
    with HostileEndpoint() as server:
        yield server


# ---- any speed, any size --------------------------------------------------------------------------------------
@pytest.mark.parametrize("head", [False, True], ids=["trickled-body", "trickled-headers"])
def test_a_reply_trickled_a_byte_at_a_time_ends_at_the_calls_deadline(head):
    # A byte every 0.2 s never trips a 1 s read timeout: only a deadline over the whole exchange ends this, and the
    # server never stops (pytest-timeout would end a hang).
    script = Script(body=json.dumps(recorded("openai_chat_json_mode")).encode(), trickle_s=0.2, endless=True,
                    trickle_head=head)
    with HostileEndpoint(script) as server, pytest.raises(ModelError) as error:
        _complete(_openai(server.url, timeout_s=1.0))
    assert "no whole reply within the deadline of 1 s" in error.value.message
    assert server.bytes_sent >= 3 and len(server.requests) == 1  # it trickled; the deadline is not retried past


def test_a_retry_never_waits_past_the_deadline():
    # 503 with Retry-After 30 s, a 1 s deadline: the call ends at once with the server's answer, no 30 s wait
    script = Script(body=b'{"error": {"message": "overloaded"}}', status=503, extra_headers={"Retry-After": "30"})
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    with HostileEndpoint(script) as server, pytest.raises(ModelError) as error:
        settings_ = ModelSettings(base_url=f"{server.url}/v1", model="m", timeout_s=1.0, max_backoff_s=60)
        asyncio.run(OpenAIChatBackend(settings_, sleep=sleep).complete(_request()))
    assert waits == [] and "HTTP 503" in error.value.message and "overloaded" in error.value.message


@pytest.mark.parametrize("announced", [True, False])
def test_a_body_over_the_size_limit_is_refused_without_reading_it_all(announced):
    body = b'{"choices": [{"message": {"content": "' + b"x" * 200_000 + b'"}}]}'
    script = Script(body=body, announce_length=announced)
    with HostileEndpoint(script) as server, pytest.raises(ModelError) as error:
        _complete(_openai(server.url, max_reply_bytes=64 * 1024))
    assert "over the limit of 65536" in error.value.message


def test_a_stream_nobody_asked_for_is_refused():
    chunk = {"choices": [{"delta": {"content": "x"}, "index": 0}]}
    body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    with HostileEndpoint(Script(body=body, content_type="text/event-stream")) as server, \
            pytest.raises(ModelError, match="streamed its reply"):
        _complete(_openai(server.url))


def test_a_deadline_that_is_not_a_finite_number_is_refused():
    from pydantic import ValidationError

    for bad in (float("inf"), float("nan"), 0.0):
        with pytest.raises(ValidationError):
            ModelSettings(timeout_s=bad)


# ---- from the command line ------------------------------------------------------------------------------------
def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "REASONFORGE_MODEL": "gpt-x", **env}
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", *args], capture_output=True, text=True, env=full,
                          timeout=300, check=False)


def test_the_cli_answers_a_malformed_reply_with_exit_2_naming_the_field():
    body = _with_bad_field("openai_chat_tool_calls", ("choices", 0, "message", "tool_calls"),
                           [{"id": "c", "type": "function", "function": "submit_translation"}])
    with HostileEndpoint(Script(body=json.dumps(body).encode())) as server:
        out = _cli("verify", str(EXAMPLES / "whale.json"), "--translator", "model", "--model", f"{server.url}/v1",
                   env={})
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-3000:]
    assert "choices[0].message.tool_calls[0].function is a string, not an object" in out.stderr


def test_the_cli_ends_a_trickled_reply_at_model_timeout_with_exit_2():
    script = Script(body=json.dumps(recorded("openai_chat_json_mode")).encode(), trickle_s=0.2, endless=True)
    with HostileEndpoint(script) as server:
        out = _cli("verify", str(EXAMPLES / "whale.json"), "--translator", "model", "--model", f"{server.url}/v1",
                   env={"REASONFORGE_MODEL_TIMEOUT_S": "2"})
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-3000:]
    assert "no whole reply within the deadline of 2 s" in out.stderr
