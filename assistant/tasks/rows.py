"""A task as the row it is stored as: the row of a new task, the columns of an edit, and
the task a stored row stands for, built from the same strings."""

from __future__ import annotations

import json
from datetime import datetime
from typing import NamedTuple

from assistant.errors import TaskError
from assistant.schedules.parsed import Parsed
from assistant.schedules.schedule import to_json
from assistant.tasks.task import KINDS, NewTask, Task, stamp

MAX_DESCRIPTION = 2000
NEW_COLUMNS = (  # a new task's, its id first
    "id, user_id, chat_id, task_type, description, schedule_type, schedule_data, schedule_text, "
    "timezone, execution_data, misfire, created_at, next_run, due_at"
)
_COMPACT = json.JSONEncoder(separators=(",", ":"), sort_keys=True)


class NewRow(NamedTuple):
    """The row of a new task, less its id, in ``NEW_COLUMNS`` order."""

    user_id: int
    chat_id: int
    kind: str
    description: str
    schedule_kind: str
    schedule_json: str
    schedule_text: str
    zone: str
    execution_json: str
    misfire: str
    created_at: str
    next_run: str
    due_at: str


def new_row(new: NewTask, now: datetime) -> NewRow:
    """The row a new task is stored as (its strings built once, for the row and the task)."""
    if new.kind not in KINDS:
        raise TaskError(f"unknown task kind {new.kind!r}; known: {', '.join(KINDS)}")
    description = checked_description(new.description)
    try:
        execution = _COMPACT.encode(dict(new.execution))
    except (TypeError, ValueError) as exc:
        raise TaskError(f"the task's parameters are not plain JSON: {exc}") from None
    first = stamp(new.parsed.first_run)
    schedule = new.parsed.schedule
    return NewRow(
        new.owner.user_id,
        new.owner.chat_id,
        new.kind,
        description,
        schedule.kind,
        to_json(schedule),
        spoken(new.parsed),
        schedule.zone,
        execution,
        new.misfire,
        stamp(now),
        first,
        first,
    )


def checked_description(text: str) -> str:
    """A task's words, trimmed; empty or oversized words are refused."""
    description = text.strip()
    if not description:
        raise TaskError("a task needs a description: what should it say or do?")
    if len(description) > MAX_DESCRIPTION:
        raise TaskError(f"a description is at most {MAX_DESCRIPTION} characters")
    return description


def spoken(parsed: Parsed) -> str:
    """How a schedule reads in lists: its normalized description, without the zone."""
    return parsed.description.removesuffix(f", {parsed.schedule.zone}")


def edit_values(
    description: str, execution: dict[str, object], parsed: Parsed | None
) -> tuple[str, tuple[object, ...]]:
    """The SET clause and its values for an edit; a new schedule starts afresh."""
    change = "description = ?, execution_data = ?"
    values: list[object] = [
        description,
        _COMPACT.encode(execution),
    ]
    if parsed is not None:
        first = stamp(parsed.first_run)
        change += (
            ", schedule_type = ?, schedule_data = ?, schedule_text = ?, timezone = ?,"
            " next_run = ?, due_at = ?, attempts = 0, last_error = '',"
            # a paused task stays paused; a finished one-shot comes back (a snooze)
            " status = CASE status WHEN 'paused' THEN 'paused' ELSE 'active' END"
        )
        schedule = parsed.schedule
        values += [schedule.kind, to_json(schedule), spoken(parsed), schedule.zone, first, first]
    return change, tuple(values)


def stored_task(new: NewTask, task_id: str, row: NewRow, now: datetime) -> Task:
    """The task just stored as ``row`` (what ``new_row`` made of ``new``)."""
    return Task(
        id=task_id,
        owner=new.owner,
        kind=new.kind,
        description=row.description,
        schedule_kind=new.parsed.schedule.kind,
        schedule_json=row.schedule_json,
        schedule_text=row.schedule_text,
        timezone=new.parsed.schedule.zone,
        execution_json=row.execution_json,
        misfire=new.misfire,
        status="active",
        created_at=now,
        last_run=None,
        next_run=new.parsed.first_run,
        due_at=new.parsed.first_run,
        attempts=0,
        last_error="",
        leased=False,
    )
