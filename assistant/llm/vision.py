"""Pictures to a model that may not see: sent while it accepts them, refused plainly once it
did not (remembered per model, like its tool mode), never sent when ``llm.vision`` is off."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Literal

from assistant.errors import VisionUnsupportedError
from assistant.llm.failures import BLIND
from assistant.llm.model import Model
from assistant.llm.modes import StoredModes
from assistant.llm.types import Completion, Request, StreamEvent, UserMessage

log = logging.getLogger(__name__)

Vision = Literal["auto", "on", "off"]


class VisionModel:
    """A model whose requests with pictures are checked against what it is known to see."""

    def __init__(self, inner: Model, vision: Vision, modes: StoredModes) -> None:
        self._inner = inner
        self._vision = vision
        self._modes = modes

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self._inner.name

    @property
    def inner(self) -> Model:
        """The wrapped model."""
        return self._inner

    async def close(self) -> None:
        """Let go of the wrapped model's connections."""
        await self._inner.close()

    async def complete(self, request: Request) -> Completion:
        """Answer ``request``, or refuse its pictures when the model cannot see."""
        if not _pictures(request):
            return await self._inner.complete(request)
        await self._check()
        try:
            return await self._inner.complete(request)
        except VisionUnsupportedError:
            await self._learn()
            raise

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Stream the answer, or refuse its pictures when the model cannot see."""
        if _pictures(request):
            await self._check()
        try:
            async for event in self._inner.stream(request):
                yield event
        except VisionUnsupportedError:
            if _pictures(request):
                await self._learn()
            raise

    async def _check(self) -> None:
        if self._vision == "off":
            raise VisionUnsupportedError(f"{BLIND} (llm.vision is off)")
        if self._vision == "auto" and await self._modes.blind(self.name):
            raise VisionUnsupportedError(BLIND)

    async def _learn(self) -> None:
        if self._vision == "auto":
            log.warning("%s refused a picture; pictures are not sent to it again", self.name)
            await self._modes.remember_blind(self.name, "it refused a picture")


def _pictures(request: Request) -> bool:
    return any(isinstance(m, UserMessage) and m.images for m in request.messages)
