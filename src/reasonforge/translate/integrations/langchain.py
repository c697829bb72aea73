"""`ReasoningVerifier`: a LangChain callback handler that collects an agent's reasoning and verifies it on chain end.

Construct it with the verifier to call, `ReasoningVerifier("logic", verify_chain=verify_chain)` with
`from reasonforge import verify_chain` (the pipeline sits above translate/, so it is handed in, not imported
here), and attach it to any runnable, a chain or a bare chat model, invoked or streamed
(`chain.invoke(inputs, config={"callbacks": [verifier]})`). While the run goes it collects, per model call,
the reasoning of the output message (`thinking` content blocks as langchain-anthropic keeps them,
`reasoning_content` as DeepSeek integrations put in `additional_kwargs`, the reasoning items of OpenAI's
Responses API, as blocks or under `additional_kwargs["reasoning"]`, `<think>` sections) and then its text;
classic agents' `AgentAction.log` thoughts take precedence when present (they are the same text, cleaner).
Tool outputs are facts the reasoning builds on, so they are appended to the query as givens rather than made
into steps. When the outermost run ends, the steps go through the given `verify_chain` and the verdict is
stored on `verdict` (and passed to `on_verdict`). A run that errors, or yields no reasoning, stores the reason
on `problem` instead; the handler never raises into the user's chain.

A streamed run starts before its input is known (LangChain starts it with an empty input and gives the whole
input when it ends), so the question is read again when the outermost run ends.

Requires the optional extra: `pip install 'reasonforge[langchain]'` (langchain-core).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol
from uuid import UUID

from reasonforge.errors import ReasonForgeError

try:
    from langchain_core.callbacks import BaseCallbackHandler
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("ReasoningVerifier needs langchain-core: pip install 'reasonforge[langchain]'") from exc

from reasonforge.chain import split_reasoning
from reasonforge.chain.providers import split_think
from reasonforge.translate.protocol import Translator
from reasonforge.types import CheckLimits, Domain, ProofLevel, ReasoningStep, VerificationVerdict, VerifyRequest

__all__ = ["ChainVerifier", "ReasoningVerifier", "message_reasoning", "message_text"]

log = logging.getLogger(__name__)
_QUERY_KEYS = ("input", "question", "query", "prompt", "messages")


class ChainVerifier(Protocol):
    """What `ReasoningVerifier` calls on the collected chain: `reasonforge.verify_chain` or a stand-in."""

    def __call__(self, request: VerifyRequest, *, translator: Translator | None = None,
                 limits: CheckLimits | None = None) -> VerificationVerdict:
        """The verdict on `request`."""
        ...


def _responses_reasoning(item: Mapping[str, Any]) -> str:
    """The text of an OpenAI Responses reasoning item (its `content` reasoning text, then its `summary`): the
    parts are paragraphs of one reasoning, blank-line joined, so they split into steps as the same paragraphs
    from DeepSeek's `reasoning_content` or an Anthropic thinking block do."""
    texts = [entry["text"] for key in ("content", "summary") if isinstance(item.get(key), list)
             for entry in item[key] if isinstance(entry, Mapping) and isinstance(entry.get("text"), str)]
    return "\n\n".join(text.strip() for text in texts if text.strip())


def _message_parts(message: Any) -> tuple[list[str], list[str]]:
    """(reasoning texts, answer texts) of one LangChain message, in the order it holds them."""
    content = getattr(message, "content", message)
    extra = getattr(message, "additional_kwargs", {}) or {}
    thoughts: list[str] = []
    texts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, Mapping):
                kind = block.get("type")
                if kind == "thinking" and isinstance(block.get("thinking"), str):
                    thoughts.append(block["thinking"])
                elif kind == "reasoning" and isinstance(block.get("reasoning"), str):
                    thoughts.append(block["reasoning"])  # langchain-core standard reasoning block
                elif kind == "reasoning":  # langchain-openai's Responses reasoning item, kept as a block
                    thoughts.append(_responses_reasoning(block))
                elif kind in ("text", "output_text") and isinstance(block.get("text"), str):
                    texts.append(block["text"])
            elif isinstance(block, str):
                texts.append(block)
    elif isinstance(content, str):
        inner, outside = split_think(content)
        thoughts.extend(inner)
        texts.append(outside)
    if isinstance(extra, Mapping):
        summary = extra.get("reasoning")  # langchain-openai's Responses reasoning item, kept aside
        if isinstance(summary, Mapping):
            thoughts.insert(0, _responses_reasoning(summary))
        reasoning = extra.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning.strip():
            thoughts.insert(0, reasoning)
    return [t for t in thoughts if t.strip()], [t for t in texts if t.strip()]


