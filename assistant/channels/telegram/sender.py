"""The seam between the bot and what answers through it: a small sender interface.

Handlers and drafts send through this, never through the channel's python-telegram-bot
``Application``; ``TelegramChannel`` implements it. So they import no bot module, and a test
can hand them any object with these few members.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from telegram import Bot

from assistant.agent.front.buttons import Button
from assistant.config import SpeechSettings


class Sender(Protocol):
    """What handlers and drafts need of the channel."""

    speech: SpeechSettings  # the limits of voice notes
    edit_interval: float  # seconds between edits of a growing answer

    @property
    def api(self) -> Bot:
        """The Bot API client, for pieces, edits and files."""
        ...

    async def send(
        self, chat_id: int, markdown: str, buttons: Sequence[Sequence[Button]] = ()
    ) -> int:
        """Send Markdown in pieces Telegram accepts; the id of the last message."""
        ...

    async def typing(self, chat_id: int) -> None:
        """Show "typing…" until cancelled."""
        ...
