"""Run timeouts that share their timers: one timer per slice of time, not one per run.

``asyncio.timeout`` arms a timer on the event loop for each use; in a burst of thousands of
short runs, arming and cancelling those timers was a third of the loop's work. Here a run
joins the slice its deadline falls in, and one timer per slice expires the runs still in it,
as ``asyncio.Timeout`` expires its own: the run's task is cancelled, and the cancellation
leaves the block as a ``TimeoutError`` (one from outside stays a cancellation). A run ends at
most one slice after its deadline. The block is ``asyncio.Timeout``'s own logic without its
state machine and timer handle, and synchronous (nothing in it awaits): entering and leaving it
cost a third as much.
"""

from __future__ import annotations

import asyncio
import math
from types import TracebackType
from typing import Any

SLICES = 16  # per timeout: a run may end up to 1/16 of its timeout late


class Deadlines:
    """A timeout of ``seconds`` for many runs at once, on one timer per slice."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._width = seconds / SLICES
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slices: dict[int, set[_Within]] = {}

    def within(self) -> _Within:
        """A context manager that cancels its block once the timeout has passed."""
        return _Within(self)

    def _join(self, run: _Within) -> set[_Within]:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new loop: the old one's timers will never fire
            self._loop, self._slices = loop, {}
        key = math.ceil((loop.time() + self.seconds) / self._width)
        members = self._slices.get(key)
        if members is None:
            members = self._slices[key] = set()
            loop.call_at(key * self._width, self._expire, key)
        members.add(run)
        return members

    def _expire(self, key: int) -> None:
        for run in self._slices.pop(key, ()):
            run.expire()


class _Within:
    """One run under a ``Deadlines``' timeout."""

    __slots__ = ("_cancelling", "_deadlines", "_expired", "_members", "_task")

    _task: asyncio.Task[Any]
    _cancelling: int  # cancellations already asked of the task when the block began
    _members: set[_Within]  # the slice it joined

    def __init__(self, deadlines: Deadlines) -> None:
        self._deadlines, self._expired = deadlines, False

    def __enter__(self) -> None:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("a deadline is kept only inside a task")
        self._task, self._cancelling = task, task.cancelling()
        self._members = self._deadlines._join(self)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._members.discard(self)
        # As asyncio.Timeout: an expired block takes its cancellation back (always), and it
        # leaves as a TimeoutError unless the task was also cancelled from outside.
        if (
            self._expired
            and self._task.uncancel() <= self._cancelling
            and exc_type is not None
            and issubclass(exc_type, asyncio.CancelledError)
        ):
            raise TimeoutError from exc

    def expire(self) -> None:
        """The deadline passed: cancel the run's task."""
        self._expired = True
        self._task.cancel()
