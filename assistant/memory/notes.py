"""Notes a user keeps: saved, listed, deleted and searched by their owner only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from assistant.clock import Clock
from assistant.db import Database, Row
from assistant.errors import ToolError
from assistant.fulltext import indexed
from assistant.memory.fts import Index, search

NOTES = Index("notes_fts", "notes", "1.0, 0.5")
MAX_NOTE = 10_000
MAX_TAGS = 10

SQLITE_MAX_INTEGER = 2**63 - 1


@dataclass(frozen=True)
class Note:
    """A saved note."""

    id: int
    content: str
    tags: tuple[str, ...]
    created_at: datetime


@dataclass(frozen=True)
class Found:
    """A search hit: where it is from, when, and a snippet around the match."""

    kind: str  # "note" or "message"
    id: int
    at: datetime
    snippet: str
    rank: float
    detail: str = ""


class Notes:
    """The notes table and its full-text index, every statement scoped to the owner."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def add(self, user_id: int, content: str, tags: Sequence[str] = ()) -> Note:
        """Save a note; empty or oversized content is refused."""
        (note,) = await self.add_many(user_id, [(content, tags)])
        return note

    async def add_many(
        self, user_id: int, notes: Sequence[tuple[str, Sequence[str]]]
    ) -> list[Note]:
        """Save many notes in one transaction: all of them, or none if one is refused."""
        checked = [_checked(content, tags) for content, tags in notes]
        at = self._clock.now()
        async with self._db.write() as conn:
            # Ids are given here, after the highest, so both tables take their rows in one
            # statement each: no other write can come between (the transaction holds the lock).
            row = await conn.fetchone("SELECT COALESCE(MAX(id), 0) FROM notes")
            first = int(row[0] if row else 0) + 1
            await conn.executemany(
                "INSERT INTO notes (id, user_id, content, tags, created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    (
                        first + n,
                        user_id,
                        content,
                        json.dumps(tags, ensure_ascii=False),
                        at.isoformat(),
                    )
                    for n, (content, tags) in enumerate(checked)
                ],
            )
            await conn.executemany(
                "INSERT INTO notes_fts (rowid, body, tags) VALUES (?, ?, ?)",
                [
                    (first + n, indexed(content, user_id), indexed(" ".join(tags), user_id))
                    for n, (content, tags) in enumerate(checked)
                ],
            )
        return [Note(first + n, c, tuple(t), at) for n, (c, t) in enumerate(checked)]

    async def list_notes(self, user_id: int, limit: int = 20) -> list[Note]:
        """The user's latest notes."""
        async with self._db.read() as session:
            rows = await session.fetchall(
                "SELECT * FROM notes WHERE user_id = ? ORDER BY id DESC LIMIT ?", (user_id, limit)
            )
        return [_note(row) for row in rows]

    async def get(self, user_id: int, note_id: int) -> Note | None:
        """The user's note by its number; another user's, or none, is None."""
        if not 0 < note_id <= SQLITE_MAX_INTEGER:
            return None
        async with self._db.read() as session:
            row = await session.fetchone(
                "SELECT * FROM notes WHERE id = ? AND user_id = ?", (note_id, user_id)
            )
        return None if row is None else _note(row)

    async def delete(self, user_id: int, note_id: int) -> Note:
        """Delete the user's note; another user's note is not found."""
        if not 0 < note_id <= SQLITE_MAX_INTEGER:  # no row has it; SQLite could not take it
            raise ToolError(f"you have no note {note_id}; list_notes shows yours")
        async with self._db.write() as conn:
            async with conn.execute(
                "DELETE FROM notes WHERE id = ? AND user_id = ? RETURNING *", (note_id, user_id)
            ) as cursor:
                row = await cursor.fetchone()
            if row is None:
                raise ToolError(f"you have no note {note_id}; list_notes shows yours")
            await conn.execute("DELETE FROM notes_fts WHERE rowid = ?", (note_id,))
        return _note(row)

    async def search(self, user_id: int, query: str, limit: int = 5) -> list[Found]:
        """The user's notes that match ``query``, best first (BM25)."""
        async with self._db.read() as session:
            hits = await search(session, NOTES, query, user_id, limit=limit)
        return [
            Found(
                "note",
                hit.row["id"],
                datetime.fromisoformat(hit.row["created_at"]),
                hit.snippet,
                hit.rank,
                ", ".join(json.loads(hit.row["tags"])),
            )
            for hit in hits
        ]


def _checked(content: str, tags: Sequence[str]) -> tuple[str, list[str]]:
    content = content.strip()
    if not content:
        raise ToolError("a note needs some content")
    if len(content) > MAX_NOTE:
        raise ToolError(f"a note is at most {MAX_NOTE:,} characters; this one has {len(content):,}")
    clean = [t.strip().lstrip("#") for t in tags if t.strip().lstrip("#")]
    if len(clean) > MAX_TAGS:
        raise ToolError(f"at most {MAX_TAGS} tags per note")
    return content, clean


def _note(row: Row) -> Note:
    return Note(
        row["id"],
        row["content"],
        tuple(json.loads(row["tags"])),
        datetime.fromisoformat(row["created_at"]),
    )
