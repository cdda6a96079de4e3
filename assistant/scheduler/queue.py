"""The scheduler's view of the task table: what is due, claiming it under a lease, settling runs.

SQLite is the only truth: nothing here keeps a copy of the schedule between calls, and each
call touches only the due end of the ``next_run`` index or the rows it names.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from assistant.db import connect
from assistant.metrics import LATENESS, TASKS_DUE, TASKS_FIRED
from assistant.schedules.schedule import Once, next_after
from assistant.tasks.runs import (
    Dropped,
    Firing,
    Outcome,
    Plan,
    advance_row,
    audit_row,
    end_row,
    on_time,
    retry_row,
    run_key,
    run_row,
)
from assistant.tasks.task import (
    COLUMNS,
    KINDS,
    Task,
    TaskKind,
    stamp,
    unstamp,
)

# One kind's due end, in time order, from the index of unclaimed active tasks.
_CLAIM = f"""
UPDATE scheduled_tasks SET lease_owner = ?, lease_until = ?
WHERE rowid IN (
    SELECT rowid FROM scheduled_tasks INDEXED BY idx_tasks_due
    WHERE enabled = 1 AND lease_owner IS NULL AND task_type = ? AND next_run <= ?
    ORDER BY next_run LIMIT ?
)
RETURNING {COLUMNS}
"""
# Of reserved tasks, those no longer active and ours when their time comes, as one JSON row:
# each row stepped would hand the GIL over.
_GONE = """
SELECT json_group_array(id) FROM scheduled_tasks
WHERE id IN (SELECT value FROM json_each(?)) AND (status != 'active' OR lease_owner IS NOT ?)
"""
# The runs of on-time firings at their due time, in one statement from their ids, of the
# tasks still active and ours (a cancel or a pause may have come since they were reserved).
_START_DUE = """
INSERT INTO task_runs (task_id, scheduled_for, status, started_at)
SELECT id, due_at, 'running', ? FROM scheduled_tasks
WHERE id IN (SELECT value FROM json_each(?)) AND status = 'active' AND lease_owner IS ?
ON CONFLICT (task_id, scheduled_for) DO UPDATE SET
    status = 'running', attempt = task_runs.attempt + 1, started_at = excluded.started_at,
    finished_at = NULL, error = '', note = ''
"""
_NEXT_WAKE = """
SELECT MIN(next_run) FROM scheduled_tasks INDEXED BY idx_tasks_due
WHERE enabled = 1 AND lease_owner IS NULL AND task_type = ?
"""
_START_RUN = """
INSERT INTO task_runs (task_id, scheduled_for, status, started_at, finished_at, error, note)
SELECT j.value ->> 'task_id', j.value ->> 'scheduled_for', j.value ->> 'status',
    j.value ->> 'started_at', j.value ->> 'finished_at', j.value ->> 'error', j.value ->> 'note'
FROM json_each(?) AS j WHERE true
ON CONFLICT (task_id, scheduled_for) DO UPDATE SET
    status = excluded.status, attempt = task_runs.attempt + 1, started_at = excluded.started_at,
    finished_at = excluded.finished_at, error = excluded.error, note = excluded.note
"""
# Outcomes are written a statement per kind of change, each over a JSON array of rows read by
# column name: one step of SQLite per batch (a step per row would hand the GIL to the event
# loop and back).
_END_RUN = """
UPDATE task_runs SET status = j.value ->> 'status', finished_at = j.value ->> 'finished_at',
    message_id = j.value ->> 'message_id', error = j.value ->> 'error'
FROM json_each(?) AS j
WHERE task_runs.task_id = j.value ->> 'task_id'
    AND task_runs.scheduled_for = j.value ->> 'scheduled_for'
"""
_ADVANCE = """
UPDATE scheduled_tasks SET
    last_run = j.value ->> 'last_run',
    next_run = COALESCE(j.value ->> 'next_run', next_run),
    due_at = COALESCE(j.value ->> 'next_run', due_at),
    status = CASE WHEN j.value ->> 'next_run' IS NULL AND status = 'active' THEN 'done'
        ELSE status END,
    lease_owner = NULL, lease_until = NULL, attempts = 0, last_error = j.value ->> 'error'
