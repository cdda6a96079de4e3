"""The append-only audit trail: one row for every tool call, with its secrets masked."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from assistant.clock import Clock
from assistant.db import Database, Row
from assistant.redaction import redact_text, redacted_json

Outcome = Literal[
    "ok", "error", "timeout", "invalid", "unknown_tool", "denied", "cancelled", "pending"
]
RESULT_CHARS = 500
ARGUMENTS_CHARS = 20_000


@dataclass(frozen=True)
class AuditEntry:
    """One tool call as it is recorded: who, what (redacted), how it ended and how long it took."""

    request_id: str
    call_id: str
    user_id: int
    tool: str
    arguments: Mapping[str, Any]
    outcome: Outcome
    duration_ms: int
    result: str = ""
    error: str = ""
    dropped: Sequence[str] = ()
    approver: int | None = None
    at: datetime | None = field(default=None, compare=False)


class AuditLog:
    """Writes audit rows and reads a user's recent ones; rows are never changed or deleted."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def record(self, entry: AuditEntry) -> int:
        """Store ``entry`` with sensitive arguments masked and return its row id."""
        async with self._db.write() as session:
            cursor = await session.execute(
                "INSERT INTO audit (at, request_id, call_id, user_id, tool, arguments, dropped,"
                " outcome, result, error, duration_ms, approver)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self._clock.now().isoformat(),
                    escaped(entry.request_id),
                    escaped(entry.call_id),
                    entry.user_id,
                    escaped(entry.tool),
                    escaped(arguments_json(entry.arguments)),
                    json.dumps(list(entry.dropped)),
                    entry.outcome,
                    escaped(redact_text(entry.result[:RESULT_CHARS])),
                    escaped(redact_text(entry.error[:RESULT_CHARS])),
                    entry.duration_ms,
                    entry.approver,
                ),
            )
        return int(cursor.lastrowid or 0)

    async def recent(self, user_id: int, limit: int = 20) -> list[AuditEntry]:
        """The user's latest audit rows, newest first."""
        async with self._db.read() as session:
            rows = await session.fetchall(
                "SELECT * FROM audit WHERE user_id = ? ORDER BY id DESC LIMIT ?", (user_id, limit)
            )
        return [_entry(row) for row in rows]


def escaped(text: str) -> str:
    """Text as a row can hold it: a lone surrogate (valid in JSON, not in UTF-8) written as
    its escape, so that no call goes without its row."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def arguments_json(arguments: Mapping[str, Any]) -> str:
    """Arguments as an audit row keeps them: redacted, and bounded whatever the model sent."""
    try:
        text = redacted_json(arguments)
    except (RecursionError, ValueError, TypeError):
        return json.dumps({"_unrecorded": "arguments nested too deep to record"})
    if len(text) <= ARGUMENTS_CHARS:
        return text
    return json.dumps({"_cut": text[:ARGUMENTS_CHARS], "_chars": len(text)}, ensure_ascii=False)


def _entry(row: Row) -> AuditEntry:
    return AuditEntry(
        request_id=row["request_id"],
        call_id=row["call_id"],
        user_id=row["user_id"],
        tool=row["tool"],
        arguments=json.loads(row["arguments"]),
        outcome=row["outcome"],
        duration_ms=row["duration_ms"],
        result=row["result"],
        error=row["error"],
        dropped=tuple(json.loads(row["dropped"])),
        approver=row["approver"],
        at=datetime.fromisoformat(row["at"]),
    )