def message_reasoning(message: Any) -> list[str]:
    """The steps of one LangChain message: its reasoning (`reasoning_content`, thinking blocks, Responses reasoning
    summaries, `<think>`) and then its text — the whole output, as `chain.parse_reasoning_chain` reads a
    provider's response."""
    thoughts, texts = _message_parts(message)
    return [unit for text in (*thoughts, *texts) for unit in split_reasoning(text)]


def message_text(message: Any) -> str:
    """The answer a LangChain message shows: its text (a string, or its text blocks), without its reasoning."""
    return "\n\n".join(_message_parts(message)[1]).strip()


class ReasoningVerifier(BaseCallbackHandler):
    """Collects a run's reasoning steps and verifies them when the outermost run ends."""

    raise_error = False  # a verification problem must never break the user's chain

    def __init__(self, domain: Domain | str, *, verify_chain: ChainVerifier,
                 proof_level: ProofLevel | str = ProofLevel.STANDARD,
                 original_query: str | None = None, translator: Translator | None = None,
                 limits: CheckLimits | None = None,
                 on_verdict: Callable[[VerificationVerdict], None] | None = None) -> None:
        super().__init__()
        self.domain = Domain(domain)
        self.verify_chain = verify_chain
        self.proof_level = ProofLevel(proof_level)
        self.original_query = original_query
        self.translator = translator
        self.limits = limits
        self.on_verdict = on_verdict
        self.verdict: VerificationVerdict | None = None
        self.request: VerifyRequest | None = None
        self.problem: str | None = None
        self._root: UUID | None = None
        self._query: str = ""
        self._llm_steps: list[str] = []
        self._agent_steps: list[str] = []
        self._observations: list[str] = []
        self._answer: str = ""

    # ---- collecting -----------------------------------------------------------------------------
    def on_chain_start(self, serialized: dict[str, Any] | None, inputs: Any, *, run_id: UUID,
                       parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """Remember the outermost run and its question."""
        if self._root is None and parent_run_id is None:
            self._start(run_id, _query_of(inputs))

    def _start(self, run_id: UUID, query: str) -> None:
        self._root = run_id
        self._reset()
        self._query = self.original_query if self.original_query is not None else query

    def on_chat_model_start(self, serialized: dict[str, Any] | None, messages: list[list[Any]], *, run_id: UUID,
                            parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """A chat model called on its own (no chain around it) is the outermost run: its last message is the
        question."""
        if self._root is None and parent_run_id is None:
            self._start(run_id, _query_of({"messages": messages[-1] if messages else []}))

    def on_llm_start(self, serialized: dict[str, Any] | None, prompts: list[str], *, run_id: UUID,
                     parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """A text model called on its own is the outermost run: its prompt is the question."""
        if self._root is None and parent_run_id is None:
            self._start(run_id, prompts[-1] if prompts else "")

    def on_llm_end(self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """Keep the reasoning of every generation (chat models: the message; text models: the text); a model that
        is the outermost run is verified now."""
        answers: list[str] = []
        for generations in getattr(response, "generations", []) or []:
            for generation in generations:
                message = getattr(generation, "message", None)
                self._llm_steps.extend(message_reasoning(message) if message is not None
                                       else split_reasoning(str(getattr(generation, "text", ""))))
                answers.append(message_text(message) if message is not None else str(getattr(generation, "text", "")))
        if run_id == self._root:
            self._finish("\n\n".join(a for a in answers if a.strip()), None)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None,
                     **kwargs: Any) -> None:
        """A failed model call that is the outermost run is not verified."""
        self.on_chain_error(error, run_id=run_id, parent_run_id=parent_run_id)

    def on_agent_action(self, action: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """A classic agent's thought before a tool call."""
        self._agent_steps.extend(split_reasoning(str(getattr(action, "log", "") or "")))

    def on_agent_finish(self, finish: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """A classic agent's final thought and answer."""
        self._agent_steps.extend(split_reasoning(str(getattr(finish, "log", "") or "")))
        values = getattr(finish, "return_values", {}) or {}
        self._answer = str(values.get("output", "")) if isinstance(values, Mapping) else ""

    def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """A tool's result: a given for the steps that follow."""
        text = str(getattr(output, "content", output)).strip()
        if text:
            self._observations.append(text)

    # ---- verifying ------------------------------------------------------------------------------
    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """At the end of the outermost run: verify what was collected (a streamed run's input arrives only now, as
        `inputs`)."""
        if run_id == self._root:
            self._finish(_answer_of(outputs), kwargs.get("inputs"))

    def _finish(self, answer: str, inputs: Any) -> None:
        self._root = None
        if not self._query and self.original_query is None and inputs is not None:
            self._query = _query_of(inputs)
        if not self._answer:
            self._answer = answer
        steps = self._agent_steps or self._llm_steps
        if not steps:
            self.problem = "the run produced no reasoning to verify (no model output and no agent thoughts)"
            return
        try:
            self.verdict = self.verify(steps)
        except ReasonForgeError as exc:
            self.problem = exc.message
            return
        except Exception as exc:
            log.exception("reasoning verification crashed")
            self.problem = f"verification crashed: {type(exc).__name__}: {exc}"
            return
        if self.on_verdict is not None:
            self.on_verdict(self.verdict)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:
        """A failed run is not verified."""
        if run_id == self._root:
            self._root = None
            self.problem = f"the run failed before it finished: {type(error).__name__}: {error}"

    def verify(self, steps: Sequence[str]) -> VerificationVerdict:
        """Verify collected steps as one chain (each step depending on the previous one)."""
        query = self._query
        if self._observations:
            query = "\n".join([query, *self._observations]).strip()
        chain = [ReasoningStep(step_id=i, content=text) for i, text in enumerate(steps, start=1)]
        self.request = VerifyRequest(reasoning_chain=chain, domain=self.domain, proof_level=self.proof_level,
                                     original_query=query, claimed_answer=self._answer)
        return self.verify_chain(self.request, translator=self.translator, limits=self.limits)

    def _reset(self) -> None:
        self.verdict = self.request = self.problem = None
        self._llm_steps, self._agent_steps, self._observations, self._answer = [], [], [], ""


def _query_of(inputs: Any) -> str:
    """The question of a run's inputs: a string, or the first of input/question/query/prompt/messages."""
    if isinstance(inputs, str):
        return inputs
    if isinstance(inputs, Mapping):
        for key in _QUERY_KEYS:
            value = inputs.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list) and value:
                return message_text(value[-1]) if hasattr(value[-1], "content") else str(value[-1])
        strings = [v for v in inputs.values() if isinstance(v, str)]
        return strings[0] if strings else ""
    return message_text(inputs) if hasattr(inputs, "content") else ""


def _answer_of(outputs: Any) -> str:
    if isinstance(outputs, str):
        return outputs
    if isinstance(outputs, Mapping):
        for key in ("output", "answer", "text", "result"):
            value = outputs.get(key)
            if isinstance(value, str):
                return value
            if hasattr(value, "content"):
                return message_text(value)
        return ""
    return message_text(outputs) if hasattr(outputs, "content") else ""
