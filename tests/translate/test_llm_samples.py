"""`complete_samples` over a backend that answers one request at a time: one call per attempt, errors in place."""

import asyncio

from reasonforge.registry import Spec
from reasonforge.translate.llm import ChatMessage, ChatReply, ChatRequest, ModelError, complete_samples


class OneAtATime:
    spec = Spec(name="one-at-a-time", version="1")

    def __init__(self) -> None:
        self.seen: list[int] = []

    async def complete(self, request: ChatRequest) -> ChatReply:
        self.seen.append(request.attempt)
        if request.attempt == 2:
            raise ModelError("attempt 2 fails")
        return ChatReply(text=f"reply {request.attempt}")


def test_each_attempt_is_asked_on_its_own_and_a_failure_stands_in_its_place():
    backend = OneAtATime()
    request = ChatRequest(system="s", messages=[ChatMessage(role="user", content="u")])
    replies = asyncio.run(complete_samples(backend, request, [1, 2, 3]))
    assert backend.seen == [1, 2, 3]
    assert isinstance(replies[1], ModelError) and "attempt 2 fails" in replies[1].message
    assert [r.text for r in (replies[0], replies[2])] == ["reply 1", "reply 3"]