FROM json_each(?) AS j
WHERE scheduled_tasks.id = j.value ->> 'id'
"""
_MOVED = "UPDATE scheduled_tasks SET next_run = ?, due_at = ? WHERE id = ? AND lease_owner IS NULL"
# Of the tasks that ran, those whose schedule changed while they did (a zone change).
_CHANGED = """
SELECT t.id, t.schedule_data FROM json_each(?) AS j
JOIN scheduled_tasks AS t ON t.id = j.value ->> 'id'
WHERE t.schedule_data != j.value ->> 'schedule'
"""
_RETRY = """
UPDATE scheduled_tasks SET next_run = j.value ->> 'next_run', attempts = attempts + 1,
    last_error = j.value ->> 'error', lease_owner = NULL, lease_until = NULL
FROM json_each(?) AS j
WHERE scheduled_tasks.id = j.value ->> 'id'
"""
_AUDIT = """
INSERT INTO audit (at, request_id, call_id, user_id, tool, arguments, outcome, result, error,
    duration_ms, task_id)
SELECT j.value ->> 'at', j.value ->> 'request_id', j.value ->> 'call_id',
    j.value ->> 'user_id', j.value ->> 'tool', j.value ->> 'arguments', j.value ->> 'outcome',
    j.value ->> 'result', j.value ->> 'error', j.value ->> 'duration_ms', j.value ->> 'task_id'
