"""The in-process model's decoding: k samples of one prompt, the prompt cache, a full memory. Real 0.5B model
(skipped, naming it, where `make model` has not run); each reply is a handful of tokens."""

import asyncio

import pytest

from reasonforge.translate.grammars import grammar_for
from reasonforge.translate.llm import ChatMessage, ChatReply, ChatRequest, complete_samples
from reasonforge.translate.local_model import local_settings
from reasonforge.translate.question import MAX_PROGRAM_TOKENS, QUESTION_GRAMMAR, QUESTION_SYSTEM, question_messages
from reasonforge.types import ArtifactLanguage

from .local_model_support import REAL_MODEL_DIR, needs_local_model

pytestmark = needs_local_model

QUESTION = "Tom has 3 boxes of 12 pencils and gives away 5 pencils. How many pencils does he have left?"


@pytest.fixture()
def backend(monkeypatch):
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    from reasonforge.translate.local_model import LocalModelBackend

    return LocalModelBackend(local_settings())


def _ask(backend, request, attempts):
    return asyncio.run(complete_samples(backend, request, attempts))


def test_k_samples_of_one_prompt_read_it_once_and_each_keeps_to_the_grammar(backend):
    request = ChatRequest(system=QUESTION_SYSTEM, messages=question_messages(QUESTION), grammar=QUESTION_GRAMMAR,
                          max_tokens=MAX_PROGRAM_TOKENS)
    replies = _ask(backend, request, [1, 2, 3])
    assert len(replies) == 3 and all(isinstance(r, ChatReply) for r in replies)
    for reply in replies:
        body = reply.text.strip()
        assert body.startswith("```python\n") and body.endswith("```")
        assert body.splitlines()[-2].startswith("answer = ")
    first, *others = replies
    assert first.usage.cached_tokens < first.usage.input_tokens  # the first sample read the prompt ...
    assert all(r.usage.cached_tokens == r.usage.input_tokens for r in others)  # ... the others did not again


def test_a_prompt_that_shares_a_prefix_with_an_earlier_one_reads_only_what_differs(backend):
    base = ChatRequest(system="Translate the step into first-order logic.",
                       messages=[ChatMessage(role="user", content="Every whale is a mammal. Moby is a whale.")],
                       grammar=grammar_for(ArtifactLanguage.FOL), max_tokens=60)
    first = asyncio.run(backend.complete(base))
    longer = base.model_copy(update={"messages": [ChatMessage(role="user", content=(
        "Every whale is a mammal. Moby is a whale. So Moby is a mammal."))]})
    second = asyncio.run(backend.complete(longer))
    assert first.usage.cached_tokens == 0
    assert 0 < second.usage.cached_tokens < second.usage.input_tokens
    again = asyncio.run(backend.complete(longer))
    assert again.usage.cached_tokens == again.usage.input_tokens - 1  # its last token is read for its logits


def test_with_the_cache_off_every_reply_reads_its_whole_prompt(monkeypatch):
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    from reasonforge.translate.local_model import LocalModelBackend

    uncached = LocalModelBackend(local_settings(prompt_cache=False))
    request = ChatRequest(system="You are terse.", messages=[ChatMessage(role="user", content="Say yes.")],
                          max_tokens=4)
    replies = _ask(uncached, request, [1, 1, 2])
    assert [r.usage.cached_tokens for r in replies] == [0, 0, 0]


def test_a_full_memory_makes_room_and_answers(monkeypatch):
    # A context of 512 tokens holds 1,024 in its memory: four different ~300-token prompts cannot all stay
    # cached, and each is still answered (the cached prompts make room).
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    from reasonforge.translate.local_model import LocalModelBackend

    small = LocalModelBackend(local_settings(context_tokens=512))
    for n in range(4):
        text = " ".join(f"{n}-{i}" for i in range(60))
        request = ChatRequest(system=f"Prompt {n}.", messages=[ChatMessage(role="user", content=text)], max_tokens=3)
        [reply] = _ask(small, request, [1, 2])[:1]
        assert isinstance(reply, ChatReply) and reply.usage.output_tokens >= 1


def test_a_prompt_longer_than_the_context_window_is_one_model_error(backend):
    from reasonforge.translate.llm import ModelError

    backend.settings = backend.settings.model_copy(update={"context_tokens": 512})
    request = ChatRequest(system="-", messages=[ChatMessage(role="user", content="word " * 900)], max_tokens=3)
    with pytest.raises(ModelError, match="context window holds 512"):
        asyncio.run(backend.complete(request))


def test_drafted_tokens_the_model_does_not_write_leave_no_trace(backend):
    # Prompt-lookup drafts guess that a reply repeats what came before; counting repeats little, so drafts are
    # checked and refused along the way, and a refused draft's cells must leave the memory or the count derails.
    request = ChatRequest(system="You are terse.", messages=[ChatMessage(role="user", content=(
        "Count from 1 to 30, separated by commas, and nothing else."))], max_tokens=120)
    reply = asyncio.run(backend.complete(request))
    numbers = [int(n) for n in reply.text.replace(",", " ").split() if n.isdigit()]
    assert numbers[:30] == list(range(1, 31))


def test_a_reply_that_copies_its_prompt_is_copied_exactly(backend):
    text = "the quick brown fox jumps over the lazy dog near the riverbank at dawn"
    request = ChatRequest(system="Repeat the user's text exactly, nothing else.",
                          messages=[ChatMessage(role="user", content=text)], max_tokens=40)
    assert text in asyncio.run(backend.complete(request)).text.lower()


LONG_SYSTEM = ("You turn a word problem into a short program. " * 12).strip()


def _fresh_backend(directory):
    from reasonforge.translate.local_model import LocalModelBackend

    return LocalModelBackend(local_settings())


def test_a_system_prompt_read_once_is_kept_on_disk_for_the_next_process(tmp_path, monkeypatch):
    # The model file is linked into an empty model directory, so the kept prompts land there alone.
    from reasonforge.translate.local_model import installed_model

    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(REAL_MODEL_DIR))
    real = installed_model()
    (tmp_path / real.name).symlink_to(real)
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(tmp_path))

    def ask(question):
        request = ChatRequest(system=LONG_SYSTEM, messages=[ChatMessage(role="user", content=question)], max_tokens=3)
        return asyncio.run(_fresh_backend(tmp_path).complete(request))

    first = ask("Ann has 3 apples and buys 2 more.")
    assert first.usage.cached_tokens == 0
    [kept] = list((tmp_path / "prompts").glob("*.kv"))
    second = ask("Bob has 7 pears and eats 4.")  # another process would start the same way: a new backend
    assert second.usage.cached_tokens >= 64  # the system prompt came from disk
    kept.write_bytes(kept.read_bytes()[:100])  # cut short: unusable
    third = ask("Cy has 5 plums.")
    assert third.usage.cached_tokens == 0 and third.usage.output_tokens >= 1
