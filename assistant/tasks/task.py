"""Tasks and runs as values, and how they map to their rows."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal, get_args

from assistant.schedules.parsed import Parsed
from assistant.schedules.schedule import Schedule, ScheduleKind, from_json

TaskKind = Literal["reminder", "api_call", "web_search", "agent_task"]
TaskStatus = Literal["active", "paused", "done", "cancelled"]
RunStatus = Literal["running", "ok", "error", "missed", "abandoned", "skipped"]
Misfire = Literal["catch_up", "skip"]

KINDS: tuple[TaskKind, ...] = get_args(TaskKind)  # the kinds are declared once, above
# The columns a Task is read from; ``Task.from_row`` reads each by its name.
COLUMN_NAMES = (
    "id", "user_id", "chat_id", "task_type", "description", "schedule_type", "schedule_data",
    "schedule_text", "timezone", "execution_data", "misfire", "status", "created_at", "last_run",
    "next_run", "due_at", "attempts", "last_error", "lease_owner",
)  # fmt: skip
COLUMNS = ", ".join(COLUMN_NAMES)
LIVE: tuple[TaskStatus, ...] = ("active", "paused")


STAMP_RESOLUTION = timedelta(milliseconds=1)


def stamp(moment: datetime) -> str:
    """A UTC instant as stored: fixed-width ISO 8601, so text order is time order."""
    if moment.tzinfo is not UTC:  # read-back and clock times are UTC already: skip the convert
        moment = moment.astimezone(UTC)
    return moment.isoformat(timespec="milliseconds")


def unstamp(text: str) -> datetime:
    """Read back what ``stamp`` stored."""
    return datetime.fromisoformat(text)


@dataclass(frozen=True)
class Owner:
    """Who a task belongs to and where its messages go."""

    user_id: int
    chat_id: int


@dataclass(frozen=True)
class NewTask:
    """What it takes to add a task: its owner, kind, words, schedule and what to do."""

    owner: Owner
    kind: TaskKind
    description: str
    parsed: Parsed
    execution: Mapping[str, Any] = field(default_factory=dict)
    misfire: Misfire = "catch_up"


@dataclass(frozen=True)
class Task:
    """A stored task as its owner and the scheduler see it.

    Its schedule and what it does are kept as stored (JSON) and read on first use: a claimed
    reminder fires without either being parsed, and the parse happens once it is settled.
    """

    id: str
    owner: Owner
    kind: TaskKind
    description: str
    schedule_kind: ScheduleKind
    schedule_json: str = field(repr=False)
    schedule_text: str
    timezone: str
    execution_json: str = field(repr=False)
    misfire: Misfire
    status: TaskStatus
    created_at: datetime
    last_run: datetime | None
    next_run: datetime
    due_at: datetime
    attempts: int
    last_error: str
    leased: bool

    @cached_property
    def schedule(self) -> Schedule:
        """The normalized schedule."""
        return from_json(self.schedule_json)

    @cached_property
    def execution(self) -> Mapping[str, Any]:
        """What the task does (its kind's stored data), read-only."""
        return MappingProxyType(json.loads(self.execution_json))

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Task:
        """Build a task from a row of ``COLUMNS`` (any columns after them are ignored)."""
        column = dict(zip(COLUMN_NAMES, row, strict=False))
        at, last = datetime.fromisoformat, column["last_run"]
        return cls(
            id=column["id"],
            owner=Owner(column["user_id"], column["chat_id"]),
            kind=column["task_type"],
            description=column["description"],
            schedule_kind=column["schedule_type"],
            schedule_json=column["schedule_data"],
            schedule_text=column["schedule_text"],
            timezone=column["timezone"],
            execution_json=column["execution_data"],
            misfire=column["misfire"],
            status=column["status"],
            created_at=at(column["created_at"]),
            last_run=at(last) if last else None,
            next_run=at(column["next_run"]),
            due_at=at(column["due_at"]),
            attempts=column["attempts"],
            last_error=column["last_error"],
            leased=column["lease_owner"] is not None,
        )


@dataclass(frozen=True)
class Run:
    """One firing of a task, keyed by the time it was scheduled for."""

    task_id: str
    scheduled_for: datetime
    status: RunStatus
    attempt: int
    started_at: datetime | None
    finished_at: datetime | None
    message_id: int | None
    note: str
    error: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Run:
        """Build a run from a ``task_runs`` row."""
        return cls(
            task_id=row["task_id"],
            scheduled_for=unstamp(row["scheduled_for"]),
            status=row["status"],
            attempt=row["attempt"],
            started_at=unstamp(row["started_at"]) if row["started_at"] else None,
            finished_at=unstamp(row["finished_at"]) if row["finished_at"] else None,
            message_id=row["message_id"],
            note=row["note"],
            error=row["error"],
        )
