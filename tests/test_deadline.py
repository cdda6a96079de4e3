"""Run timeouts on shared timers: they end a run as asyncio.timeout does, one timer per slice."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import pytest

from assistant.scheduler.deadline import SLICES, Deadlines


def advancer() -> Callable[[float], Awaitable[None]]:
    """Move the running loop's clock forward by a number of seconds (no test sleeps)."""
    loop = asyncio.get_running_loop()
    real, offset = loop.time, [0.0]
    loop.time = lambda: real() + offset[0]  # type: ignore[method-assign]

    async def advance(seconds: float) -> None:
        offset[0] += seconds
        for _ in range(3):  # the slice's timer fires, then the cancelled run steps
            await asyncio.sleep(0)

    return advance


@pytest.fixture
async def loop_time():
    loop = asyncio.get_running_loop()
    yield advancer()
    del loop.time  # the loop's own method again


async def run_forever(deadlines: Deadlines, started: asyncio.Event) -> None:
    with deadlines.within():
        started.set()
        await asyncio.Event().wait()


async def test_a_run_past_its_timeout_ends_with_timeout_error(loop_time):
    deadlines, started = Deadlines(60), asyncio.Event()
    run = asyncio.ensure_future(run_forever(deadlines, started))
    await started.wait()
    await loop_time(59)
    assert not run.done()
    await loop_time(1 + 60 / SLICES)  # the end of the slice its deadline falls in
    with pytest.raises(TimeoutError):
        await run


async def test_a_run_that_ends_in_time_is_untouched_and_leaves_its_slice(loop_time):
    deadlines = Deadlines(60)
    with deadlines.within():
        await asyncio.sleep(0)
    await loop_time(120)
    with deadlines.within():
        pass  # a later run in a new slice: nothing of the first is left to expire


async def test_runs_started_together_share_one_timer():
    deadlines, started = Deadlines(60), [asyncio.Event() for _ in range(100)]
    loop = asyncio.get_running_loop()
    before = len(loop._scheduled)  # type: ignore[attr-defined]
    runs = [asyncio.ensure_future(run_forever(deadlines, s)) for s in started]
    for event in started:
        await event.wait()
    assert len(loop._scheduled) - before <= 2  # type: ignore[attr-defined]
    for run in runs:
        run.cancel()
    await asyncio.gather(*runs, return_exceptions=True)


async def test_a_cancel_from_outside_stays_a_cancel(loop_time):
    deadlines, started = Deadlines(60), asyncio.Event()
    run = asyncio.ensure_future(run_forever(deadlines, started))
    await started.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    await loop_time(120)  # its slice's timer finds it gone


def test_a_new_event_loop_gets_its_own_timers():
    deadlines = Deadlines(60)

    async def ends_in_time() -> None:
        with deadlines.within():
            pass  # its slice's timer stays armed on this loop, which then ends

    async def times_out() -> bool:
        advance, started = advancer(), asyncio.Event()
        run = asyncio.ensure_future(run_forever(deadlines, started))
        await started.wait()
        await advance(61 + 60 / SLICES)
        await asyncio.wait([run], timeout=5)  # a guard: it ends at once, or never
        run.cancel()  # no-op when it has ended
        (ended,) = await asyncio.gather(run, return_exceptions=True)
        return isinstance(ended, TimeoutError)

    asyncio.run(ends_in_time())
    assert asyncio.run(times_out())


async def test_a_timeout_with_a_cancel_from_outside_at_once_stays_a_cancel():
    deadlines, started = Deadlines(60), asyncio.Event()
    loop = asyncio.get_running_loop()
    run = asyncio.ensure_future(run_forever(deadlines, started))
    await started.wait()
    real = loop.time
    loop.time = lambda: real() + 61 + 60 / SLICES  # type: ignore[method-assign]
    try:
        await asyncio.sleep(0)  # the slice's timer cancels the run, which has not stepped yet
        run.cancel()  # and so does someone else
        with pytest.raises(asyncio.CancelledError):
            await run
    finally:
        del loop.time


async def test_a_run_that_swallows_its_timeout_leaves_no_cancel_behind(loop_time):
    deadlines, started, ended = Deadlines(60), asyncio.Event(), asyncio.Event()

    async def stubborn() -> int:
        with deadlines.within():
            started.set()
            with contextlib.suppress(asyncio.CancelledError):  # it ignores its cancellation
                await asyncio.Event().wait()
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0
        ended.set()
        await asyncio.sleep(0)  # no cancellation is left pending for the next await
        return 1

    run = asyncio.ensure_future(stubborn())
    await started.wait()
    await loop_time(61 + 60 / SLICES)
    assert await run == 1
