"""Tasks leased a little before they are due, so that their time comes with them in memory.

The scheduler reserves what falls due within its read-ahead (up to a bound): the lease is
written and the rows are read while nothing is due yet. When the instant comes, only the runs
are recorded, in batches, before the workers take them; a burst of thousands due at the same
second then costs a write, not a read and a parse of every row.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Iterable
from datetime import datetime

from assistant.tasks.task import Task


class ReadAhead:
    """Reserved tasks in the order they fall due, at most ``limit`` of them."""

    def __init__(self, limit: int, early: Callable[[Task], bool] = lambda task: False) -> None:
        self._limit = limit
        self._early = early  # whose runs may start a moment before their time
        self._tasks: deque[Task] = deque()

    def _order(self, task: Task) -> tuple[datetime, bool]:
        # Of tasks due together, those that may start early go first: one that may not, ahead
        # of them, would hold them back until the instant itself.
        return task.next_run, not self._early(task)

    def __len__(self) -> int:
        return len(self._tasks)

    @property
    def room(self) -> int:
        """How many more tasks may be reserved."""
        return self._limit - len(self._tasks)

    def add(self, tasks: Iterable[Task]) -> None:
        """Hold these reserved tasks until their time."""
        batch = sorted(tasks, key=self._order)  # a reserve's kinds, each in time order
        if not batch:
            return
        if not self._tasks or self._order(self._tasks[-1]) <= self._order(batch[0]):
            self._tasks.extend(batch)  # the usual case: they fall due after all held
        else:  # a task added since falls due before some held: one merge
            self._tasks = deque(heapq.merge(self._tasks, batch, key=self._order))

    def next_due(self) -> datetime | None:
        """When the earliest reserved task is due."""
        return self._tasks[0].next_run if self._tasks else None

    def first(self) -> Task | None:
        """The earliest reserved task, left in place."""
        return self._tasks[0] if self._tasks else None

    def due(self, now: datetime, most: int, until: datetime | None = None) -> list[Task]:
        """Take up to ``most`` reserved tasks whose time has come, earliest first; those that
        may start early may be taken when due by ``until``."""
        taken: list[Task] = []
        early = self._early
        while self._tasks and len(taken) < most:
            task = self._tasks[0]
            if task.next_run > now and (until is None or task.next_run > until or not early(task)):
                break
            taken.append(self._tasks.popleft())
        return taken

    def take_all(self) -> list[Task]:
        """Take every reserved task (the scheduler is stopping)."""
        taken, self._tasks = list(self._tasks), deque()
        return taken
