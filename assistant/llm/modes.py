"""Native, grammar or text tool calls per model.

``auto`` learns the mode once per model by probing the endpoint (native if it returns a real
tool call, else grammar if it keeps to a JSON schema, else text) and remembers it, in the
database when one is given. A native model that later refuses tools, or writes its calls as
text, falls back to text for good; the completion that made the switch carries a notice for
the user, once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Literal, Protocol

from assistant.db import Database
from assistant.errors import LLMError, ToolsUnsupportedError
from assistant.llm.grammar import grammar_request, read_grammar_reply
from assistant.llm.markup import without_reasoning
from assistant.llm.model import Model
from assistant.llm.probe import probe_mode
from assistant.llm.textcalls import extract_tool_calls
from assistant.llm.textmode import HeldBack, read_reply, text_request
from assistant.llm.types import Completion, Request, StreamEvent, TextDelta, ToolMode

log = logging.getLogger(__name__)

Configured = Literal["native", "text", "grammar", "auto"]
NOTICE = (
    "ℹ️ This model ({model}) does not take native tool calls ({reason}), so I switched to "
    'writing tool calls as text for it. Everything keeps working; set llm.tool_mode = "text" '
    "to skip the first try."
)


class ModeMemory(Protocol):
    """Where the mode a model fell back to is kept."""

    async def recall(self, model: str) -> ToolMode | None:
        """The remembered mode of this model, if any."""
        ...

    async def remember(self, model: str, mode: ToolMode, reason: str) -> None:
        """Keep the mode this model works in."""
        ...


class MemoryModes:
    """Modes kept for the life of the process."""

    def __init__(self) -> None:
        self._modes: dict[str, ToolMode] = {}

    async def recall(self, model: str) -> ToolMode | None:
        """The remembered mode of this model, if any."""
        return self._modes.get(model)

    async def remember(self, model: str, mode: ToolMode, reason: str) -> None:
        """Keep the mode this model works in."""
        self._modes[model] = mode


class StoredModes:
    """What was learned of each model (its tool mode in ``llm_modes``, blindness in
    ``llm_blind``), so a restart does not try again what failed."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def recall(self, model: str) -> ToolMode | None:
        """The remembered mode of this model, if any."""
        async with self._db.read() as session:
            row = await session.fetchone("SELECT mode FROM llm_modes WHERE model = ?", (model,))
        if row is None:
            return None
        mode = str(row[0])
        return mode if mode in ("text", "grammar") else "native"  # type: ignore[return-value]

    async def remember(self, model: str, mode: ToolMode, reason: str) -> None:
        """Keep the mode this model works in."""
        async with self._db.write() as session:
            await session.execute(
                "INSERT INTO llm_modes (model, mode, reason, since) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (model) DO UPDATE SET mode = excluded.mode, reason = excluded.reason, "
                "since = excluded.since",
                (model, mode, reason, datetime.now(UTC).isoformat()),
            )

    async def blind(self, model: str) -> bool:
        """Whether this model was found not to see pictures."""
        async with self._db.read() as session:
            row = await session.fetchone("SELECT 1 FROM llm_blind WHERE model = ?", (model,))
        return row is not None

    async def remember_blind(self, model: str, reason: str) -> None:
        """Keep that this model does not see pictures."""
        async with self._db.write() as session:
            await session.execute(
                "INSERT OR REPLACE INTO llm_blind (model, reason, since) VALUES (?, ?, ?)",
                (model, reason, datetime.now(UTC).isoformat()),
            )


