"""Per-chat queues: one chat's messages handled in order, one at a time, in a bounded queue;
different chats never wait for each other, and a full queue says so instead of dropping.

Channels hand plain messages here and return at once, so their own update slots are never held
by a long turn: button presses and slash commands stay answerable while a turn runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta

from assistant.clock import Clock

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]
QUEUE_LIMIT = 1000  # a chat's waiting messages: a forwarded batch (up to 100) fits many times


class ChatQueues:
    """A worker per busy chat, all in one task group; bounded per chat."""

    def __init__(self, group: asyncio.TaskGroup, limit: int = QUEUE_LIMIT) -> None:
        self._group = group
        self._limit = limit
        self._waiting: dict[int, deque[Job]] = {}
        self._workers: set[asyncio.Task[None]] = set()
        self._closing = False
        self._refused: set[int] = set()  # chats told "busy" since their queue last drained

    @classmethod
    @asynccontextmanager
    async def running(
        cls, clock: Clock, grace: timedelta, limit: int = QUEUE_LIMIT
    ) -> AsyncIterator[ChatQueues]:
        """Queues whose turns get ``grace`` to finish on the way out, then are cancelled."""
        async with asyncio.TaskGroup() as group:
            queues = cls(group, limit)
            try:
                yield queues
            finally:
                await queues._close(clock, grace)

    def submit(self, chat_id: int, job: Job) -> bool:
        """Queue a job behind the chat's earlier ones; False when the chat's queue is full."""
        if self._closing:
            return False
        waiting = self._waiting.get(chat_id)
        if waiting is None:
            self._waiting[chat_id] = deque([job])
            worker = self._group.create_task(self._work(chat_id))
            self._workers.add(worker)
            worker.add_done_callback(self._workers.discard)
            return True
        if len(waiting) > self._limit:  # the first one is running; ``limit`` may wait behind it
            return False
        waiting.append(job)
        return True

    def first_refusal(self, chat_id: int) -> bool:
        """Whether a refused message is the first since the chat's queue last drained: say
        "busy" once a batch, not once a message."""
        first = chat_id not in self._refused
        self._refused.add(chat_id)
        return first

    async def _work(self, chat_id: int) -> None:
        waiting = self._waiting[chat_id]
        try:
            while waiting:
                try:
                    await waiting[0]()
                except Exception:
                    log.exception("a message in chat %d failed", chat_id)
                waiting.popleft()
        finally:
            del self._waiting[chat_id]
            self._refused.discard(chat_id)

    async def _close(self, clock: Clock, grace: timedelta) -> None:
        self._closing = True
        dropped = sum(max(len(w) - 1, 0) for w in self._waiting.values())
        if dropped:
            log.warning("shutting down: %d queued messages left for the next start", dropped)
        for waiting in self._waiting.values():
            while len(waiting) > 1:
                waiting.pop()
        if not self._workers:
            return
        deadline = asyncio.ensure_future(clock.sleep_until(clock.now() + grace))
        try:
            while self._workers and not deadline.done():
                await asyncio.wait({deadline, *self._workers}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            deadline.cancel()
        for worker in list(self._workers):
            worker.cancel()
