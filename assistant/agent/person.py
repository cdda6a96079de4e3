"""Whom a turn is for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assistant.clock import Clock
from assistant.tools import ToolContext


@dataclass(frozen=True)
class Person:
    """Whom a turn is for: the user, their chat, their timezone, what to call them and the
    language to answer them in ("" until known: then each message's own)."""

    user_id: int
    chat_id: int
    timezone: str = "UTC"
    name: str = ""
    language: str = ""
    channel: str = ""  # where they speak from: "" the chat (Telegram), "terminal" a joined one

    def context(self, request_id: str, clock: Clock, services: Any) -> ToolContext:
        """The tool context of a call made for this person, where they speak from."""
        return ToolContext(
            self.user_id,
            self.chat_id,
            request_id,
            self.timezone,
            clock,
            services,
            channel=self.channel,
        )
