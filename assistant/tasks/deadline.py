"""Run timeouts that share their timers: one timer per slice of time, not one per run.

``asyncio.timeout`` arms a timer on the event loop for each use; in a burst of thousands of
short runs, arming and cancelling those timers was a third of the loop's work. Here a run
enters an ``asyncio.Timeout`` with no deadline and joins the slice its deadline falls in; one
timer per slice expires the runs still in it through that same Timeout, so a run that takes
too long ends exactly as under ``asyncio.timeout`` (a ``TimeoutError`` out of the block, a
cancellation from outside kept as one). A run ends at most one slice after its deadline.
"""

from __future__ import annotations

import asyncio
import math
from types import TracebackType

SLICES = 16  # per timeout: a run may end up to 1/16 of its timeout late


class Deadlines:
    """A timeout of ``seconds`` for many runs at once, on one timer per slice."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._width = seconds / SLICES
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slices: dict[int, set[asyncio.Timeout]] = {}

    def within(self) -> _Within:
        """A context manager that cancels its block once the timeout has passed."""
        return _Within(self)

    def _join(self, timeout: asyncio.Timeout) -> set[asyncio.Timeout]:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new loop: the old one's timers will never fire
            self._loop, self._slices = loop, {}
        key = math.ceil((loop.time() + self.seconds) / self._width)
        members = self._slices.get(key)
        if members is None:
            members = self._slices[key] = set()
            loop.call_at(key * self._width, self._expire, key)
        members.add(timeout)
        return members

    def _expire(self, key: int) -> None:
        for timeout in self._slices.pop(key, ()):
            timeout.reschedule(0)  # in the past: asyncio's Timeout expires on the next step


class _Within:
    """One run under a ``Deadlines``' timeout."""

    __slots__ = ("_deadlines", "_members", "_timeout")

    _members: set[asyncio.Timeout]  # the slice it joined, once entered

    def __init__(self, deadlines: Deadlines) -> None:
        self._deadlines = deadlines
        self._timeout = asyncio.Timeout(None)

    async def __aenter__(self) -> None:
        await self._timeout.__aenter__()
        self._members = self._deadlines._join(self._timeout)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._members.discard(self._timeout)
        await self._timeout.__aexit__(exc_type, exc, traceback)  # raises TimeoutError if expired
