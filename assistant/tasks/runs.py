"""A run's values (a firing, a dropped run, an outcome) and the rows they are written as."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from assistant.redaction import redact_text, redacted_json
from assistant.schedules.schedule import next_after
from assistant.tasks.task import STAMP_RESOLUTION, Task, stamp

RESULT_CHARS = 500
AUDIT_OUTCOMES = {"ok": "ok", "error": "error", "retry": "error", "released": "cancelled"}


@dataclass(frozen=True)
class Firing:
    """A claimed run to execute now, with the note its message carries (late, retried)."""

    task: Task
    scheduled_for: datetime
    note: str = ""
    replay: bool = False  # a run a crash interrupted, fired again
    skipped: int = 0  # earlier runs of a late repeating task that this one stands for


@dataclass(frozen=True)
class Dropped:
    """A claimed run that will not execute: missed beyond the grace window, or skipped."""

    task: Task
    scheduled_for: datetime
    status: Literal["missed", "skipped", "abandoned"]
    reason: str


@dataclass(frozen=True)
class Outcome:
    """How a run ended: done (ok or failed for good), to retry later, released unfinished, or
    returned unstarted (claimed, then the scheduler stopped before a worker took it)."""

    task: Task
    scheduled_for: datetime
    status: Literal["ok", "error", "retry", "released", "returned"]
    finished_at: datetime
    message_id: int | None = None
    error: str = ""
    retry_at: datetime | None = None
    started_at: datetime | None = None
    summary: str = ""
    replay: bool = False


def delivered(
    firing: Firing, started: datetime, finished: datetime, message_id: int | None, summary: str
) -> Outcome:
    """A run that went out: the ``Outcome`` of each run of a burst, made on the event loop."""
    return Outcome(
        firing.task,
        firing.scheduled_for,
        "ok",
        finished,
        message_id,
        started_at=started,
        summary=summary,
    )


Plan = Firing | Dropped


def on_time(plan: Plan) -> bool:
    """A firing at its task's due time with nothing to note: its run row needs no more."""
    return isinstance(plan, Firing) and not plan.note and plan.scheduled_for == plan.task.due_at


def run_key(outcome: Outcome) -> tuple[str, str]:
    """The key of a run's row: its task and its slot."""
    return outcome.task.id, stamp(outcome.scheduled_for)


Row = dict[str, object]  # one row of a batch write, by column name (see scheduler/queue.py)


def end_row(outcome: Outcome) -> Row:
    """How a run ended, as the row of its end."""
    return {
        "status": "ok" if outcome.status == "ok" else "error",
        "finished_at": stamp(outcome.finished_at),
        "message_id": outcome.message_id,
        "error": outcome.error,
        "task_id": outcome.task.id,
        "scheduled_for": stamp(outcome.scheduled_for),
    }


def audit_row(outcome: Outcome) -> Row:
    """A scheduled run as an audit row, like a model's call: its arguments are redacted."""
    task, started = outcome.task, outcome.started_at or outcome.finished_at
    error = outcome.error
    if outcome.status == "retry" and outcome.retry_at:
        error = f"{error} (retrying at {stamp(outcome.retry_at)})"
    return {
        "at": outcome.finished_at.isoformat(),
        "request_id": f"task:{task.id}",
        "call_id": stamp(outcome.scheduled_for),
        "user_id": task.owner.user_id,
        "tool": task.kind,
        "arguments": redacted_json(task.execution),
        "outcome": AUDIT_OUTCOMES[outcome.status],
        "result": redact_text(outcome.summary[:RESULT_CHARS]),
        "error": redact_text(error[:RESULT_CHARS]),
        "duration_ms": max(0, round((outcome.finished_at - started).total_seconds() * 1000)),
        "task_id": task.id,
    }


def advance_row(task: Task, slot: datetime, now: datetime, error: str) -> Row:
    """The task moved past a slot: its last run, its next one (none: done), its error."""
    # The slot is stored to the millisecond; the schedule's own instant may lie within that
    # millisecond after it, and must not count as the next run of the one that just ran.
    following = next_after(task.schedule, max(slot + STAMP_RESOLUTION, now))
    return {
        "last_run": stamp(slot),
        "next_run": stamp(following) if following else None,
        "error": error,
        "id": task.id,
    }


def retry_row(outcome: Outcome, retry_at: datetime) -> Row:
    """A run to try again: when, and why the last try failed."""
    return {"next_run": stamp(retry_at), "error": outcome.error, "id": outcome.task.id}


def run_row(plan: Plan, at: str) -> Row:
    """A run as recorded when claimed: running, or closed as it will not fire."""
    row: Row = {"task_id": plan.task.id, "scheduled_for": stamp(plan.scheduled_for)}
    if isinstance(plan, Firing):
        ended = {"status": "running", "started_at": at, "finished_at": None, "error": ""}
        return row | ended | {"note": plan.note}
    ended = {"status": plan.status, "started_at": None, "finished_at": at, "error": plan.reason}
    return row | ended | {"note": ""}
