"""The seam every provider adapter fills: a request in, a completion (or a stream of it) out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from assistant.llm.types import Completion, Request, StreamEvent


class Model(Protocol):
    """A language model behind one provider's API."""

    @property
    def name(self) -> str:
        """What the model is called in logs and notices: provider, model and endpoint."""
        ...

    async def complete(self, request: Request) -> Completion:
        """Answer ``request`` in one piece."""
        ...

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Answer ``request`` as text deltas followed by the final completion."""
        ...

    async def close(self) -> None:
        """Let go of connections."""
        ...


async def single(completion: Completion) -> AsyncIterator[StreamEvent]:
    """The stream of a model or mode that cannot stream: one final event."""
    yield completion
