"""The question each person in a chat waits to answer: stored with the chat, so it survives a
restart within its time limit, and one a person at a time (a new question replaces their old
one; in a group, each member's question waits for its own answer)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from assistant.clock import Clock
from assistant.db import Database

QuestionKind = Literal["which_time", "what_text", "which_task", "event_time"]
LASTS = timedelta(minutes=30)


@dataclass(frozen=True)
class Question:
    """What was asked, of whom, in which language, with what it needs to finish the request."""

    user_id: int
    kind: QuestionKind
    language: str
    data: Mapping[str, str] = field(default_factory=dict)
    key: str = ""  # names the question in its buttons, so a stale press is told apart
    expires_at: datetime | None = None


class Questions:
    """Pending questions by chat and person."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def ask(self, chat_id: int, question: Question) -> Question:
        """Store ``question`` as its person's one pending question in the chat; returns it with
        its key."""
        stored = Question(
            question.user_id,
            question.kind,
            question.language,
            dict(question.data),
            secrets.token_urlsafe(6),
            self._clock.now() + LASTS,
        )
        data = json.dumps({"language": stored.language, **stored.data}, ensure_ascii=False)
        assert stored.expires_at is not None
        async with self._db.write() as session:
            await session.execute(
                "INSERT OR REPLACE INTO questions (chat_id, user_id, key, kind, data, expires_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    chat_id,
                    stored.user_id,
                    stored.key,
                    stored.kind,
                    data,
                    stored.expires_at.isoformat(),
                ),
            )
        return stored

    async def pending(self, chat_id: int, user_id: int) -> Question | None:
        """The chat's open question for this person, if one waits and has not expired."""
        async with self._db.read() as session:
            row = await session.fetchone(
                "SELECT user_id, key, kind, data, expires_at FROM questions"
                " WHERE chat_id = ? AND user_id = ?",
                (chat_id, user_id),
            )
        if row is None:
            return None
        expires = datetime.fromisoformat(row[4])
        if self._clock.now() >= expires:
            return None
        data = json.loads(row[3])
        language = str(data.pop("language", "en"))
        return Question(user_id, row[2], language, data, row[1], expires)

    async def drop(self, chat_id: int, key: str) -> bool:
        """Close the chat's question named ``key``; False when it was no longer open."""
        async with self._db.write() as session:
            cursor = await session.execute(
                "DELETE FROM questions WHERE chat_id = ? AND key = ?", (chat_id, key)
            )
        return bool(cursor.rowcount)
