"""The LangChain callback that verifies an agent's reasoning, and the parser names re-exported here."""


import pytest

import reasonforge.chain
from reasonforge.pipeline.run import verify_chain
from reasonforge.translate import integrations

from llm_replay import recorded


def test_parser_names_are_re_exported_from_chain():
    for name in ("Reasoning", "ReasoningChainError", "parse_reasoning_chain", "read_reasoning", "split_reasoning"):
        assert getattr(integrations, name) is getattr(reasonforge.chain, name)


# ---- LangChain (the optional extra, tested with the real package) ---------------------------------------
langchain_core = pytest.importorskip("langchain_core")


def _chain(responses):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate

    return ChatPromptTemplate.from_messages([("user", "{question}")]) | FakeListChatModel(responses=responses) \
        | StrOutputParser()


def test_langchain_handler_verifies_the_chain_on_end():
    from reasonforge.translate.integrations import ReasoningVerifier

    seen = []
    verifier = ReasoningVerifier("logic", verify_chain=verify_chain, on_verdict=seen.append)
    answer = "1. Moby is a whale.\n2. All whales are mammals.\n3. Therefore, Moby is a mammal."
    _chain([answer]).invoke({"question": "All whales are mammals. Moby is a whale. Is Moby a mammal?"},
                            config={"callbacks": [verifier]})
    assert verifier.problem is None and seen == [verifier.verdict]
    assert [s.content for s in verifier.request.reasoning_chain] == [
        "Moby is a whale.", "All whales are mammals.", "Therefore, Moby is a mammal."]
    assert verifier.verdict.overall.value == "VERIFIED"


def test_langchain_handler_reports_a_wrong_step():
    from reasonforge.translate.integrations import ReasoningVerifier

    verifier = ReasoningVerifier("logic", verify_chain=verify_chain)
    _chain(["Moby is a mammal, so Moby is a whale."]).invoke(
        {"question": "All whales are mammals. Moby is a mammal."}, config={"callbacks": [verifier]})
    assert verifier.verdict.overall.value == "FAILED"


def test_langchain_messages_with_thinking_blocks_and_reasoning_content():
    from langchain_core.messages import AIMessage

    from reasonforge.chain import parse_reasoning_chain
    from reasonforge.translate.integrations.langchain import message_reasoning

    response = recorded("anthropic_thinking")
    anthropic = response["content"]  # the block list langchain-anthropic keeps on AIMessage
    # the whole output: the thinking and the visible text, split as the provider's response is
    assert message_reasoning(AIMessage(content=anthropic)) == [s.content for s in parse_reasoning_chain(response)]
    deepseek = recorded("deepseek_reasoner")["choices"][0]["message"]
    message = AIMessage(content=deepseek["content"], additional_kwargs={"reasoning_content": deepseek["reasoning_content"]})
    assert message_reasoning(message)[0].startswith("Okay, the user is asking")


def test_langchain_tool_outputs_become_givens_and_errors_are_kept_not_raised():
    from uuid import uuid4

    from reasonforge.translate.integrations import ReasoningVerifier

    verifier = ReasoningVerifier("logic", verify_chain=verify_chain)
    root = uuid4()
    verifier.on_chain_start({}, {"input": "Is Moby a mammal?"}, run_id=root)
    verifier.on_tool_end("All whales are mammals. Moby is a whale.", run_id=uuid4(), parent_run_id=root)
    from langchain_core.agents import AgentFinish

    verifier.on_agent_finish(AgentFinish({"output": "yes"}, "Moby is a whale, so Moby is a mammal."),
                             run_id=uuid4(), parent_run_id=root)
    verifier.on_chain_end({"output": "yes"}, run_id=root)
    assert verifier.request.original_query.endswith("All whales are mammals. Moby is a whale.")
    assert verifier.request.claimed_answer == "yes" and verifier.verdict.overall.value == "VERIFIED"

    failing = ReasoningVerifier("logic", verify_chain=verify_chain)
    other = uuid4()
    failing.on_chain_start({}, {"input": "q"}, run_id=other)
    failing.on_chain_error(RuntimeError("boom"), run_id=other)
    assert failing.verdict is None and "RuntimeError: boom" in failing.problem


def test_langchain_handler_calls_the_verifier_it_was_given():
    from uuid import uuid4

    from reasonforge.translate.integrations import ReasoningVerifier

    calls = []

    def stand_in(request, *, translator=None, limits=None):
        calls.append((request, translator, limits))
        return verify_chain(request, translator=translator, limits=limits)

    verifier = ReasoningVerifier("logic", verify_chain=stand_in, original_query="All whales are mammals.")
    root = uuid4()
    verifier.on_chain_start({}, {"input": "ignored"}, run_id=root)
    verifier.on_agent_finish(type("Finish", (), {"log": "Moby is a whale.", "return_values": {}})(),
                             run_id=uuid4(), parent_run_id=root)
    verifier.on_chain_end({"output": ""}, run_id=root)
    assert [(c[0], c[1], c[2]) for c in calls] == [(verifier.request, None, None)]
    assert verifier.request.original_query == "All whales are mammals." and verifier.verdict is not None


