"""The terminal's first hour kept: what the local user made before an owner was configured
becomes the owner's when the first owner is set, once, recorded and logged.

Before ``telegram.allowed_user_ids`` is set, the terminal acts as the local user (id 0); after
it, as the owner. Without a handover the notes, tasks, timezone and conversations of the first
hour would stay in the database under id 0, out of sight. The audit trail is append-only and
keeps the id each call was made under.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from assistant.db import Database, Session

log = logging.getLogger(__name__)

LOCAL = 0  # who the terminal is before an owner is configured

_COUNTS = {
    "notes": "SELECT COUNT(*) FROM notes WHERE user_id = ?",
    "tasks": "SELECT COUNT(*) FROM scheduled_tasks WHERE user_id = ?",
    "messages": "SELECT COUNT(*) FROM messages WHERE user_id = ?",
    "settings": "SELECT COUNT(*) FROM people WHERE user_id = ?",
}
# Whether there is anything to hand over, on indexes only: this runs at every start with an
# owner, and must not read the whole history (the terminal's messages are its chat's).
_ANY = (
    "SELECT EXISTS (SELECT 1 FROM notes WHERE user_id = ?1)"
    " OR EXISTS (SELECT 1 FROM scheduled_tasks WHERE user_id = ?1)"
    " OR EXISTS (SELECT 1 FROM messages WHERE chat_id = ?1)"
    " OR EXISTS (SELECT 1 FROM people WHERE user_id = ?1)"
)
_MOVES = (
    "DELETE FROM notes_fts WHERE rowid IN (SELECT id FROM notes WHERE user_id = ?1)",
    "DELETE FROM messages_fts WHERE rowid IN (SELECT id FROM messages WHERE user_id = ?1)",
    "UPDATE notes SET user_id = ?2 WHERE user_id = ?1",
    "UPDATE scheduled_tasks SET user_id = ?2, "
    "chat_id = CASE chat_id WHEN ?1 THEN ?2 ELSE chat_id END WHERE user_id = ?1",
    "UPDATE approvals SET user_id = ?2, "
    "chat_id = CASE chat_id WHEN ?1 THEN ?2 ELSE chat_id END WHERE user_id = ?1",
    "UPDATE OR IGNORE chats SET chat_id = ?2, user_id = ?2 WHERE chat_id = ?1",
    "DELETE FROM chats WHERE chat_id = ?1",
    "UPDATE messages SET user_id = ?2, "
    "chat_id = CASE chat_id WHEN ?1 THEN ?2 ELSE chat_id END WHERE user_id = ?1",
    "UPDATE OR IGNORE people SET user_id = ?2 WHERE user_id = ?1",
    "DELETE FROM people WHERE user_id = ?1",
)
_REINDEX = (
    "INSERT INTO notes_fts (rowid, body, tags) SELECT id, fts_indexed(content, user_id), "
    "fts_indexed((SELECT group_concat(value, ' ') FROM json_each(tags)), user_id) "
    "FROM notes WHERE user_id = ?2 AND id NOT IN (SELECT rowid FROM notes_fts)",
    "INSERT INTO messages_fts (rowid, body, chat) SELECT id, fts_indexed(content, user_id), "
    "'c' || replace(chat_id, '-', 'n') FROM messages WHERE user_id = ?2 "
    "AND role IN ('user', 'assistant') AND content != '' "
    "AND id NOT IN (SELECT rowid FROM messages_fts)",
)


async def hand_over(db: Database, owner: int) -> dict[str, int]:
    """Give the local user's data to ``owner``, in one transaction; what was moved (empty
    when there was nothing)."""
    if owner == LOCAL:
        return {}
    async with db.read() as session:
        if not await _count(session, _ANY):
            return {}
    async with db.write() as session:
        moved = {name: await _count(session, sql) for name, sql in _COUNTS.items()}
        moved = {name: count for name, count in moved.items() if count}
        if not moved:
            return {}
        for sql in (*_MOVES, *_REINDEX):
            await session.execute(sql, (LOCAL, owner) if "?2" in sql else (LOCAL,))
        await session.execute(
            "INSERT INTO handovers (local_id, owner_id, moved, at) VALUES (?, ?, ?, ?)",
            (LOCAL, owner, json.dumps(moved), datetime.now(UTC).isoformat()),
        )
    said = ", ".join(f"{count} {name}" for name, count in moved.items())
    log.warning("what the terminal made before an owner was set now belongs to %d: %s", owner, said)
    return moved


async def _count(session: Session, sql: str) -> int:
    row = await session.fetchone(sql, (LOCAL,))
    return int(row[0]) if row else 0
