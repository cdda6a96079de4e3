"""Where updates arrive, each kept in the inbox before Telegram is told it arrived: the
getUpdates connection (polling), and the queue the webhook puts updates on."""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from typing import Any

from telegram import Update
from telegram.request import HTTPXRequest

from assistant.channels.telegram.received import from_answer, from_update
from assistant.errors import StorageError
from assistant.memory.inbox import Inbox

log = logging.getLogger(__name__)


class PollRequest(HTTPXRequest):
    """The getUpdates connection, noting when Telegram last answered it (for /healthz), and
    keeping the updates it brings in the inbox before they are acknowledged (the next
    getUpdates does that). A database that cannot be written (a full disk) keeps nothing: the
    updates are answered unkept (the person hears why), rather than not at all."""

    def __init__(self, tls: ssl.SSLContext) -> None:
        super().__init__(connection_pool_size=1, httpx_kwargs={"verify": tls})
        self.answered_at: float | None = None
        self.inbox: Inbox | None = None

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        """Make the request; an answer of any status shows the Bot API is reachable."""
        answer = await super().do_request(*args, **kwargs)
        self.answered_at = time.monotonic()
        if self.inbox is not None and answer[0] == 200:
            try:
                await self.inbox.keep(from_answer(answer[1]))
            except StorageError as exc:
                log.warning("updates answered without being kept: %s", exc)
        return answer


class KeptQueue(asyncio.Queue[object]):
    """The webhook's queue of updates: each kept in the inbox before it is queued, so before
    the webhook's answer tells Telegram it arrived."""

    inbox: Inbox | None = None

    async def put(self, item: object) -> None:
        """Keep, then queue."""
        if self.inbox is not None and isinstance(item, Update):
            await self.inbox.keep([from_update(item)])
        await super().put(item)
