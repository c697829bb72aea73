"""The OpenAI-compatible and Anthropic backends against a loopback server replaying recorded responses."""

import asyncio
import json

import pytest

from reasonforge.translate.llm import (
    AnthropicBackend,
    ChatMessage,
    ChatRequest,
    ModelError,
    ModelSettings,
    OpenAIChatBackend,
    settings_from_env,
)
from reasonforge.translate.prompts import TRANSLATION_SCHEMA

from llm_replay import CHAT, MESSAGES, MODELS, ReplayServer, anthropic_reply, openai_reply, recorded


def _no_sleep():
    waits = []

    async def sleep(seconds):
        waits.append(seconds)

    return sleep, waits


def _request(json_schema=None):
    return ChatRequest(system="translate", messages=[ChatMessage(role="user", content="Step 1: x = 2")],
                       json_schema=json_schema)


def _openai(server, **kw):
    settings = ModelSettings(base_url=f"{server.url}/v1", model=kw.pop("model", "gpt-4o"), api_key="sk-test", **kw)
    sleep, waits = _no_sleep()
    return OpenAIChatBackend(settings, sleep=sleep), waits


def _anthropic(server, **kw):
    settings = ModelSettings(provider="anthropic", base_url=server.url, model="claude-sonnet-4-5",
                             api_key="sk-ant-test", **kw)
    sleep, waits = _no_sleep()
    return AnthropicBackend(settings, sleep=sleep), waits


def test_openai_chat_completion_wire_format_and_token_accounting():
    with ReplayServer() as server:
        server.queue(CHAT, recorded("openai_chat_json_mode"))
        backend, _ = _openai(server, json_mode=True)
        reply = asyncio.run(backend.complete(_request(TRANSLATION_SCHEMA)))
        sent = server.posted(CHAT)[0]
        headers = server.requests[0]["headers"]
    assert reply.text == '{"city":"Mexico City","country":"Mexico"}'
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (137, 11)
    assert reply.model == "gpt-4o-2024-08-06" and reply.finish_reason == "stop" and not reply.truncated
    assert sent["model"] == "gpt-4o" and sent["response_format"] == {"type": "json_object"}
    assert sent["messages"][0] == {"role": "system", "content": "translate"}
    assert headers["Authorization"] == "Bearer sk-test"


def test_openai_tool_call_arguments_are_decoded():
    with ReplayServer() as server:
        server.queue(CHAT, recorded("openai_chat_tool_calls"))
        backend, _ = _openai(server)
        reply = asyncio.run(backend.complete(_request()))
    assert reply.text is None and reply.tool_arguments == {} and reply.finish_reason == "tool_calls"


def test_deepseek_reasoning_content_is_kept_apart_from_the_answer():
    with ReplayServer() as server:
        server.queue(CHAT, recorded("deepseek_reasoner"))
        backend, _ = _openai(server, model="deepseek-reasoner")
        reply = asyncio.run(backend.complete(_request()))
    assert reply.reasoning.startswith("Okay, the user is asking how to cross the street")
    assert reply.text.startswith("Crossing the street safely")
    assert reply.usage.reasoning_tokens == 415


def test_429_is_retried_with_the_servers_retry_after_then_succeeds():
    with ReplayServer() as server:
        server.queue(CHAT, recorded("openai_error_429"), status=429, headers={"retry-after-ms": "174"})
        server.queue(CHAT, recorded("openai_error_429"), status=429)
        server.queue(CHAT, openai_reply("ok"))
        backend, waits = _openai(server)
        reply = asyncio.run(backend.complete(_request()))
    assert reply.text == "ok" and reply.http_attempts == 3
    assert waits[0] == pytest.approx(0.174) and waits[1] > 0


def test_anthropic_529_overloaded_is_retried_and_gives_up_with_a_clear_message():
    with ReplayServer() as server:
        for _ in range(3):
            server.queue(MESSAGES, recorded("anthropic_error_529"), status=529)
        backend, waits = _anthropic(server, max_retries=2)
        with pytest.raises(ModelError) as info:
            asyncio.run(backend.complete(_request()))
    assert len(waits) == 2
    assert info.value.retryable
    assert "gave up after 3 tries" in info.value.message and "HTTP 529 overloaded_error: Overloaded" in info.value.message


def test_a_400_is_not_retried_and_names_the_providers_error():
    with ReplayServer() as server:
        server.queue(CHAT, recorded("openai_error_400"), status=400)
        backend, waits = _openai(server, temperature=None)
        with pytest.raises(ModelError) as info:
            asyncio.run(backend.complete(_request()))
    assert waits == [] and info.value.status == 400 and info.value.provider_type == "invalid_request_error"
    assert "Invalid 'temperature'" in info.value.message


