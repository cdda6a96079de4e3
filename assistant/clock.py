"""The injected clock: production reads the system time, tests advance a fake one."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# asyncio sleeps on the monotonic clock; re-reading the wall clock this often keeps a long
# wait right when the machine was suspended or its clock was stepped.
WALL_CHECK_SECONDS = 30.0


MAX_ZONE_NAME = 64
# Files in the zone folders that load as zones and are none: this machine's zone under
# another's name, the rules' template, a zone that means "not set", and the copies of every
# zone kept with other conventions (leap seconds counted, POSIX's).
NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})
NOT_ZONE_FOLDERS = ("posix/", "right/")


def zone_or_none(name: str) -> ZoneInfo | None:
    """The IANA timezone ``name``, or None for anything else (a folder such as ``Europe``, a
    300-character string, a path, ``localtime``, ``right/UTC``); never an ``OSError``."""
    if not name or len(name) > MAX_ZONE_NAME or name.startswith(("/", ".")) or ".." in name:
        return None
    if name in NOT_ZONES or name.startswith(NOT_ZONE_FOLDERS):
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def shorten(text: str, limit: int = 40) -> str:
    """``text`` quoted once, cut with an ellipsis past ``limit`` characters."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class Clock(Protocol):
    """Where the current time comes from; always timezone-aware UTC."""

    def now(self) -> datetime:
        """Return the current time in UTC."""
        ...

    async def sleep_until(self, when: datetime) -> None:
        """Return once the clock reads ``when`` or later."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> datetime:
        """Return the current time in UTC."""
        return datetime.now(UTC)

    async def sleep_until(self, when: datetime) -> None:
        """Sleep until the wall clock reaches ``when``."""
        while (left := (when - self.now()).total_seconds()) > 0:  # noqa: ASYNC110 - wall clock
            await asyncio.sleep(min(left, WALL_CHECK_SECONDS))


class FakeClock:
    """A clock that moves only when told to, for tests and benchmarks."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FakeClock needs a timezone-aware start time")
        self._now = start.astimezone(UTC)
        self._sleepers: list[tuple[datetime, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> datetime:
        """Return the current fake time in UTC."""
        return self._now

    async def sleep_until(self, when: datetime) -> None:
        """Wait until ``advance`` moves the clock to ``when`` or past it."""
        if when <= self._now:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (when, next(self._order), future))
        await future

    def advance(self, delta: timedelta) -> datetime:
        """Move the clock forward, wake the sleepers now due, and return the new time."""
        if delta < timedelta(0):
            raise ValueError("a clock does not go backwards")
        self._now += delta
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)
        return self._now

    def sleepers(self, until: datetime | None = None) -> int:
        """How many waits are pending (those due by ``until``), so a test can tell that
        something is asleep."""
        return sum(
            not future.done() and (until is None or when <= until)
            for when, _, future in self._sleepers
        )


async def event_or_time(event: asyncio.Event, clock: Clock, until: datetime | None) -> None:
    """Wait until the event is set or the clock reaches ``until`` (None: no time limit)."""
    waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(event.wait())}
    if until is not None:
        waits.add(asyncio.ensure_future(clock.sleep_until(until)))
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()
        await asyncio.gather(*waits, return_exceptions=True)
