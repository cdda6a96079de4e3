"""Tasks leased a little before they are due, so that their time comes with them in memory.

The scheduler reserves what falls due within its read-ahead (up to a bound): the lease is
written and the rows are read while nothing is due yet. When the instant comes, only the runs
are recorded, in batches, before the workers take them; a burst of thousands due at the same
second then costs a write, not a read and a parse of every row.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable
from datetime import datetime

from assistant.tasks.task import Task


class ReadAhead:
    """Reserved tasks in the order they fall due, at most ``limit`` of them."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        # A heap: adding a batch costs its own size, however many are already held.
        self._tasks: list[tuple[datetime, int, Task]] = []
        self._order = itertools.count()  # ties keep the order they were reserved in

    def __len__(self) -> int:
        return len(self._tasks)

    @property
    def room(self) -> int:
        """How many more tasks may be reserved."""
        return self._limit - len(self._tasks)

    def add(self, tasks: Iterable[Task]) -> None:
        """Hold these reserved tasks until their time."""
        for task in tasks:
            heapq.heappush(self._tasks, (task.next_run, next(self._order), task))

    def next_due(self) -> datetime | None:
        """When the earliest reserved task is due."""
        return self._tasks[0][0] if self._tasks else None

    def due(self, now: datetime, most: int) -> list[Task]:
        """Take up to ``most`` reserved tasks whose time has come, earliest first."""
        taken: list[Task] = []
        while self._tasks and len(taken) < most and self._tasks[0][0] <= now:
            taken.append(heapq.heappop(self._tasks)[2])
        return taken

    def take_all(self) -> list[Task]:
        """Take every reserved task (the scheduler is stopping)."""
        taken = [entry[2] for entry in sorted(self._tasks)]
        self._tasks = []
        return taken
