"""Runs started ahead of their time: their rows are written, only their firing is left."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Collection, Iterable
from datetime import datetime, timedelta

from assistant.clock import Clock, event_or_time
from assistant.tasks.runs import Plan
from assistant.tasks.task import Task

# A reserved run that is safe to repeat (a reminder, a GET) is started ahead of its time, so
# that only its firing is left at the instant: this long before it, and START_PER_RUN more for
# each run still reserved (up to START_AHEAD_MAX), so that a burst is started before its time
# comes; the lead shrinks as its runs are started. A stop returns it unrun, and so does a
# cancel or a pause (at the next wake), or a crash (at the restart, or with the restart's note
# once its time has come, as it may have gone out).
START_AHEAD = timedelta(milliseconds=250)
START_PER_RUN = timedelta(microseconds=30)  # a run's start costs 10-30 µs of the database's
START_AHEAD_MAX = timedelta(seconds=3)
GROUP = timedelta(milliseconds=100)  # those due this soon after are started with it: one write
START_GROUP = START_AHEAD + GROUP


def lead(reserved: int) -> timedelta:
    """How long before its time a run safe to repeat is started, with ``reserved`` waiting."""
    return min(START_AHEAD + START_PER_RUN * reserved, START_AHEAD_MAX)


class Started:
    """Started runs in the order of their tasks' next runs (a retry's next run is its retry
    time, later than the slot the run is for), with a wait for the earliest one's time."""

    def __init__(self) -> None:
        self._plans: deque[Plan] = deque()
        self._more = asyncio.Event()

    def __len__(self) -> int:
        return len(self._plans)

    def add(self, plans: Iterable[Plan]) -> None:
        """Hold runs just started (later than those held), and wake the wait."""
        self._plans.extend(plans)
        self._more.set()

    def first(self) -> datetime | None:
        """When the earliest held run is to fire."""
        return self._plans[0].task.next_run if self._plans else None

    def due(self, now: datetime) -> list[Plan]:
        """Take the runs whose time has come."""
        due = []
        while self._plans and self._plans[0].task.next_run <= now:
            due.append(self._plans.popleft())
        return due

    def take(self, ids: Collection[str]) -> list[Plan]:
        """Take the held runs of these tasks."""
        taken = [p for p in self._plans if p.task.id in ids]
        self._plans = deque(p for p in self._plans if p.task.id not in ids)
        return taken

    def take_all(self) -> list[Plan]:
        """Take every held run."""
        plans = list(self._plans)
        self._plans.clear()
        return plans

    def tasks(self) -> list[Task]:
        """The held runs' tasks."""
        return [p.task for p in self._plans]

    def wake(self) -> None:
        """End the wait now (to stop)."""
        self._more.set()

    async def wait(self, clock: Clock) -> None:
        """Wait until the earliest run's time or until more are added."""
        await event_or_time(self._more, clock, self.first())
        self._more.clear()
