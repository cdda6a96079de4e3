"""The clocks: the fake one wakes its sleepers only when advanced."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from assistant.clock import FakeClock, SystemClock

START = datetime(2026, 3, 14, 9, 0, tzinfo=UTC)


async def test_a_fake_sleeper_wakes_when_the_clock_reaches_its_time() -> None:
    clock = FakeClock(START)
    early = asyncio.ensure_future(clock.sleep_until(START + timedelta(minutes=5)))
    late = asyncio.ensure_future(clock.sleep_until(START + timedelta(minutes=10)))
    await asyncio.sleep(0)
    assert clock.sleepers() == 2
    clock.advance(timedelta(minutes=4))
    await asyncio.sleep(0)
    assert not early.done()
    clock.advance(timedelta(minutes=1))
    await asyncio.sleep(0)
    assert early.done() and not late.done()
    clock.advance(timedelta(hours=1))
    await late
    assert clock.sleepers() == 0


async def test_a_time_already_reached_returns_at_once() -> None:
    clock = FakeClock(START)
    await clock.sleep_until(START)
    await SystemClock().sleep_until(datetime(2000, 1, 1, tzinfo=UTC))


async def test_a_cancelled_sleeper_is_not_counted() -> None:
    clock = FakeClock(START)
    sleeper = asyncio.ensure_future(clock.sleep_until(START + timedelta(minutes=5)))
    await asyncio.sleep(0)
    sleeper.cancel()
    await asyncio.gather(sleeper, return_exceptions=True)
    assert clock.sleepers() == 0
    clock.advance(timedelta(minutes=10))


def test_a_fake_clock_needs_an_aware_start_and_never_goes_back() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        FakeClock(datetime(2026, 3, 14))
    with pytest.raises(ValueError, match="backwards"):
        FakeClock(START).advance(timedelta(seconds=-1))
