"""What a start does with the messages the last run left unanswered: the recent ones handled
in order, as if they had just come; the rest told about in one line a chat."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import timedelta
from zoneinfo import ZoneInfo

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application

from assistant.agent.channel import Assistant
from assistant.channels.telegram.received import spans
from assistant.channels.telegram.sender import Sender
from assistant.errors import StorageError
from assistant.locales import dates, ntr, spoken
from assistant.memory.inbox import Inbox, Received

log = logging.getLogger(__name__)


async def catch_up(
    application: Application,  # type: ignore[type-arg]
    sender: Sender,
    assistant: Assistant,
    inbox: Inbox,
    *,
    replay_for: timedelta,
    allowed: Callable[[int, int], bool],
) -> int:
    """Handle the recent unanswered messages through the gate and the handlers, in order;
    tell each chat the gate lets in about the rest. Returns how many were handled again."""
    backlog = await inbox.on_start(replay_for)
    for chat_id, missed in spans(backlog.missed).items():
        if allowed(chat_id, missed[0].user_id):
            await _tell(sender, assistant, chat_id, missed)
    for received in backlog.replay:
        await _again(application, inbox, received)
    if backlog.replay or backlog.missed:
        log.info(
            "after the restart: %d messages handled, %d told about",
            len(backlog.replay),
            len(backlog.missed),
        )
    return len(backlog.replay)


async def _again(
    application: Application,  # type: ignore[type-arg]
    inbox: Inbox,
    received: Received,
) -> None:
    """One kept update through the gate and the handlers; one that cannot be read or handled
    is done with (logged), never left to stop every start."""
    try:
        update = Update.de_json(json.loads(received.payload), application.bot)
        if update is not None:
            await application.process_update(update)
            return
    except Exception:
        log.exception("a kept update could not be handled again; it is dropped")
    await inbox.mark(received.update_id, "answered")


async def _tell(sender: Sender, assistant: Assistant, chat_id: int, missed: list[Received]) -> None:
    """One line for the chat: how many were not answered, and when they came."""
    try:
        person = await assistant.person(missed[0].user_id, chat_id)
        await sender.send(chat_id, told(missed, spoken(person.language, ""), person.timezone))
    except (TelegramError, StorageError) as exc:
        log.warning("could not tell chat %d about its unanswered messages: %s", chat_id, exc)


def told(missed: list[Received], language: str, zone: str) -> str:
    """ "I was restarted and did not answer 12 messages from 03:10–03:40; …"."""
    times = [r.received_at for r in missed if r.received_at is not None]
    local = [dates.clock(t.astimezone(ZoneInfo(zone)), language) for t in (min(times), max(times))]
    span = local[0] if local[0] == local[1] else f"{local[0]}–{local[1]}"
    return ntr(
        language,
        "I was restarted and did not answer your message from {span}; send it again if it"
        " still matters.",
        "I was restarted and did not answer {n} messages from {span}; send again what still"
        " matters.",
        len(missed),
        span=span,
    )