def test_langchain_handler_needs_a_verifier():
    from reasonforge.translate.integrations import ReasoningVerifier

    with pytest.raises(TypeError, match="verify_chain"):
        ReasoningVerifier("logic")


WHALE_QUESTION = "All whales are mammals. Moby is a whale. Is Moby a mammal?"
WHALE_ANSWER = "1. Moby is a whale.\n2. All whales are mammals.\n3. Therefore, Moby is a mammal."


def test_langchain_handler_under_stream_verifies_what_invoke_verifies():
    """A streamed run starts with an empty input: the question comes with the end of the run."""
    from reasonforge.translate.integrations import ReasoningVerifier

    invoked, streamed = (ReasoningVerifier("logic", verify_chain=verify_chain) for _ in range(2))
    _chain([WHALE_ANSWER]).invoke({"question": WHALE_QUESTION}, config={"callbacks": [invoked]})
    assert "".join(_chain([WHALE_ANSWER]).stream({"question": WHALE_QUESTION},
                                                 config={"callbacks": [streamed]})) == WHALE_ANSWER
    assert streamed.problem is None and streamed.request.original_query == WHALE_QUESTION
    assert streamed.request == invoked.request
    assert streamed.verdict.overall.value == invoked.verdict.overall.value == "VERIFIED"


def test_langchain_handler_on_a_bare_chat_model():
    """No chain around the model: the model's run is the outermost one, invoked or streamed."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from reasonforge.translate.integrations import ReasoningVerifier

    for call in ("invoke", "stream"):
        verifier = ReasoningVerifier("logic", verify_chain=verify_chain)
        result = getattr(FakeListChatModel(responses=[WHALE_ANSWER]), call)(WHALE_QUESTION,
                                                                          config={"callbacks": [verifier]})
        if call == "stream":
            list(result)
        assert verifier.problem is None, (call, verifier.problem)
        assert verifier.request.original_query == WHALE_QUESTION and verifier.request.claimed_answer == WHALE_ANSWER
        assert [s.content for s in verifier.request.reasoning_chain] == [
            "Moby is a whale.", "All whales are mammals.", "Therefore, Moby is a mammal."]
        assert verifier.verdict.overall.value == "VERIFIED", call


def test_langchain_claimed_answer_of_a_content_block_message():
    """A model that answers in content blocks (thinking, then text): the claimed answer is the text block."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.prompts import ChatPromptTemplate

    from reasonforge.translate.integrations import ReasoningVerifier

    message = AIMessage(content=[{"type": "thinking", "thinking": "Moby is a whale. All whales are mammals."},
                                 {"type": "text", "text": "Therefore, Moby is a mammal."}])
    verifier = ReasoningVerifier("logic", verify_chain=verify_chain)
    chain = ChatPromptTemplate.from_messages([("user", "{question}")]) | GenericFakeChatModel(messages=iter([message]))
    chain.invoke({"question": WHALE_QUESTION}, config={"callbacks": [verifier]})
    assert verifier.problem is None and verifier.request.claimed_answer == "Therefore, Moby is a mammal."


def test_responses_reasoning_summary_splits_like_deepseek_and_anthropic():
    """The summary of an OpenAI Responses reasoning item, as langchain-openai keeps it (a content block, or under
    additional_kwargs), splits into the steps the same paragraphs give from DeepSeek or Anthropic."""
    from langchain_core.messages import AIMessage

    from reasonforge.translate.integrations.langchain import message_reasoning

    item = next(o for o in recorded("openai_responses_reasoning")["output"] if o["type"] == "reasoning")
    paragraphs = [entry["text"] for entry in item["summary"]]
    answer = "Look left, right and left again, then cross at the crosswalk."
    deepseek = message_reasoning(AIMessage(content=answer,
                                           additional_kwargs={"reasoning_content": "\n\n".join(paragraphs)}))
    anthropic = message_reasoning(AIMessage(content=[{"type": "thinking", "thinking": "\n\n".join(paragraphs)},
                                                     {"type": "text", "text": answer}]))
    as_block = message_reasoning(AIMessage(content=[item, {"type": "text", "text": answer, "annotations": []}]))
    aside = message_reasoning(AIMessage(content=answer, additional_kwargs={"reasoning": item}))
    assert len(deepseek) > len(paragraphs) and as_block == aside == deepseek == anthropic
