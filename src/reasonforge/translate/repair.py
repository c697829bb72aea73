"""The compile-feedback repair loop: ask, parse, check; on a fixable rejection send the checker's message back.

Every attempt is recorded (what the model sent, why it was unusable or what the checker said, tokens,
time). The loop stops at the first artifact that compiles, at a rejection no correction may fix (a
refuted step stays refuted), at a model error (the backend already retried the HTTP call), or after
`max_attempts`. Its result keeps the latest artifact even when none compiled: a translation that never
compiles is reported as such, never dropped and never replaced by one the model did not write.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from reasonforge.translate.checking import CompileResult
from reasonforge.translate.llm import ChatMessage, ChatReply, ModelError, TokenUsage
from reasonforge.translate.parsers import ArtifactReply, ReplyError
from reasonforge.translate.prompts import repair_prompt
from reasonforge.types import ArtifactLanguage

__all__ = ["Attempt", "Checked", "RepairResult", "run_repair_loop"]

DEFAULT_MAX_ATTEMPTS = 3
_NOTE_CHARS = 300  # per-attempt message length kept in notes


@dataclass(frozen=True)
class Checked:
    """An artifact as the checker saw it (after any rewriting, e.g. FOL grounded to propositional)."""

    artifact: str
    language: ArtifactLanguage
    result: CompileResult
    notes: tuple[str, ...] = ()


@dataclass
class Attempt:
    """One round trip: the reply, what it yielded, and the checker's answer."""

    number: int
    reply: ArtifactReply | None = None
    checked: Checked | None = None
    problem: str | None = None  # why the reply gave no artifact, or why the model call failed
    problem_kind: str | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    model_ms: float = 0.0
    check_ms: float = 0.0

    def summary(self) -> str:
        """One line for the translation's notes."""
        if self.checked is not None:
            result = self.checked.result
            if result.compiled:
                state = "verified locally" if result.verified else f"compiled ({result.status.value})"
                if result.repairable:
                    state += f", rejected: {_short(result.feedback())}"
                return f"attempt {self.number}: {state}"
            if result.compiled is None:
                return f"attempt {self.number}: checker could not decide: {_short(result.feedback())}"
            return f"attempt {self.number}: did not compile: {_short(result.feedback())}"
        return f"attempt {self.number}: {self.problem_kind or 'error'}: {_short(self.problem or '')}"


@dataclass
class RepairResult:
    """All attempts; `final` is the latest attempt that produced an artifact (None if none did)."""

    attempts: list[Attempt]

    @property
    def final(self) -> Attempt | None:
        """The latest attempt with a checked artifact."""
        return next((a for a in reversed(self.attempts) if a.checked is not None), None)

    @property
    def usage(self) -> TokenUsage:
        """Tokens over all attempts."""
        total = TokenUsage()
        for attempt in self.attempts:
            total = total + attempt.usage
        return total

    @property
    def compiled(self) -> bool:
        """The final artifact compiled."""
        final = self.final
        return bool(final and final.checked and final.checked.result.compiled)

    @property
    def first_attempt_compiled(self) -> bool:
        """The first reply already compiled (the plan's ≥ 70 % target)."""
        first = self.attempts[0] if self.attempts else None
        return bool(first and first.checked and first.checked.result.compiled)

    @property
    def model_error(self) -> str | None:
        """The model error that ended the loop, if one did."""
        last = self.attempts[-1] if self.attempts else None
        return last.problem if last is not None and last.problem_kind == "model_error" else None


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _NOTE_CHARS else flat[: _NOTE_CHARS - 1] + "…"


def _echo(reply: ChatReply) -> str:
    """The assistant turn to replay in the conversation (text, else the tool input as JSON)."""
    if reply.text and reply.text.strip():
        return reply.text
    if reply.tool_arguments is not None:
        return json.dumps(reply.tool_arguments, ensure_ascii=False)
    return reply.refusal or "(empty reply)"


async def run_repair_loop(
    ask: Callable[[Sequence[ChatMessage], int], Awaitable[ChatReply]],
    messages: Sequence[ChatMessage],
    parse: Callable[[ChatReply], ArtifactReply],
    check: Callable[[ArtifactReply], Awaitable[Checked]],
    *,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> RepairResult:
    """Run up to `max_attempts` rounds of ask → parse → check, feeding each fixable problem back."""
    conversation = list(messages)
    attempts: list[Attempt] = []
    for number in range(1, max_attempts + 1):
        attempt = Attempt(number)
        attempts.append(attempt)
        started = time.perf_counter()
        try:
            reply = await ask(conversation, number)  # the attempt number: a retry samples differently
        except ModelError as exc:
            attempt.problem, attempt.problem_kind = exc.message, "model_error"
            attempt.model_ms = round((time.perf_counter() - started) * 1000, 1)
            break
        attempt.model_ms = round((time.perf_counter() - started) * 1000, 1)
        attempt.usage = reply.usage
        try:
            attempt.reply = parse(reply)
        except ReplyError as exc:
            attempt.problem, attempt.problem_kind = exc.message, exc.kind
            conversation += [ChatMessage(role="assistant", content=_echo(reply)),
                             ChatMessage(role="user", content=repair_prompt(exc.message, number, max_attempts,
                                                                            reply_problem=True))]
            continue
        check_started = time.perf_counter()
        attempt.checked = await check(attempt.reply)
        attempt.check_ms = round((time.perf_counter() - check_started) * 1000, 1)
        result = attempt.checked.result
        if not result.repairable:
            break
        conversation += [ChatMessage(role="assistant", content=_echo(reply)),
                         ChatMessage(role="user", content=repair_prompt(result.feedback(), number, max_attempts))]
    return RepairResult(attempts)
