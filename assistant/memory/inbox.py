"""The messages taken from a chat channel, kept from before they are acknowledged until they
are answered, so a restart loses none and answers none twice.

A message is ``queued`` when it is stored (before the channel acknowledges it), ``taken`` when
this process has it (waiting in its chat's queue), ``started`` when its turn runs, and
``answered`` when it is done (answered, refused or ignored). On start, ``taken`` ones were
never begun and are queued again; a ``started`` one was cut by the stop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from assistant.clock import Clock
from assistant.db import Database, Row

State = Literal["queued", "taken", "started", "answered"]
KEPT = timedelta(days=2)  # answered ids stay this long: the channel may offer one again


@dataclass(frozen=True)
class Received:
    """One message as the channel sent it: its id there, whose, and its payload (JSON)."""

    update_id: int
    chat_id: int
    user_id: int
    payload: str
    received_at: datetime | None = None
    state: State = "queued"


@dataclass(frozen=True)
class Backlog:
    """What a start finds: messages to handle in order, and the ones to tell about."""

    replay: list[Received]
    missed: list[Received]  # too old, or cut while answered: told, not handled


class Inbox:
    """The inbox table: keep, take once, mark, and what a start finds unanswered."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def keep(self, received: Sequence[Received]) -> None:
        """Store messages as they arrive, before they are acknowledged; one already kept
        stays as it is."""
        if not received:
            return
        now = self._clock.now().isoformat()
        async with self._db.write() as session:
            await session.executemany(
                "INSERT OR IGNORE INTO inbox (update_id, chat_id, user_id, payload, received_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [(r.update_id, r.chat_id, r.user_id, r.payload, now) for r in received],
            )

    async def take(self, received: Received) -> bool:
        """Take a message to handle it: True once for each (kept or not), False for one this
        or an earlier process already took (handled twice otherwise)."""
        rows = await self._db.write_rows(
            "INSERT INTO inbox (update_id, chat_id, user_id, payload, received_at, state)"
            " VALUES (?, ?, ?, ?, ?, 'taken') ON CONFLICT (update_id) DO UPDATE"
            " SET state = 'taken' WHERE state = 'queued' RETURNING update_id",
            (
                received.update_id,
                received.chat_id,
                received.user_id,
                received.payload,
                self._clock.now().isoformat(),
            ),
        )
        return bool(rows)

    async def mark(self, update_id: int, state: State) -> None:
        """Move a message on: started, or answered (its payload is then dropped)."""
        payload = "" if state == "answered" else None
        await self._db.write_one(
            "UPDATE inbox SET state = ?, payload = COALESCE(?, payload) WHERE update_id = ?",
            (state, payload, update_id),
        )

    async def on_start(self, replay_for: timedelta) -> Backlog:
        """What the last run left unanswered: those never begun and younger than
        ``replay_for``, to handle in order; the rest (older, or cut while answered) marked
        answered, to be told about. Answered ids past their keeping are forgotten."""
        now = self._clock.now()
        async with self._db.write() as session:
            await session.execute("UPDATE inbox SET state = 'queued' WHERE state = 'taken'")
            rows = await session.fetchall(
                "UPDATE inbox SET state = 'answered', payload = '' WHERE state != 'answered'"
                " AND (state = 'started' OR received_at < ?) RETURNING *",
                ((now - replay_for).isoformat(),),
            )
            await session.execute(
                "DELETE FROM inbox WHERE state = 'answered' AND received_at < ?",
                ((now - KEPT).isoformat(),),
            )
            queued = await session.fetchall(
                "SELECT * FROM inbox WHERE state = 'queued' ORDER BY update_id"
            )
        return Backlog([_received(r) for r in queued], sorted(map(_received, rows), key=_id))


def _received(row: Row) -> Received:
    return Received(
        row["update_id"],
        row["chat_id"],
        row["user_id"],
        row["payload"],
        datetime.fromisoformat(row["received_at"]),
        row["state"],
    )


def _id(received: Received) -> int:
    return received.update_id
