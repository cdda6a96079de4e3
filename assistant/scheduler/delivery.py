"""The seams between the scheduler and the world: executors by kind, and the outbox to users.

The scheduler imports no channel and no agent: the app injects an ``Outbox`` (the channel) and
one ``Executor`` per task kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Literal, Protocol
from zoneinfo import ZoneInfo

from assistant.locales import ENGLISH, ntr, tr
from assistant.locales.dates import moment
from assistant.tasks.runs import Firing
from assistant.tasks.task import Owner, Task

NoticeKind = Literal["reminder", "result", "report"]


@dataclass(frozen=True)
class Notice:
    """A message for a user; a channel may add buttons (snooze, cancel) by kind and task id."""

    owner: Owner
    text: str
    kind: NoticeKind = "report"
    task_id: str | None = None
    # The notice in its owner's language, when it can be said in any: the outbox asks it with
    # the language kept for the person; ``text`` is its English.
    words: Callable[[str], str] | None = field(default=None, compare=False)
    language: str = ENGLISH  # the one ``text`` is in, for the channel's buttons


@dataclass(frozen=True)
class Delivery:
    """What a run produced: the channel's message id once it arrived, and a short summary."""

    message_id: int | None
    summary: str = ""


class Outbox(Protocol):
    """Sends notices to users through a channel."""

    async def deliver(self, notice: Notice) -> int:
        """Send and return the channel's message id; raise ``RetryableRunError`` if it may pass."""
        ...


class Executor(Protocol):
    """Runs the tasks of one kind."""

    def replayable(self, task: Task) -> bool:
        """Whether running this task twice is harmless, so a run cut by a crash is repeated."""
        ...

    async def run(self, firing: Firing) -> Delivery:
        """Do the task and deliver its result; raise ``RunError`` to fail, retryable or not."""
        ...


class ReminderExecutor:
    """Sends a reminder's words; repeating one after a crash is cheap, losing one is not."""

    def __init__(self, outbox: Outbox) -> None:
        self._outbox = outbox

    def replayable(self, task: Task) -> bool:
        """Reminders are delivered at least once."""
        return True

    async def run(self, firing: Firing) -> Delivery:
        """Send the reminder with its task id and any late note."""
        words = partial(_reminder, firing)
        notice = Notice(firing.task.owner, words(ENGLISH), "reminder", firing.task.id, words)
        return Delivery(await self._outbox.deliver(notice), "sent")


def _reminder(firing: Firing, language: str) -> str:
    return f"⏰ {firing.task.description}\n{footer(firing, language)}"


def footer(firing: Firing, language: str = ENGLISH) -> str:
    """The line under every fired message: its note, if any, and the task id."""
    said = tr(language, "task {id}", id=firing.task.id)
    note = _note(firing, language)
    return f"({note}) · {said}" if note else said


def _note(firing: Firing, language: str) -> str:
    """Why a run is not plain: a replay, a retry, or late (and how many runs it stands for)."""
    if firing.replay:
        return tr(language, "sent again after a restart; it may have arrived already")
    if firing.task.attempts:
        return tr(language, "attempt {n}", n=firing.task.attempts + 1)
    if not firing.note:
        return ""
    due = moment(firing.scheduled_for, firing.task.timezone, language)
    late = tr(language, "late: was due {when}", when=due)
    if firing.skipped:
        missed = ntr(language, "{n} earlier run missed", "{n} earlier runs missed", firing.skipped)
        return f"{late}; {missed}"
    return late


def local_time(moment: datetime, zone: str, now: datetime) -> str:
    """``14:05`` when ``moment`` is today in ``zone``, else ``Sat 14 Mar 14:05``."""
    tz = ZoneInfo(zone)
    there = moment.astimezone(tz)
    if there.date() == now.astimezone(tz).date():
        return f"{there:%H:%M}"
    return f"{there:%a %d %b %H:%M}"
