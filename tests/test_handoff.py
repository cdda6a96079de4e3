"""Runs handed to workers in bulk: woken as many as there are runs, taken in order."""

from __future__ import annotations

import asyncio

from assistant.scheduler.handoff import Handoff


async def _worker(handoff: Handoff[int], taken: list[int]) -> None:
    while True:
        while not handoff:
            await handoff.wait()
        taken.append(handoff.take())
        await asyncio.sleep(0)  # a run that awaits something


async def _settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def test_a_batch_wakes_one_idle_worker_a_run_and_keeps_its_order():
    handoff: Handoff[int] = Handoff()
    taken: list[list[int]] = [[], [], []]
    workers = [asyncio.ensure_future(_worker(handoff, t)) for t in taken]
    await _settle()
    handoff.extend([1, 2])
    await _settle()
    assert sorted(map(len, taken)) == [0, 1, 1]  # two woken, one still idle
    assert sorted(n for t in taken for n in t) == [1, 2]
    handoff.extend(range(3, 10))
    await _settle()
    assert sorted(n for t in taken for n in t) == list(range(1, 10))
    assert all(t == sorted(t) for t in taken)
    for worker in workers:
        worker.cancel()
    await asyncio.gather(*workers, return_exceptions=True)


async def test_a_cancelled_worker_is_skipped_and_the_run_goes_to_another():
    handoff: Handoff[int] = Handoff()
    gone, staying = [], []
    first = asyncio.ensure_future(_worker(handoff, gone))
    await _settle()
    second = asyncio.ensure_future(_worker(handoff, staying))
    await _settle()
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    handoff.extend([7])
    await _settle()
    assert (gone, staying) == ([], [7])
    second.cancel()
    await asyncio.gather(second, return_exceptions=True)


def test_take_all_returns_what_waits_and_leaves_nothing():
    handoff: Handoff[str] = Handoff()
    handoff.extend(["a", "b"])
    assert handoff.take_all() == ["a", "b"]
    assert len(handoff) == 0 and not handoff
