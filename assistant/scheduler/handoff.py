"""Claimed runs waiting for a worker: handed over in bulk, taken one at a time.

``asyncio.Queue`` wakes a waiting getter on every put and makes every get a coroutine: in a
burst of 10,000 runs that was a fifth of the firing. Here a batch is appended at once and
wakes as many idle workers as it has runs; a worker takes runs without awaiting while any
are waiting.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from typing import Generic, TypeVar

T = TypeVar("T")


class Handoff(Generic[T]):
    """Runs of one kind waiting for a worker, first in first out."""

    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._idle: deque[asyncio.Future[None]] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def extend(self, items: Iterable[T]) -> None:
        """Hand runs over, and wake an idle worker for each."""
        before = len(self._items)
        self._items.extend(items)
        woken, added = 0, len(self._items) - before
        while woken < added and self._idle:
            idle = self._idle.popleft()
            if not idle.done():  # a cancelled worker's wait is skipped
                idle.set_result(None)
                woken += 1

    def take(self) -> T:
        """The oldest run waiting (there must be one: check ``len`` first)."""
        return self._items.popleft()

    def take_all(self) -> list[T]:
        """Every run still waiting, oldest first; none is left."""
        items = list(self._items)
        self._items.clear()
        return items

    async def wait(self) -> None:
        """Return once a run may be waiting (another worker may have taken it since)."""
        idle = asyncio.get_running_loop().create_future()
        self._idle.append(idle)
        await idle