def test_a_temperature_refusal_is_resent_without_temperature():
    with ReplayServer() as server:
        server.queue(CHAT, recorded("openai_error_400"), status=400)
        server.queue(CHAT, openai_reply("ok"))
        backend, _ = _openai(server)
        reply = asyncio.run(backend.complete(_request()))
        first, second = server.posted(CHAT)
    assert reply.text == "ok" and reply.http_attempts == 2
    assert first["temperature"] == 0.0 and "temperature" not in second


def test_anthropic_rate_limit_then_thinking_reply():
    with ReplayServer() as server:
        server.queue(MESSAGES, recorded("anthropic_error_429"), status=429, headers={"retry-after": "0"})
        server.queue(MESSAGES, recorded("anthropic_thinking"))
        backend, waits = _anthropic(server, thinking_budget=1024)
        reply = asyncio.run(backend.complete(_request()))
        sent = server.posted(MESSAGES)[-1]
        headers = server.requests[-1]["headers"]
    assert waits == [0.0]
    assert reply.reasoning.startswith("This is a basic question about street safety")
    assert reply.text.startswith("# How to Cross the Street Safely")
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (42, 332)
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 1024} and "temperature" not in sent
    assert headers["x-api-key"] == "sk-ant-test" and headers["anthropic-version"] == "2023-06-01"


def test_anthropic_forced_tool_use_for_json_mode():
    with ReplayServer() as server:
        server.queue(MESSAGES, recorded("anthropic_tool_use"))
        backend, _ = _anthropic(server, json_mode=True)
        reply = asyncio.run(backend.complete(_request(TRANSLATION_SCHEMA)))
        sent = server.posted(MESSAGES)[0]
    assert reply.tool_arguments == {"city": "Mexico City", "country": "Mexico"}
    assert sent["tool_choice"] == {"type": "tool", "name": "submit_translation"}
    assert sent["tools"][0]["input_schema"]["required"] == ["formal_representation"]


def test_truncation_and_refusal_are_reported_not_hidden():
    with ReplayServer() as server:
        server.queue(MESSAGES, anthropic_reply("```fol\nP(a)", stop_reason="max_tokens"))
        server.queue(CHAT, openai_reply(None, refusal="I'm sorry, I cannot assist with that request."))
        anthropic, _ = _anthropic(server)
        openai, _ = _openai(server)
        cut = asyncio.run(anthropic.complete(_request()))
        refused = asyncio.run(openai.complete(_request()))
    assert cut.truncated and cut.finish_reason == "max_tokens"
    assert refused.refusal.startswith("I'm sorry") and refused.text is None


def test_model_name_is_discovered_from_models_endpoint():
    with ReplayServer() as server:
        server.queue(MODELS, {"object": "list", "data": [{"id": "qwen2.5-coder", "object": "model"}]})
        server.queue(CHAT, openai_reply("hi"))
        backend, _ = _openai(server, model="")
        asyncio.run(backend.complete(_request()))
        assert server.posted(CHAT)[0]["model"] == "qwen2.5-coder"


def test_a_non_chat_payload_is_a_clear_model_error():
    with ReplayServer() as server:
        server.queue(CHAT, recorded("anthropic_thinking"))
        backend, _ = _openai(server)
        with pytest.raises(ModelError, match="expected an OpenAI chat.completion object"):
            asyncio.run(backend.complete(_request()))


def test_concurrency_limit_holds_under_gather():
    with ReplayServer(delay_s=0.05, overlap=2) as server:
        for _ in range(6):
            server.queue(CHAT, openai_reply("ok"))
        backend, _ = _openai(server, concurrency=2)

        async def run():
            return await asyncio.gather(*(backend.complete(_request()) for _ in range(6)))

        replies = asyncio.run(run())
    assert [r.text for r in replies] == ["ok"] * 6
    assert server.max_in_flight == 2


def test_settings_from_env_and_model_argument():
    assert settings_from_env(env={}) is None
    local = settings_from_env("http://127.0.0.1:8000/v1", env={"REASONFORGE_MODEL": "qwen"})
    assert (local.provider, local.base_url, local.model) == ("openai", "http://127.0.0.1:8000/v1", "qwen")
    claude = settings_from_env(env={"REASONFORGE_MODEL": "claude-sonnet-4-5", "ANTHROPIC_API_KEY": "k"})
    assert claude.provider == "anthropic" and claude.api_key.get_secret_value() == "k"
    named = settings_from_env("anthropic:claude-x", env={"REASONFORGE_MODEL_BASE_URL": "http://h:1"})
    assert (named.provider, named.base_url, named.model) == ("anthropic", "http://h:1", "claude-x")
    hosted = settings_from_env(env={"REASONFORGE_MODEL": "gpt-4o", "REASONFORGE_MODEL_API_KEY": "sk-secret-123"})
    assert hosted.base_url == "https://api.openai.com/v1" and "sk-secret-123" not in json.dumps(hosted.model_dump(mode="json"))
