"""The scheduler's view of the task table: what is due, claiming it under a lease, settling runs.

SQLite is the only truth: nothing here keeps a copy of the schedule between calls, and each
call touches only the due end of the ``next_run`` index or the rows it names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import aiosqlite

from assistant.db import transaction
from assistant.tasks.schedule import next_after
from assistant.tasks.task import Task, TaskKind, stamp, unstamp

_CLAIM = """
UPDATE scheduled_tasks SET lease_owner = ?, lease_until = ?
WHERE id IN (
    SELECT id FROM scheduled_tasks
    WHERE enabled = 1 AND next_run <= ? AND lease_owner IS NULL AND task_type IN ({kinds})
    ORDER BY next_run LIMIT ?
)
RETURNING *
"""
_START_RUN = """
INSERT INTO task_runs (task_id, scheduled_for, status, started_at, finished_at, error, note)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (task_id, scheduled_for) DO UPDATE SET
    status = excluded.status, attempt = task_runs.attempt + 1, started_at = excluded.started_at,
    finished_at = excluded.finished_at, error = excluded.error, note = excluded.note
"""
_END_RUN = """
UPDATE task_runs SET status = ?, finished_at = ?, message_id = ?, error = ?
WHERE task_id = ? AND scheduled_for = ?
"""
_ADVANCE = """
UPDATE scheduled_tasks SET
    last_run = ?, next_run = COALESCE(?, next_run), due_at = COALESCE(?, due_at),
    status = CASE WHEN ? IS NULL AND status = 'active' THEN 'done' ELSE status END,
    lease_owner = NULL, lease_until = NULL, attempts = 0, last_error = ?
WHERE id = ?
"""
_RETRY = """
UPDATE scheduled_tasks SET next_run = ?, attempts = attempts + 1, last_error = ?,
    lease_owner = NULL, lease_until = NULL
WHERE id = ?
"""
_RELEASE = "UPDATE scheduled_tasks SET lease_owner = NULL, lease_until = NULL WHERE id = ?"


@dataclass(frozen=True)
class Firing:
    """A claimed run to execute now, with the note its message carries (late, retried)."""

    task: Task
    scheduled_for: datetime
    note: str = ""


@dataclass(frozen=True)
class Dropped:
    """A claimed run that will not execute: missed beyond the grace window, or skipped."""

    task: Task
    scheduled_for: datetime
    status: Literal["missed", "skipped", "abandoned"]
    reason: str


@dataclass(frozen=True)
class Outcome:
    """How a run ended: done (ok or failed for good), to retry later, or released unfinished."""

    task: Task
    scheduled_for: datetime
    status: Literal["ok", "error", "retry", "released"]
    finished_at: datetime
    message_id: int | None = None
    error: str = ""
    retry_at: datetime | None = None


Plan = Firing | Dropped


class DueQueue:
    """Claims, settles and recovers runs on the scheduler's own connection."""

    def __init__(self, conn: aiosqlite.Connection, owner: str) -> None:
        self._conn = conn
        self._owner = owner

    async def next_wake(self) -> datetime | None:
        """When the earliest unclaimed active task is due, or None when there is none."""
        async with self._conn.execute(
            "SELECT next_run FROM scheduled_tasks WHERE enabled = 1 AND lease_owner IS NULL "
            "ORDER BY next_run LIMIT 1"
        ) as cursor:
            row = await cursor.fetchone()
        return unstamp(row[0]) if row else None

    async def claim(
        self,
        now: datetime,
        limit: int,
        kinds: Sequence[TaskKind],
        lease: timedelta,
        plan: Callable[[Task], Plan],
    ) -> list[Plan]:
        """Lease up to ``limit`` due tasks, plan each and record its run, in one transaction."""
        query = _CLAIM.format(kinds=", ".join("?" * len(kinds)))
        async with transaction(self._conn) as conn:
            async with conn.execute(
                query, (self._owner, stamp(now + lease), stamp(now), *kinds, limit)
            ) as cursor:
                plans = [plan(Task.from_row(row)) async for row in cursor]
            await conn.executemany(_START_RUN, [_run_row(p, now) for p in plans])
            await _advance(conn, [p for p in plans if isinstance(p, Dropped)], now)
        return plans

    async def settle(self, outcomes: Sequence[Outcome]) -> None:
        """Write back how runs ended, all in one transaction."""
        async with transaction(self._conn) as conn:
            ended = [o for o in outcomes if o.status != "released"]
            await conn.executemany(
                _END_RUN,
                [
                    (
                        _run_status(o),
                        stamp(o.finished_at),
                        o.message_id,
                        o.error,
                        o.task.id,
                        stamp(o.scheduled_for),
                    )
                    for o in ended
                ],
            )
            retries = [o for o in ended if o.status == "retry" and o.retry_at]
            await conn.executemany(
                _RETRY, [(stamp(o.retry_at), o.error, o.task.id) for o in retries if o.retry_at]
            )
            finals = [o for o in ended if o.status in ("ok", "error")]
            await conn.executemany(
                _ADVANCE,
                [_advance_row(o.task, o.scheduled_for, o.finished_at, o.error) for o in finals],
            )
            released = [o for o in outcomes if o.status == "released"]
            await conn.executemany(_RELEASE, [(o.task.id,) for o in released])

    async def recover(self) -> list[Firing]:
        """After a restart: release every lease and return the runs a crash interrupted."""
        async with transaction(self._conn) as conn:
            async with conn.execute(
                "SELECT t.*, r.scheduled_for AS run_for FROM task_runs r "
                "JOIN scheduled_tasks t ON t.id = r.task_id WHERE r.status = 'running'"
            ) as cursor:
                found = [
                    Firing(Task.from_row(row), unstamp(row["run_for"])) async for row in cursor
                ]
            await conn.execute(
                "UPDATE scheduled_tasks SET lease_owner = NULL, lease_until = NULL "
                "WHERE lease_until IS NOT NULL"
            )
        return found

    async def abandon(self, dropped: Sequence[Dropped], now: datetime) -> None:
        """Close interrupted runs that must not be replayed, and move their tasks on."""
        async with transaction(self._conn) as conn:
            await conn.executemany(_START_RUN, [_run_row(d, now) for d in dropped])
            await _advance(conn, dropped, now)


async def _advance(conn: aiosqlite.Connection, dropped: Sequence[Dropped], now: datetime) -> None:
    await conn.executemany(
        _ADVANCE, [_advance_row(d.task, d.scheduled_for, now, d.reason) for d in dropped]
    )


def _advance_row(task: Task, slot: datetime, now: datetime, error: str) -> tuple[object, ...]:
    following = next_after(task.schedule, max(slot, now))
    upcoming = stamp(following) if following else None
    return (stamp(slot), upcoming, upcoming, upcoming, error, task.id)


def _run_row(plan: Plan, now: datetime) -> tuple[object, ...]:
    if isinstance(plan, Firing):
        return (plan.task.id, stamp(plan.scheduled_for), "running", stamp(now), None, "", plan.note)
    return (plan.task.id, stamp(plan.scheduled_for), plan.status, None, stamp(now), plan.reason, "")


def _run_status(outcome: Outcome) -> str:
    return "ok" if outcome.status == "ok" else "error"
