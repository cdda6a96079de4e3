"""Turns per chat: one chat's messages answered in order, chats never waiting on each other,
``/stop`` ending the running turn, and a wall-clock budget on each."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence

from assistant.agent.dialog.agent import Agent
from assistant.agent.dialog.events import Answer, EventSink
from assistant.agent.person import Person
from assistant.llm.types import Attachment

log = logging.getLogger(__name__)


class Turns:
    """Runs the agent's turns, serialized per chat, stoppable, and bounded in time."""

    def __init__(self, agent: Agent, *, turn_timeout: float = 300.0) -> None:
        self._agent = agent
        self._timeout = turn_timeout
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: Counter[int] = Counter()
        self._running: dict[int, asyncio.Task[Answer]] = {}

    def busy(self, chat_id: int) -> bool:
        """Tell whether a turn is running in this chat."""
        return chat_id in self._running

    def stop(self, chat_id: int) -> bool:
        """End the chat's running turn, between steps or inside a model or tool call."""
        running = self._running.get(chat_id)
        if running is None or running.done():
            return False
        running.cancel()
        return True

    async def reply(
        self,
        person: Person,
        text: str,
        sink: EventSink | None = None,
        *,
        attachments: Sequence[Attachment] = (),
    ) -> Answer:
        """Answer after the chat's earlier messages; a stopped or overlong turn says so."""
        chat = person.chat_id
        self._users[chat] += 1
        lock = self._locks.setdefault(chat, asyncio.Lock())
        try:
            async with lock:
                return await self._run(person, text, sink, attachments)
        finally:
            self._users[chat] -= 1
            if not self._users[chat]:
                del self._users[chat], self._locks[chat]

    async def _run(
        self, person: Person, text: str, sink: EventSink | None, attachments: Sequence[Attachment]
    ) -> Answer:
        turn = asyncio.ensure_future(self._bounded(person, text, sink, attachments))
        self._running[person.chat_id] = turn
        try:
            return await turn
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # we are being cancelled ourselves (shutdown), not stopped by the user
            return Answer("Stopped. Anything done before the stop stays done.", ending="stopped")
        finally:
            del self._running[person.chat_id]

    async def _bounded(
        self, person: Person, text: str, sink: EventSink | None, attachments: Sequence[Attachment]
    ) -> Answer:
        try:
            async with asyncio.timeout(self._timeout):
                return await self._agent.reply(person, text, sink, attachments=attachments)
        except TimeoutError:
            log.warning("turn in chat %d ran out of time", person.chat_id)
            return Answer(
                f"That took longer than {self._timeout:g} s, so I stopped. "
                "Anything done before the stop stays done.",
                ending="timeout",
            )