class ToolModeModel:
    """A model that offers tools natively, in text, or natively with a fallback to text."""

    def __init__(
        self,
        inner: Model,
        configured: Configured = "auto",
        memory: ModeMemory | None = None,
        *,
        reply_tokens: int | None = None,
    ) -> None:
        self._inner = inner
        self._configured = configured
        self._memory = memory or MemoryModes()
        self._reply_tokens = reply_tokens  # what a grammar reply must fit in
        self._learning = asyncio.Lock()

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self._inner.name

    @property
    def adapter(self) -> Model:
        """The wrapped provider adapter."""
        return self._inner

    async def close(self) -> None:
        """Close the wrapped model."""
        await self._inner.close()

    async def mode(self) -> ToolMode:
        """The mode the next request goes out in; in auto mode, learned once per model."""
        if self._configured != "auto":
            return self._configured
        async with self._learning:  # concurrent first turns probe once
            remembered = await self._memory.recall(self.name)
            return remembered or await self._learn()

    async def _learn(self) -> ToolMode:
        """Ask the endpoint what it does: native calls, a JSON schema, or neither."""
        try:
            mode, why = await probe_mode(self._inner)
        except LLMError as exc:  # down or refusing: try native now, learn on a later turn
            log.warning("model %s: the tool-mode probe failed (%s)", self.name, exc)
            return "native"
        log.info("model %s: tool calls in %s mode (%s)", self.name, mode, why)
        await self._memory.remember(self.name, mode, why)
        return mode

    async def complete(self, request: Request) -> Completion:
        """Answer, with tools offered in the model's mode."""
        if not request.tools:
            return await self._inner.complete(request)
        mode = await self.mode()
        if mode == "text":
            return read_reply(await self._inner.complete(text_request(request)))
        if mode == "grammar":
            constrained = grammar_request(request, self._reply_tokens)
            return read_grammar_reply(await self._inner.complete(constrained))
        try:
            completion = await self._inner.complete(request)
        except ToolsUnsupportedError:
            notice = await self._fall_back("the endpoint refuses them")
            completion = read_reply(await self._inner.complete(text_request(request)))
            return replace(completion, notice=notice)
        return await self._written_calls(completion, request)

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Stream the answer; in text mode only the prose before a call is streamed."""
        mode = await self.mode() if request.tools else "native"
        if mode == "text":
            async for event in self._text_stream(request, ""):
                yield event
            return
        if mode == "grammar":  # one JSON object: nothing worth showing until it is whole
            yield await self.complete(request)
            return
        held = HeldBack()  # a call written as text in native mode is never shown either
        try:
            async for event in self._inner.stream(request):
                if isinstance(event, Completion):
                    yield await self._written_calls(event, request)
                elif not request.tools:
                    yield event
                elif visible := held.feed(event.text):
                    yield TextDelta(visible)
        except ToolsUnsupportedError:
            notice = await self._fall_back("the endpoint refuses them")
            async for event in self._text_stream(request, notice):
                yield event

    async def _text_stream(self, request: Request, notice: str) -> AsyncIterator[StreamEvent]:
        held = HeldBack()
        async for event in self._inner.stream(text_request(request)):
            if isinstance(event, Completion):
                yield replace(read_reply(event), notice=notice)
                return
            if visible := held.feed(event.text):
                yield TextDelta(visible)

    async def _written_calls(self, completion: Completion, request: Request) -> Completion:
        """A native-mode reply that wrote its calls as text: read them (and in auto mode,
        switch to text mode for good). Reasoning written into the text is never shown."""
        completion = replace(completion, text=without_reasoning(completion.text))
        if completion.calls or not completion.text or not request.tools:
            return completion
        found = extract_tool_calls(completion.text)
        known = {spec.name for spec in request.tools}
        if not any(call.name in known for call in found.calls):
            return completion
        if self._configured != "auto":  # run them as calls all the same; never show them raw
            return read_reply(completion)
        notice = await self._fall_back("it wrote them as text")
        return replace(read_reply(completion), notice=notice)

    async def _fall_back(self, reason: str) -> str:
        if self._configured == "native":
            raise LLMError(
                f"The model {self.name} does not take native tool calls ({reason}). "
                'Set llm.tool_mode = "auto" or "text" in the config.'
            )
        log.warning("model %s: native tool calls fail (%s); using text mode", self.name, reason)
        await self._memory.remember(self.name, "text", reason)
        return NOTICE.format(model=self.name.split("@")[0], reason=reason)
