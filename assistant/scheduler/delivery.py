"""The seams between the scheduler and the world: executors by kind, and the outbox to users.

The scheduler imports no channel and no agent: the app injects an ``Outbox`` (the channel) and
one ``Executor`` per task kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol
from zoneinfo import ZoneInfo

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
        text = f"⏰ {firing.task.description}\n{footer(firing)}"
        notice = Notice(firing.task.owner, text, "reminder", firing.task.id)
        return Delivery(await self._outbox.deliver(notice), "sent")


def footer(firing: Firing) -> str:
    """The line under every fired message: its note, if any, and the task id."""
    note = f"({firing.note}) · " if firing.note else ""
    return f"{note}task {firing.task.id}"


def local_time(moment: datetime, zone: str, now: datetime) -> str:
    """``14:05`` when ``moment`` is today in ``zone``, else ``Sat 14 Mar 14:05``."""
    tz = ZoneInfo(zone)
    there = moment.astimezone(tz)
    if there.date() == now.astimezone(tz).date():
        return f"{there:%H:%M}"
    return f"{there:%a %d %b %H:%M}"
