"""`ReasoningVerifier`: a LangChain callback handler that collects an agent's reasoning and verifies it on chain end.

Construct it with the verifier to call, `ReasoningVerifier("logic", verify_chain=verify_chain)` with
`from reasonforge import verify_chain` (the pipeline sits above translate/, so it is handed in, not imported
here), and attach it to any runnable (`chain.invoke(inputs, config={"callbacks": [verifier]})`). While the
run goes it collects, per model call, the reasoning of the output message (`thinking` content blocks as
langchain-anthropic keeps them, `reasoning_content` as DeepSeek integrations put in `additional_kwargs`,
`<think>` sections) or else its text; classic agents' `AgentAction.log` thoughts take precedence when
present (they are the same text, cleaner). Tool outputs are facts the reasoning builds on, so they are
appended to the query as givens rather than made into steps. When the outermost run ends, the steps go
through the given `verify_chain` and the verdict is stored on `verdict` (and passed to `on_verdict`). A
run that errors, or yields no reasoning, stores the reason on `problem` instead; the handler never raises
into the user's chain.

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

__all__ = ["ChainVerifier", "ReasoningVerifier", "message_reasoning"]

log = logging.getLogger(__name__)
_QUERY_KEYS = ("input", "question", "query", "prompt", "messages")


class ChainVerifier(Protocol):
    """What `ReasoningVerifier` calls on the collected chain: `reasonforge.verify_chain` or a stand-in."""

    def __call__(self, request: VerifyRequest, *, translator: Translator | None = None,
                 limits: CheckLimits | None = None) -> VerificationVerdict:
        """The verdict on `request`."""
        ...


def message_reasoning(message: Any) -> list[str]:
    """The steps of one LangChain message: its reasoning (`reasoning_content`, thinking blocks, `<think>`) and then
    its text — the whole output, as `chain.parse_reasoning_chain` reads a provider's response."""
    content = getattr(message, "content", message)
    extra = getattr(message, "additional_kwargs", {}) or {}
    thoughts: list[str] = []
    texts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, Mapping):
                if block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
                    thoughts.append(block["thinking"])
                elif block.get("type") == "reasoning" and isinstance(block.get("reasoning"), str):
                    thoughts.append(block["reasoning"])  # langchain-core standard reasoning block
                elif block.get("type") == "text" and isinstance(block.get("text"), str):
                    texts.append(block["text"])
            elif isinstance(block, str):
                texts.append(block)
    elif isinstance(content, str):
        inner, outside = split_think(content)
        thoughts.extend(inner)
        texts.append(outside)
    reasoning = extra.get("reasoning_content") if isinstance(extra, Mapping) else None
    if isinstance(reasoning, str) and reasoning.strip():
        thoughts.insert(0, reasoning)
    return [unit for text in (*thoughts, *texts) for unit in split_reasoning(text)]


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
            self._root = run_id
            self._reset()
            self._query = self.original_query if self.original_query is not None else _query_of(inputs)

    def on_llm_end(self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """Keep the reasoning of every generation (chat models: the message; text models: the text)."""
        for generations in getattr(response, "generations", []) or []:
            for generation in generations:
                message = getattr(generation, "message", None)
                self._llm_steps.extend(message_reasoning(message) if message is not None
                                       else split_reasoning(str(getattr(generation, "text", ""))))

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
        """At the end of the outermost run: verify what was collected."""
        if run_id != self._root:
            return
        self._root = None
        if not self._answer:
            self._answer = _answer_of(outputs)
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
                return str(getattr(value[-1], "content", value[-1]))
        strings = [v for v in inputs.values() if isinstance(v, str)]
        return strings[0] if strings else ""
    return str(getattr(inputs, "content", "") or "")


def _answer_of(outputs: Any) -> str:
    if isinstance(outputs, str):
        return outputs
    if isinstance(outputs, Mapping):
        for key in ("output", "answer", "text", "result"):
            if isinstance(outputs.get(key), str):
                return outputs[key]
    content = getattr(outputs, "content", None)
    return content if isinstance(content, str) else ""
