"""Approvals waiting for their owner, stored so that they outlive a restart and a chat is
never held while one waits."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from assistant.db import Database, Row

Status = Literal["pending", "approved", "denied", "expired", "refused"]


@dataclass(frozen=True)
class StoredApproval:
    """One approval row: the exact call, whom it is for, and where it stands."""

    token: str
    user_id: int
    chat_id: int
    timezone: str
    request_id: str
    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    digest: str
    reason: str
    preview: str
    expires_at: datetime
    status: Status = "pending"
    message_id: int | None = None
    channel: str = ""  # where it was shown, and the only place a typed answer counts
    typed: bool = True  # the last thing asked there: a typed yes or no may answer it


class ApprovalBook:
    """The approvals table: add, shown, take (once), and the expired ones."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, approval: StoredApproval, now: datetime) -> None:
        """Store a new pending approval."""
        a = approval
        async with self._db.write() as session:
            await session.execute(
                "INSERT INTO approvals (token, user_id, chat_id, timezone, request_id, call_id,"
                " tool, arguments, digest, reason, preview, created_at, expires_at, channel)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    a.token,
                    a.user_id,
                    a.chat_id,
                    a.timezone,
                    a.request_id,
                    a.call_id,
                    a.tool,
                    json.dumps(dict(a.arguments), ensure_ascii=False, sort_keys=True),
                    a.digest,
                    a.reason,
                    a.preview,
                    now.isoformat(),
                    a.expires_at.isoformat(),
                    a.channel,
                ),
            )

    async def shown(self, token: str, message_id: int | None) -> None:
        """Remember the message that shows the approval, to edit it when it ends."""
        async with self._db.write() as session:
            await session.execute(
                "UPDATE approvals SET message_id = ? WHERE token = ?", (message_id, token)
            )

    async def get(self, token: str) -> StoredApproval | None:
        """The approval with this token, in whatever state."""
        async with self._db.read() as session:
            row = await session.fetchone("SELECT * FROM approvals WHERE token = ?", (token,))
        return _approval(row) if row is not None else None

    async def take(
        self, token: str, status: Status, now: datetime, approver: int | None = None
    ) -> StoredApproval | None:
        """Move a pending approval to its end state, once: None if it was not pending."""
        async with self._db.write() as session:
            row = await session.fetchone(
                "UPDATE approvals SET status = ?, decided_at = ?, approver = ? "
                "WHERE token = ? AND status = 'pending' RETURNING *",
                (status, now.isoformat(), approver, token),
            )
        return _approval(row) if row is not None else None

    async def expired(self, now: datetime) -> list[StoredApproval]:
        """Pending approvals whose deadline has passed."""
        async with self._db.read() as session:
            rows = await session.fetchall(
                "SELECT * FROM approvals WHERE status = 'pending' AND expires_at <= ?",
                (now.isoformat(),),
            )
        return [_approval(row) for row in rows]

    async def typed_in(
        self, chat_id: int, user_id: int, channel: str, now: datetime
    ) -> list[StoredApproval]:
        """The person's approvals still open in a chat that a typed answer there may take:
        shown in ``channel``, and nothing said there since; oldest first."""
        async with self._db.read() as session:
            rows = await session.fetchall(
                "SELECT * FROM approvals WHERE status = 'pending' AND chat_id = ? AND user_id = ?"
                " AND channel = ? AND typed = 1 AND expires_at > ? ORDER BY created_at",
                (chat_id, user_id, channel, now.isoformat()),
            )
        return [_approval(row) for row in rows]

    async def said_since(self, chat_id: int, user_id: int, channel: str) -> None:
        """Something else was said in the chat: its open approvals are no longer the last
        thing asked there, and only their buttons answer them."""
        async with self._db.write() as session:
            await session.execute(
                "UPDATE approvals SET typed = 0 WHERE status = 'pending' AND chat_id = ?"
                " AND user_id = ? AND channel = ? AND typed = 1",
                (chat_id, user_id, channel),
            )

    async def next_deadline(self) -> datetime | None:
        """When the earliest pending approval expires."""
        async with self._db.read() as session:
            row = await session.fetchone(
                "SELECT MIN(expires_at) FROM approvals WHERE status = 'pending'"
            )
        return datetime.fromisoformat(row[0]) if row and row[0] else None


def _approval(row: Row) -> StoredApproval:
    return StoredApproval(
        row["token"],
        row["user_id"],
        row["chat_id"],
        row["timezone"],
        row["request_id"],
        row["call_id"],
        row["tool"],
        json.loads(row["arguments"]),
        row["digest"],
        row["reason"],
        row["preview"],
        datetime.fromisoformat(row["expires_at"]),
        row["status"],
        row["message_id"],
        row["channel"],
        bool(row["typed"]),
    )
