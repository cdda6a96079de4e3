"""Native, grammar or text tool calls per model.

``auto`` asks the endpoint on first use and remembers what it learned, in the database when
one is given: an endpoint that refuses ``tools`` gets grammar (if it keeps to a JSON schema)
or text, checked again after ``RETRY``; one that accepts them is used natively until real
turns show otherwise (tools refused, calls written as text, or an action claimed with no
call), then falls back for good; the completion that made the switch carries a notice for the
user, once. ``assistant doctor``'s check replaces what was remembered.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol

from assistant.db import Database
from assistant.errors import LLMError, ToolsUnsupportedError
from assistant.llm.grammar import grammar_request, read_grammar_reply
from assistant.llm.markup import without_reasoning
from assistant.llm.model import Model
from assistant.llm.probe import Probe, probe_mode
from assistant.llm.textcalls import extract_tool_calls
from assistant.llm.textmode import HeldBack, read_reply, text_request
from assistant.llm.types import Completion, Request, StreamEvent, TextDelta, ToolMode

log = logging.getLogger(__name__)

Configured = Literal["native", "text", "grammar", "auto"]
NOTICE = (
    "ℹ️ This model ({model}) does not take native tool calls ({reason}), so I switched to "
    'writing tool calls as {mode} for it. Everything keeps working; set llm.tool_mode = "{mode}" '
    "to skip the first try."
)


Learned = Literal["probe", "turns", "doctor"]
RETRY = timedelta(hours=1)  # a mode other than native learned from the probe is checked again


@dataclass(frozen=True)
class Remembered:
    """A model's tool mode, how it was learned, and what to fall back to from native."""

    mode: ToolMode
    reason: str
    learned: Learned
    since: datetime
    fallback: ToolMode = "text"

    def stale(self, now: datetime) -> bool:
        """Whether to ask the endpoint again: a probe's verdict against native, once old."""
        return self.learned == "probe" and self.mode != "native" and now - self.since > RETRY


class ModeMemory(Protocol):
    """Where what was learned of each model's tool mode is kept."""

    async def recall(self, model: str) -> Remembered | None:
        """What is remembered of this model, if anything."""
        ...

    async def remember(self, model: str, remembered: Remembered) -> None:
        """Keep what was learned of this model."""
        ...


class MemoryModes:
    """Modes kept for the life of the process."""

    def __init__(self) -> None:
        self._modes: dict[str, Remembered] = {}

    async def recall(self, model: str) -> Remembered | None:
        """What is remembered of this model, if anything."""
        return self._modes.get(model)

    async def remember(self, model: str, remembered: Remembered) -> None:
        """Keep what was learned of this model."""
        self._modes[model] = remembered


class StoredModes:
    """What was learned of each model (its tool mode in ``llm_modes``, blindness in
    ``llm_blind``), so a restart does not try again what failed."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def recall(self, model: str) -> Remembered | None:
        """What is remembered of this model, if anything."""
        async with self._db.read() as session:
            row = await session.fetchone(
                "SELECT mode, reason, learned, since, fallback FROM llm_modes WHERE model = ?",
                (model,),
            )
        if row is None:
            return None
        mode, reason, learned, since, fallback = (str(value) for value in row)
        return Remembered(
            _mode(mode),
            reason,
            learned if learned in ("probe", "doctor") else "turns",  # type: ignore[arg-type]
            datetime.fromisoformat(since),
            _mode(fallback) if fallback in ("text", "grammar") else "text",
        )

    async def remember(self, model: str, remembered: Remembered) -> None:
        """Keep what was learned of this model."""
        r = remembered
        async with self._db.write() as session:
            await session.execute(
                "INSERT INTO llm_modes (model, mode, reason, since, learned, fallback) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (model) DO UPDATE SET "
                "mode = excluded.mode, reason = excluded.reason, since = excluded.since, "
                "learned = excluded.learned, fallback = excluded.fallback",
                (model, r.mode, r.reason, r.since.isoformat(), r.learned, r.fallback),
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


def _mode(stored: str) -> ToolMode:
    return stored if stored in ("text", "grammar") else "native"  # type: ignore[return-value]


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
        self._known: Remembered | None = None  # what the last mode() found

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
        """The mode the next request goes out in; in auto mode, learned per model."""
        if self._configured != "auto":
            return self._configured
        async with self._learning:  # concurrent first turns probe once
            known = await self._memory.recall(self.name)
            if known is None or known.stale(datetime.now(UTC)):
                known = await self._learn()
            self._known = known
            return "native" if known is None else known.mode

    async def _learn(self) -> Remembered | None:
        """Ask the endpoint what it does; nothing is kept when it cannot answer now."""
        try:
            probe = await probe_mode(self._inner)
        except LLMError as exc:  # down or refusing: try native now, learn on a later turn
            log.warning("model %s: the tool-mode probe failed (%s)", self.name, exc)
            return None
        log.info("model %s: tool calls in %s mode (%s)", self.name, probe.mode, probe.why)
        return await self._keep(probe.mode, probe.why, "probe", probe.fallback)

    async def reprobe(self) -> tuple[Probe, Remembered | None]:
        """Check the endpoint now and keep the finding (``assistant doctor``); with what was
        remembered before, so a change can be said."""
        probe = await probe_mode(self._inner)
        async with self._learning:
            before = await self._memory.recall(self.name)
            if self._configured == "auto":
                self._known = await self._keep(probe.mode, probe.why, "doctor", probe.fallback)
        return probe, before

    async def _keep(
        self, mode: ToolMode, reason: str, learned: Learned, fallback: ToolMode
    ) -> Remembered:
        known = Remembered(mode, reason, learned, datetime.now(UTC), fallback)
        await self._memory.remember(self.name, known)
        return known

    async def unfounded_claim(self) -> str | None:
        """A real turn claimed an action with no call: in auto mode, a native mode that no
        real turn has confirmed gives way to the fallback. The notice for the user, if so."""
        known = self._known
        if self._configured != "auto" or known is None or known.mode != "native":
            return None
        if known.learned == "turns":  # it has made real native calls: a slip, not a mode
            return None
        return await self._fall_back("it said it acted without calling a tool")

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
        if completion.calls and request.tools:
            await self._confirm_native()
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

    async def _confirm_native(self) -> None:
        """A real turn made native calls: native is now a fact, not the probe's guess."""
        known = self._known
        if self._configured == "auto" and known is not None and known.learned != "turns":
            reason = "it made native tool calls in a real turn"
            self._known = await self._keep("native", reason, "turns", known.fallback)

    async def _fall_back(self, reason: str) -> str:
        if self._configured == "native":
            raise LLMError(
                f"The model {self.name} does not take native tool calls ({reason}). "
                'Set llm.tool_mode = "auto" or "text" in the config.'
            )
        fallback = self._known.fallback if self._known is not None else "text"
        log.warning(
            "model %s: native tool calls fail (%s); using %s mode", self.name, reason, fallback
        )
        self._known = await self._keep(fallback, reason, "turns", fallback)
        return NOTICE.format(model=self.name.split("@")[0], reason=reason, mode=fallback)
