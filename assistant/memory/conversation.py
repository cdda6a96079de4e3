"""Conversations per chat: every turn's messages kept, the current session read back.

``/clear`` starts a new session: the model no longer sees what came before, but nothing is
deleted (notes, tasks and the old messages stay, for search and the audit).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from assistant.clock import Clock
from assistant.db import Database, Row, Session
from assistant.fulltext import indexed
from assistant.llm.tokens import ApproxCounter, TokenCounter, message_tokens
from assistant.llm.types import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from assistant.memory.fts import Index, chat_token, search
from assistant.memory.notes import Found

_INSERT = (
    "INSERT INTO messages (chat_id, user_id, session, turn_id, role, content, calls,"
    " call_id, tool, is_error, audit_id, tokens, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
MESSAGES = Index("messages_fts", "messages", "1.0, 0.0")
PAGE_ROWS = 64  # history is read newest first, a page at a time, until the budget is full
MAX_ROWS = 2000


class Conversations:
    """Reads and appends the messages of each chat's current session."""

    def __init__(self, db: Database, clock: Clock, counter: TokenCounter | None = None) -> None:
        self._db = db
        self._clock = clock
        self._counter = counter or ApproxCounter()

    async def history(self, chat_id: int, budget: int = 1_000_000) -> list[Message]:
        """The latest messages of the chat's current session, oldest first."""
        return [message for message, _ in await self.recent(chat_id, budget)]

    async def recent(self, chat_id: int, budget: int) -> list[tuple[Message, int]]:
        """The latest messages with their token costs, oldest first: ``budget`` tokens and
        a little more, so that the caller can cut at a whole exchange."""
        rows: list[Row] = []
        spent = 0
        async with (
            self._db.read() as session,
            session.execute(
                "SELECT m.* FROM messages m JOIN chats c ON c.chat_id = m.chat_id "
                "AND c.session = m.session WHERE m.chat_id = ? ORDER BY m.id DESC LIMIT ?",
                (chat_id, MAX_ROWS),
            ) as cursor,
        ):
            while spent <= budget and (page := await cursor.fetchmany(PAGE_ROWS)):
                rows.extend(page)
                spent += sum(row["tokens"] for row in page)
        return [(_message(row), int(row["tokens"])) for row in reversed(rows)]

    async def append(
        self,
        chat_id: int,
        user_id: int,
        turn_id: str,
        messages: Sequence[Message],
        audit_ids: Mapping[str, int] | None = None,
    ) -> None:
        """Store a turn's messages in the chat's current session, all or none."""
        at = self._clock.now().isoformat()
        audits = audit_ids or {}
        async with self._db.write() as conn:
            session = await _session(conn, chat_id, user_id)
            for message in messages:
                row = (chat_id, user_id, session, turn_id, *_columns(message, audits))
                cursor = await conn.execute(_INSERT, (*row, self._cost(message), at))
                if not isinstance(message, ToolMessage) and (text := _text(message)):
                    await conn.execute(
                        "INSERT INTO messages_fts (rowid, body, chat) VALUES (?, ?, ?)",
                        (cursor.lastrowid, indexed(text, user_id), chat_token(chat_id)),
                    )

    async def search(
        self, user_id: int, query: str, chat_id: int | None = None, limit: int = 5
    ) -> list[Found]:
        """The user's past messages that match ``query`` (in one chat, or all), best first."""
        async with self._db.read() as session:
            hits = await search(session, MESSAGES, query, user_id, chat_id=chat_id, limit=limit)
        return [
            Found(
                "message",
                hit.row["id"],
                datetime.fromisoformat(hit.row["created_at"]),
                hit.snippet,
                hit.rank,
                "you said" if hit.row["role"] == "user" else "I said",
            )
            for hit in hits
        ]

    def _cost(self, message: Message) -> int:
        return message_tokens(message, self._counter)

    async def clear(self, chat_id: int, user_id: int) -> None:
        """Start a new session: earlier messages are kept but no longer sent to the model."""
        async with self._db.write() as conn:
            await _session(conn, chat_id, user_id)
            await conn.execute(
                "UPDATE chats SET session = session + 1 WHERE chat_id = ?", (chat_id,)
            )


async def _session(conn: Session, chat_id: int, user_id: int) -> int:
    await conn.execute(
        "INSERT INTO chats (chat_id, user_id) VALUES (?, ?) ON CONFLICT (chat_id) DO NOTHING",
        (chat_id, user_id),
    )
    row = await conn.fetchone("SELECT session FROM chats WHERE chat_id = ?", (chat_id,))
    assert row is not None  # inserted just above
    return int(row[0])


def _columns(message: Message, audits: Mapping[str, int]) -> tuple[Any, ...]:
    match message:
        case UserMessage(text=text):
            return ("user", text, "[]", None, None, 0, None)
        case AssistantMessage(text=text, calls=calls):
            encoded = json.dumps(
                [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
                ensure_ascii=False,
                default=str,
            )
            return ("assistant", text, encoded, None, None, 0, None)
        case ToolMessage(call_id=call_id, name=name, content=content, is_error=is_error):
            return ("tool", content, "[]", call_id, name, int(is_error), audits.get(call_id))


def _text(message: Message) -> str:
    return message.text if isinstance(message, UserMessage | AssistantMessage) else ""


def _message(row: Row) -> Message:
    role = row["role"]
    if role == "user":
        return UserMessage(row["content"])
    if role == "assistant":
        calls = tuple(
            ToolCall(c["id"], c["name"], c["arguments"]) for c in json.loads(row["calls"])
        )
        return AssistantMessage(row["content"], calls)
    return ToolMessage(row["call_id"], row["tool"], row["content"], bool(row["is_error"]))
