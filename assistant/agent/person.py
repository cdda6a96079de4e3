"""Whom a turn is for."""

from __future__ import annotations

from dataclasses import dataclass


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
