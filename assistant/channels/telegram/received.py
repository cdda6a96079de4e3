"""Updates as the inbox keeps them: read from a getUpdates answer before it is acknowledged,
or from an update the gate lets in; and told about, when a restart left some unanswered."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from telegram import Update

from assistant.memory.inbox import Received

log = logging.getLogger(__name__)


def from_answer(payload: bytes) -> list[Received]:
    """The updates of a getUpdates answer (none from one that is not a list of them)."""
    try:
        answer = json.loads(payload)
    except (ValueError, RecursionError):
        return []
    updates = answer.get("result") if isinstance(answer, dict) else None
    if not isinstance(updates, list):
        return []
    return [r for u in updates if isinstance(u, dict) and (r := _one(u)) is not None]


def from_update(update: Update) -> Received:
    """An update the gate let in, as the inbox keeps it."""
    chat, user = update.effective_chat, update.effective_user
    return Received(
        update.update_id,
        chat.id if chat is not None else 0,
        user.id if user is not None else 0,
        json.dumps(update.to_dict(), ensure_ascii=False),
    )


def _one(update: dict[str, Any]) -> Received | None:
    update_id = update.get("update_id")
    if not isinstance(update_id, int):
        return None
    body = next((v for k, v in update.items() if k != "update_id" and isinstance(v, dict)), {})
    message = body.get("message") if "data" in body else body  # a button press's message
    chat = message.get("chat") if isinstance(message, dict) else None
    user = body.get("from")
    return Received(
        update_id,
        _id(chat),
        _id(user),
        json.dumps(update, ensure_ascii=False),
    )


def _id(part: object) -> int:
    value = part.get("id") if isinstance(part, dict) else None
    return value if isinstance(value, int) else 0


def spans(missed: Sequence[Received]) -> dict[int, list[Received]]:
    """The messages a restart left unanswered, by chat, oldest first."""
    chats: dict[int, list[Received]] = {}
    for received in sorted(missed, key=lambda r: r.update_id):
        chats.setdefault(received.chat_id, []).append(received)
    return chats
