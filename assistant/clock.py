"""The injected clock: production reads the system time, tests advance a fake one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Where the current time comes from; always timezone-aware UTC."""

    def now(self) -> datetime:
        """Return the current time in UTC."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> datetime:
        """Return the current time in UTC."""
        return datetime.now(UTC)


class FakeClock:
    """A clock that moves only when told to, for tests and benchmarks."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FakeClock needs a timezone-aware start time")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        """Return the current fake time in UTC."""
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move the clock forward and return the new time."""
        if delta < timedelta(0):
            raise ValueError("a clock does not go backwards")
        self._now += delta
        return self._now
