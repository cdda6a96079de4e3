"""The model's answer to one request, streamed to the person's draft as it grows."""

from __future__ import annotations

from assistant.agent.dialog.events import EventSink, TextSoFar, Thinking
from assistant.errors import LLMUnavailableError
from assistant.llm.model import Model
from assistant.llm.types import Completion, Request, TextDelta


async def answered(
    model: Model, request: Request, sink: EventSink | None, stream: bool, shown: bool
) -> Completion:
    """The model's answer, streamed to ``sink`` as it grows unless it is not to be ``shown``
    before it is checked (or there is no sink, or streaming is off)."""
    if sink is not None:
        await sink(Thinking())
    if sink is None or not stream:
        return await model.complete(request)
    text = ""
    async for event in model.stream(request):
        if isinstance(event, TextDelta):
            text += event.text
            if shown:
                await sink(TextSoFar(text))
        else:
            return event
    raise LLMUnavailableError("The model's stream ended without an answer.")
