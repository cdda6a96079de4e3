"""Tasks and runs as values, and how they map to their rows."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Literal

from assistant.tasks.reading import Parsed
from assistant.tasks.schedule import Schedule, from_json

TaskKind = Literal["reminder", "api_call", "web_search", "agent_task"]
TaskStatus = Literal["active", "paused", "done", "cancelled"]
RunStatus = Literal["running", "ok", "error", "missed", "abandoned", "skipped"]
Misfire = Literal["catch_up", "skip"]

KINDS: tuple[TaskKind, ...] = ("reminder", "api_call", "web_search", "agent_task")
LIVE: tuple[TaskStatus, ...] = ("active", "paused")


def stamp(moment: datetime) -> str:
    """A UTC instant as stored: fixed-width ISO 8601, so text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


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
    """A stored task as its owner and the scheduler see it."""

    id: str
    owner: Owner
    kind: TaskKind
    description: str
    schedule: Schedule
    schedule_text: str
    timezone: str
    execution: Mapping[str, Any]
    misfire: Misfire
    status: TaskStatus
    created_at: datetime
    last_run: datetime | None
    next_run: datetime
    due_at: datetime
    attempts: int
    last_error: str
    leased: bool

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Task:
        """Build a task from a ``scheduled_tasks`` row."""
        return cls(
            id=row["id"],
            owner=Owner(row["user_id"], row["chat_id"]),
            kind=row["task_type"],
            description=row["description"],
            schedule=from_json(row["schedule_data"]),
            schedule_text=row["schedule_text"],
            timezone=row["timezone"],
            execution=MappingProxyType(json.loads(row["execution_data"])),
            misfire=row["misfire"],
            status=row["status"],
            created_at=unstamp(row["created_at"]),
            last_run=unstamp(row["last_run"]) if row["last_run"] else None,
            next_run=unstamp(row["next_run"]),
            due_at=unstamp(row["due_at"]),
            attempts=row["attempts"],
            last_error=row["last_error"],
            leased=row["lease_owner"] is not None,
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
