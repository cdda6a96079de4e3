"""Small tools used across the tool-layer tests."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from assistant.tools import ToolContext, tool


class Window(BaseModel):
    """A time window."""

    start: str
    minutes: int = 30


@tool
async def add_reminder(delay: str, message: str) -> dict[str, str]:
    """Set a one-time reminder.

    Args:
        delay: Time delay like "5m", "2h", "1d".
        message: Reminder text,
            as the user said it.
    """
    return {"delay": delay, "message": message}


@tool(read_only=True, risk="low")
async def search_memory(
    context: ToolContext, query: str, limit: int = 5, scope: Literal["chat", "all"] = "chat"
) -> dict[str, object]:
    """Search past conversations and saved notes.

    :param query: words to look for
    :param limit: how many results at most
    :param scope: this chat or all chats
    """
    return {"user": context.user_id, "query": query, "limit": limit, "scope": scope}


@tool(risk="high", needs_approval=True, timeout=3.0)
async def plan(
    title: str,
    tags: list[str],
    *,
    window: Window | None = None,
    weight: float = 1.0,
    extra: dict[str, int] | None = None,
    urgent: bool = False,
) -> str:
    """Plan something with many kinds of arguments."""
    return f"{title}:{tags}:{window}:{weight}:{extra}:{urgent}"