FROM json_each(?) AS j
"""
_RELEASE = """
UPDATE scheduled_tasks SET lease_owner = NULL, lease_until = NULL
WHERE id IN (SELECT value FROM json_each(?))
"""
# A returned run never started: its row goes back to what it was before the claim (none for a
# first attempt, the failed try for a retry; a replay stays interrupted).
_UNCLAIM_FIRST = """
DELETE FROM task_runs WHERE task_id = ? AND scheduled_for = ? AND status = 'running'
"""
_UNCLAIM_RETRY = """
UPDATE task_runs SET status = 'error', attempt = attempt - 1
WHERE task_id = ? AND scheduled_for = ? AND status = 'running'
"""


_T = TypeVar("_T")


@dataclass(frozen=True)
class Claim:
    """What to claim: up to ``room[kind]`` tasks of each kind due at ``now``, and how to plan
    each."""

    now: datetime
    room: Mapping[TaskKind, int]
    lease: timedelta
    plan: Callable[[Task], Plan]


class DueQueue:
    """Claims, settles and recovers runs on the scheduler's own connection and thread.

    Each operation is one transaction run as one call on a single worker thread, so a batch
    costs one hop between the event loop and SQLite however many rows it holds, and a
    cancelled caller never leaves a transaction half done.
    """

    def __init__(self, path: Path, owner: str, wrote: Callable[[], None] = lambda: None) -> None:
        self.connection = connect(path)
        self._owner = owner
        self._wrote = wrote  # counts a commit, for the checkpointer
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scheduler-db")

    async def close(self) -> None:
        """Finish the queued work and close the connection."""
        await self._call(self.connection.close)
        self._thread.shutdown(wait=True)

    async def gone(self, tasks: Sequence[Task]) -> set[str]:
        """The ids of these tasks that are no longer active or no longer ours."""
        return await self._call(self._gone, tasks)

    async def next_wake(self) -> datetime | None:
        """When the earliest unclaimed active task is due, or None when there is none."""
        return await self._call(self._next_wake)

    async def claim(self, request: Claim) -> list[Plan]:
        """Lease due tasks, plan each and record its run, all in one transaction."""
        plans = await self._write(self._claim, request)
        TASKS_DUE.inc(len(plans))
        return plans

    async def reserve(self, request: Claim) -> list[Task]:
        """Lease tasks due by ``request.now`` ahead of their time, without starting runs."""
        return await self._write(self._reserve, request)

    async def begin(
        self, tasks: Sequence[Task], plan: Callable[[Task], Plan], now: datetime
    ) -> list[Plan]:
        """Plan and start the runs of reserved tasks that are still active (the others are let
        go), all in one transaction."""
        plans = await self._write(self._begin, tasks, plan, now)
        TASKS_DUE.inc(len(plans))
        return plans

    async def unreserve(self, tasks: Sequence[Task]) -> None:
        """Let reserved tasks go unstarted."""
        await self._write(self._unreserve, tasks)

    async def settle(self, outcomes: Sequence[Outcome]) -> None:
        """Write back how runs ended, all in one transaction."""
        await self._write(self._settle, outcomes)
        fired = Counter((outcome.task.kind, outcome.status) for outcome in outcomes)
        for (kind, status), count in fired.items():
            TASKS_FIRED.labels(kind, status).inc(count)
        for outcome in outcomes:
            if outcome.started_at is not None and outcome.status in ("ok", "error", "retry"):
                late = (outcome.started_at - outcome.scheduled_for).total_seconds()
                LATENESS.observe(max(late, 0.0))

    async def recover(self) -> list[Firing]:
        """After a restart: release every lease and return the runs a crash interrupted."""
        return await self._write(self._recover)

    async def abandon(self, dropped: Sequence[Dropped], now: datetime) -> None:
        """Close interrupted runs that must not be replayed, and move their tasks on."""
        await self._write(self._abandon, dropped, now)

    async def _write(self, function: Callable[..., _T], *args: Any) -> _T:
        result = await self._call(function, *args)
        self._wrote()
        return result

    async def _call(self, function: Callable[..., _T], *args: Any) -> _T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, function, *args)

    def _next_wake(self) -> datetime | None:
        due = [self.connection.execute(_NEXT_WAKE, (kind,)).fetchone()[0] for kind in KINDS]
        return unstamp(min(d for d in due if d)) if any(due) else None

    def _claim(self, request: Claim) -> list[Plan]:
        with _transaction(self.connection) as db:
            plans = [request.plan(task) for task in self._lease(db, request)]
            _start_runs(db, plans, request.now)
        return plans

    def _reserve(self, request: Claim) -> list[Task]:
        with _transaction(self.connection) as db:
            return self._lease(db, request)

    def _begin(
        self, tasks: Sequence[Task], plan: Callable[[Task], Plan], now: datetime
    ) -> list[Plan]:
        plans = [plan(task) for task in tasks]
        prompt = [p.task.id for p in plans if on_time(p)]
        with _transaction(self.connection) as db:
            started = db.execute(_START_DUE, (stamp(now), json.dumps(prompt), self._owner))
            if started.rowcount == len(plans):
                return plans  # the usual case: all were on time, and all are still ours
            gone = self._gone(tasks)
            _release(db, [p.task for p in plans if p.task.id in gone])
            plans = [p for p in plans if p.task.id not in gone]
            _start_runs(db, [p for p in plans if not on_time(p)], now)
        return plans

    def _gone(self, tasks: Sequence[Task]) -> set[str]:
        ids = json.dumps([task.id for task in tasks])
        (gone_ids,) = self.connection.execute(_GONE, (ids, self._owner)).fetchone()
        return set(json.loads(gone_ids))

    def _unreserve(self, tasks: Sequence[Task]) -> None:
        with _transaction(self.connection) as db:
            _release(db, tasks)

    def _lease(self, db: sqlite3.Connection, request: Claim) -> list[Task]:
        until = stamp(request.now + request.lease)
        due = stamp(request.now)
        return [
            Task.from_row(row)
            for kind, limit in request.room.items()
            for row in db.execute(_CLAIM, (self._owner, until, kind, due, limit))
        ]

    def _settle(self, outcomes: Sequence[Outcome]) -> None:
        ended = [o for o in outcomes if o.status not in ("released", "returned")]
        retries = [o for o in ended if o.status == "retry" and o.retry_at]
        finals = [o for o in ended if o.status in ("ok", "error")]
        released = [o for o in outcomes if o.status in ("released", "returned")]
        returned = [o for o in outcomes if o.status == "returned" and not o.replay]
        with _transaction(self.connection) as db:
            for statement, again in ((_UNCLAIM_FIRST, False), (_UNCLAIM_RETRY, True)):
                keys = [run_key(o) for o in returned if bool(o.task.attempts) == again]
                db.executemany(statement, keys)
            _each(db, _END_RUN, [end_row(o) for o in ended])
            _each(db, _RETRY, [retry_row(o, o.retry_at) for o in retries if o.retry_at])
            tasks = _restored(db, [o.task for o in finals])
            _each(
                db,
                _ADVANCE,
                [
                    advance_row(t, o.scheduled_for, o.finished_at, o.error)
                    for t, o in zip(tasks, finals, strict=True)
                ],
            )
            _release(db, [o.task for o in released])
            _each(db, _AUDIT, [audit_row(o) for o in outcomes if o.status != "returned"])

    def _recover(self) -> list[Firing]:
        with _transaction(self.connection) as db:
            rows = db.execute(
                f"SELECT {COLUMNS}, run_for FROM (SELECT t.*, r.scheduled_for AS run_for "
                "FROM task_runs r JOIN scheduled_tasks t ON t.id = r.task_id "
                "WHERE r.status = 'running')"
            ).fetchall()
            # Leases held by a process that died: running, or reserved ahead of their time.
            db.execute(
                "UPDATE scheduled_tasks SET lease_owner = NULL, lease_until = NULL "
                "WHERE lease_owner IS NOT NULL"
            )
        return [Firing(Task.from_row(row), unstamp(row[-1])) for row in rows]

    def _abandon(self, dropped: Sequence[Dropped], now: datetime) -> None:
        with _transaction(self.connection) as db:
            _each(db, _START_RUN, [run_row(d, stamp(now)) for d in dropped])
            _advance(db, dropped, now)


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _start_runs(db: sqlite3.Connection, plans: Sequence[Plan], now: datetime) -> None:
    """Record a run for each plan: running for a firing, closed for a dropped one."""
    at = stamp(now)
    _each(db, _START_RUN, [run_row(p, at) for p in plans])
    _advance(db, [p for p in plans if isinstance(p, Dropped)], now)


def _advance(db: sqlite3.Connection, dropped: Sequence[Dropped], now: datetime) -> None:
    _each(db, _ADVANCE, [advance_row(d.task, d.scheduled_for, now, d.reason) for d in dropped])


def _release(db: sqlite3.Connection, tasks: Sequence[Task]) -> None:
    """Give the tasks back unrun; one whose schedule a zone change moved meanwhile gets its
    next run from the moved schedule, not the slot it was held for."""
    _each(db, _RELEASE, [task.id for task in tasks])
    for held, task in zip(tasks, _restored(db, tasks), strict=True):
        if task is not held:
            schedule = task.schedule
            run = schedule.at if isinstance(schedule, Once) else next_after(schedule, held.next_run)
            if run is not None:
                db.execute(_MOVED, (stamp(run), stamp(run), task.id))


def _restored(db: sqlite3.Connection, tasks: Sequence[Task]) -> list[Task]:
    """The tasks with the schedule stored now: a zone change while one ran moved it, and its
    next run comes from the moved schedule."""
    if not tasks:
        return []
    held = json.dumps([{"id": t.id, "schedule": t.schedule_json} for t in tasks])
    changed = dict(db.execute(_CHANGED, (held,)).fetchall())
    return [replace(t, schedule_json=changed[t.id]) if t.id in changed else t for t in tasks]


def _each(db: sqlite3.Connection, statement: str, rows: Sequence[object]) -> None:
    """Run a statement over ``json_each`` of these rows, if there are any."""
    if rows:
        db.execute(statement, (json.dumps(rows, ensure_ascii=False),))
