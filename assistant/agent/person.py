"""Whom a turn is for."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Person:
    """Whom a turn is for: the user, their chat, their timezone and what to call them."""

    user_id: int
    chat_id: int
    timezone: str = "UTC"
    name: str = ""
