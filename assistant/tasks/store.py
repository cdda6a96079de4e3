"""The owner's view of the task table: add, list, pause, resume, cancel, run now, snooze.

Every statement names the owner, so another user's task is "not found" even by its exact id.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime

from assistant.clock import Clock
from assistant.db import Database, Row, Session
from assistant.errors import TaskError, TaskNotFoundError
from assistant.schedules.moving import moved
from assistant.schedules.parsed import Parsed
from assistant.schedules.schedule import Once, next_after, to_json
from assistant.tasks.rows import (
    NEW_COLUMNS,
    checked_description,
    edit_values,
    new_row,
    stored_task,
)
from assistant.tasks.task import COLUMNS, LIVE, NewTask, Run, Task, TaskStatus, stamp

ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i: ids are read aloud and typed
ID_LENGTH = 6
ID_ATTEMPTS = 8
_LIVE_COUNT = (
    "SELECT COUNT(*) FROM scheduled_tasks WHERE user_id = ? AND status IN ('active', 'paused')"
)
_INSERT = f"INSERT INTO scheduled_tasks ({NEW_COLUMNS}) VALUES ({', '.join('?' * 14)})"
_INSERT_WITHIN_LIMIT = (
    f"INSERT INTO scheduled_tasks ({NEW_COLUMNS}) "
    f"SELECT {', '.join('?' * 14)} WHERE ({_LIVE_COUNT}) < ?"
)


def new_id() -> str:
    """A short random task id, easy to type in ``/cancel``."""
    # 64 random bits read as base-31 digits: six of them carry no measurable bias.
    number = secrets.randbits(64)
    digits = []
    for _ in range(ID_LENGTH):
        number, digit = divmod(number, len(ALPHABET))
        digits.append(ALPHABET[digit])
    return "".join(digits)


class TaskStore:
    """Tasks as their owners manage them; every call is scoped to one user."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        *,
        max_live_per_user: int = 200,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._max_live = max_live_per_user
        self._on_change = on_change

    async def add(self, new: NewTask) -> Task:
        """Store a new task, refusing it when its owner is at the limit of live tasks."""
        now = self._clock.now()
        values = new_row(new, now)
        for _ in range(ID_ATTEMPTS):
            task_id = new_id()
            try:
                cursor = await self._db.write_one(
                    _INSERT_WITHIN_LIMIT, (task_id, *values, new.owner.user_id, self._max_live)
                )
            except sqlite3.IntegrityError as exc:
                if exc.sqlite_errorname == "SQLITE_CONSTRAINT_PRIMARYKEY":  # the id is taken
                    continue
                raise
            if cursor.rowcount == 0:
                raise self._limit_error()
            self._on_change()
            return stored_task(new, task_id, values, now)
        raise TaskError("could not find a free task id; try again")

    async def add_many(self, news: Sequence[NewTask]) -> list[Task]:
        """Store many tasks in one transaction: all of them or, on any refusal, none."""
        now = self._clock.now()
        rows = [new_row(new, now) for new in news]
        async with self._db.write() as conn:
            await self._check_room(conn, news)
            ids = await _free_ids(conn, len(rows))
            await conn.executemany(_INSERT, [(i, *row) for i, row in zip(ids, rows, strict=True)])
        self._on_change()
        return [stored_task(n, i, row, now) for n, i, row in zip(news, ids, rows, strict=True)]

    async def get(self, user_id: int, task_id: str) -> Task:
        """The user's task with this id."""
        row = await self._one(
            f"SELECT {COLUMNS} FROM scheduled_tasks WHERE id = ? AND user_id = ?",
            (task_id.strip().lower(), user_id),
        )
        if row is None:
            raise TaskNotFoundError(f"you have no task {task_id!r}; /tasks lists yours", task_id)
        return Task.from_row(row)

    async def list_tasks(
        self, user_id: int, statuses: Sequence[TaskStatus] = LIVE, limit: int = 50
    ) -> list[Task]:
        """The user's tasks in these states, soonest first."""
        marks = ", ".join("?" * len(statuses))
        return await self._tasks(
            f"SELECT {COLUMNS} FROM scheduled_tasks WHERE user_id = ? AND status IN ({marks}) "
            "ORDER BY next_run LIMIT ?",
            (user_id, *statuses, limit),
        )

    async def operator_list(self, limit: int = 200) -> list[Task]:
        """Every live task of every user, soonest first: for the operator's command line only."""
        return await self._tasks(
            f"SELECT {COLUMNS} FROM scheduled_tasks WHERE status IN ('active', 'paused') "
            "ORDER BY next_run LIMIT ?",
            (limit,),
        )

    async def owner_of(self, task_id: str) -> int:
        """Whose task this is: for the operator's command line only."""
        row = await self._one(
            "SELECT user_id FROM scheduled_tasks WHERE id = ?", (task_id.strip().lower(),)
        )
        if row is None:
            raise TaskNotFoundError(f"there is no task {task_id!r}", task_id)
        return int(row[0])

    async def count_live(self, user_id: int) -> int:
        """How many of the user's tasks are active or paused."""
        row = await self._one(_LIVE_COUNT, (user_id,))
        return int(row[0]) if row else 0

    async def runs(self, user_id: int, task_id: str, limit: int = 10) -> list[Run]:
        """The latest runs of the user's task."""
        await self.get(user_id, task_id)
        async with self._db.read() as session:
            rows = await session.fetchall(
                "SELECT * FROM task_runs WHERE task_id = ? ORDER BY scheduled_for DESC LIMIT ?",
                (task_id.strip().lower(), limit),
            )
        return [Run.from_row(row) for row in rows]

    async def pause(self, user_id: int, task_id: str) -> Task:
        """Stop an active task from firing until it is resumed."""
        return await self._move(
            user_id, task_id, ("active",), "status = 'paused', paused_by = 'user'", ()
        )

    async def pause_blocked(self, user_id: int) -> int:
        """Pause every active task of a user who blocked the bot; return how many."""
        async with self._db.write() as session:
            cursor = await session.execute(
                "UPDATE scheduled_tasks SET status = 'paused', paused_by = 'blocked' "
                "WHERE user_id = ? AND status = 'active'",
                (user_id,),
            )
        return cursor.rowcount

    async def resume_blocked(self, user_id: int) -> list[Task]:
        """Resume the tasks paused because the user had blocked the bot (not their own)."""
        paused = await self._tasks(
            f"SELECT {COLUMNS} FROM scheduled_tasks WHERE user_id = ? AND status = 'paused' "
            "AND paused_by = 'blocked' ORDER BY next_run",
            (user_id,),
        )
        return [await self.resume(user_id, task.id) for task in paused]

    async def cancel(self, user_id: int, task_id: str) -> Task:
        """End an active or paused task for good; its history stays."""
        return await self._move(user_id, task_id, LIVE, "status = 'cancelled'", ())

    async def resume(self, user_id: int, task_id: str) -> Task:
        """Let a paused task fire again, from its next run after now: missed runs are skipped."""
        task = await self.get(user_id, task_id)
        now = self._clock.now()
        upcoming = max(task.due_at, now) if isinstance(task.schedule, Once) else None
        upcoming = upcoming or next_after(task.schedule, now) or now
        change = "status = 'active', paused_by = NULL, next_run = ?, due_at = ?, attempts = 0"
        return await self._move(user_id, task_id, ("paused",), change, (stamp(upcoming),) * 2)

    async def run_now(self, user_id: int, task_id: str) -> Task:
        """Fire an active task now; a recurring one then carries on with its schedule."""
        task = await self.get(user_id, task_id)
        if task.leased:
            raise TaskError(f"task {task.id} is running right now")
        change = "next_run = ?, due_at = ?, attempts = 0"
        when = stamp(self._clock.now())
        return await self._move(user_id, task_id, ("active",), change, (when, when))

    async def snooze(self, user_id: int, task_id: str, parsed: Parsed) -> Task:
        """A reminder again at ``parsed``: a one-shot keeps its id (and history); a recurring one
        keeps repeating, and the snooze is a new one-shot with the same words."""
        task = await self.get(user_id, task_id)
        if task.kind != "reminder":
            raise TaskError(f"task {task.id} is a {task.kind}; only reminders can be snoozed")
        if not isinstance(parsed.schedule, Once):
            raise TaskError("a snooze is one-shot, as in 'in 10m' or 'tomorrow 9am'")
        if isinstance(task.schedule, Once):
            return await self.edit(user_id, task_id, parsed, None, revive=True)
        return await self.add(
            NewTask(task.owner, "reminder", task.description, parsed, dict(task.execution))
        )

    async def edit(
        self,
        user_id: int,
        task_id: str,
        parsed: Parsed | None,
        text: str | None,
        *,
        revive: bool = False,
    ) -> Task:
        """Change a task's schedule, its words, or both; its id and run history stay.

        ``revive`` lets a finished one-shot come back (a snooze)."""
        task = await self.get(user_id, task_id)
        if parsed is None and text is None:
            raise TaskError("say what to change: a new time, new words, or both")
        description = checked_description(text) if text is not None else task.description
        execution: dict[str, object] = dict(task.execution)
        if text is not None and task.kind == "reminder":
            execution["text"] = description
        allowed: tuple[TaskStatus, ...] = (*LIVE, "done") if revive else LIVE
        changes, values = edit_values(description, execution, parsed)
        return await self._move(user_id, task.id, allowed, changes, values, unleased=True)

    async def rezone(self, user_id: int, before: str, after: str, now: datetime) -> int:
        """Move the person's live tasks kept in ``before`` to ``after``; how many moved."""
        # A clock time keeps its wall clock, a span from now its instant, a task made in another
        # zone its own; a task the scheduler holds gets its next run when its run ends.
        async with self._db.write() as session:
            rows = await session.fetchall(
                f"SELECT {COLUMNS}, lease_owner IS NOT NULL FROM scheduled_tasks"
                " WHERE user_id = ? AND timezone = ? AND status IN ('active', 'paused')",
                (user_id, before),
            )
            for row in rows:
                task, held = Task.from_row(row[:-1]), bool(row[-1])
                schedule = moved(task.schedule, after)
                run = schedule.at if isinstance(schedule, Once) else next_after(schedule, now)
                when = task.next_run if held else (run or task.next_run)
                await session.execute(
                    "UPDATE scheduled_tasks SET timezone = ?, schedule_data = ?, next_run = ?,"
                    " due_at = CASE WHEN lease_owner IS NULL THEN ? ELSE due_at END WHERE id = ?",
                    (after, to_json(schedule), stamp(when), stamp(when), task.id),
                )
        if rows:
            self._on_change()
        return len(rows)

    async def _move(
        self,
        user_id: int,
        task_id: str,
        allowed: Sequence[TaskStatus],
        change: str,
        values: tuple[object, ...],
        *,
        unleased: bool = False,
    ) -> Task:
        marks = ", ".join("?" * len(allowed))
        free = " AND lease_owner IS NULL" if unleased else ""
        async with self._db.write() as session:
            row = await session.fetchone(
                f"UPDATE scheduled_tasks SET {change} WHERE id = ? AND user_id = ? "
                f"AND status IN ({marks}){free} RETURNING {COLUMNS}",
                (*values, task_id.strip().lower(), user_id, *allowed),
            )
        if row is None:
            task = await self.get(user_id, task_id)
            if unleased and task.leased:
                raise TaskError(f"task {task.id} is running right now; try again in a moment")
            raise TaskError(
                f"task {task.id} is {task.status}; that needs it {' or '.join(allowed)}"
            )
        self._on_change()
        return Task.from_row(row)

    async def _one(self, sql: str, parameters: tuple[object, ...]) -> Row | None:
        async with self._db.read() as session:
            return await session.fetchone(sql, parameters)

    async def _tasks(self, sql: str, parameters: tuple[object, ...]) -> list[Task]:
        async with self._db.read() as session:
            rows = await session.fetchall(sql, parameters)
        return [Task.from_row(row) for row in rows]

    async def _check_room(self, conn: Session, news: Sequence[NewTask]) -> None:
        wanted: dict[int, int] = {}
        for new in news:
            wanted[new.owner.user_id] = wanted.get(new.owner.user_id, 0) + 1
        users = list(wanted)
        for start in range(0, len(users), 500):
            chunk = users[start : start + 500]
            async with conn.execute(
                "SELECT user_id, COUNT(*) FROM scheduled_tasks WHERE status IN "
                f"('active', 'paused') AND user_id IN ({', '.join('?' * len(chunk))}) "
                "GROUP BY user_id",
                chunk,
            ) as cursor:
                live = {row[0]: row[1] for row in await cursor.fetchall()}
            if any(live.get(user, 0) + wanted[user] > self._max_live for user in chunk):
                raise self._limit_error()

    def _limit_error(self) -> TaskError:
        return TaskError(
            f"you already have the most active or paused tasks allowed ({self._max_live}); "
            "cancel some with /cancel first"
        )


async def _free_ids(conn: Session, count: int) -> list[str]:
    ids: list[str] = []
    while len(ids) < count:
        fresh = list({new_id() for _ in range(count - len(ids))} - set(ids))
        taken: set[str] = set()
        for start in range(0, len(fresh), 500):
            chunk = fresh[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            async with conn.execute(
                f"SELECT id FROM scheduled_tasks WHERE id IN ({marks})", chunk
            ) as cursor:
                taken |= {row[0] for row in await cursor.fetchall()}
        ids += [i for i in fresh if i not in taken]
    return ids
