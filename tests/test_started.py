"""Runs started ahead: fired in time order, given back by task when their task changed."""

from __future__ import annotations

from datetime import timedelta

from assistant.scheduler.lead import START_AHEAD, START_AHEAD_MAX, Started, lead
from assistant.tasks.runs import Firing
from tests.test_readahead import NOW, task


def firing(name: str, minutes: int) -> Firing:
    held = task(name, minutes)
    return Firing(held, held.next_run)


def test_runs_come_out_when_their_time_comes_in_order():
    started = Started()
    started.add([firing("a", 1), firing("b", 2), firing("c", 3)])
    assert started.first() == NOW + timedelta(minutes=1)
    assert [p.task.id for p in started.due(NOW + timedelta(minutes=2))] == ["a", "b"]
    assert started.due(NOW + timedelta(minutes=2)) == []
    assert [p.task.id for p in started.take_all()] == ["c"]
    assert len(started) == 0 and started.first() is None


def test_the_runs_of_changed_tasks_are_taken_and_the_rest_keep_their_order():
    started = Started()
    started.add([firing("a", 1), firing("b", 2), firing("c", 3), firing("d", 4)])
    assert [p.task.id for p in started.take({"b", "d", "x"})] == ["b", "d"]
    assert [t.id for t in started.tasks()] == ["a", "c"]
    assert [p.task.id for p in started.due(NOW + timedelta(minutes=9))] == ["a", "c"]


def test_the_lead_grows_with_the_runs_reserved_up_to_its_bound():
    assert lead(0) == START_AHEAD  # a reminder at a quiet time: a quarter second
    assert lead(1000) == START_AHEAD + timedelta(milliseconds=30)
    assert lead(100_000) == lead(10**9) == START_AHEAD_MAX  # a burst: started 3 s ahead
