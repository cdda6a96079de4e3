"""Reserved tasks come out in the order they fall due, however they were reserved."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from assistant.scheduler.readahead import ReadAhead
from assistant.tasks.rows import new_row, stored_task
from assistant.tasks.task import Task
from tests.tasks_fixtures import reminder

NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)


def task(name: str, minutes: int) -> Task:
    new = reminder(name, f"in {minutes}m", NOW)
    return stored_task(new, name, new_row(new, NOW), NOW)


def test_batches_in_time_order_are_kept_in_it():
    ahead = ReadAhead(limit=10)
    ahead.add([task("b", 2), task("a", 1)])
    ahead.add([task("c", 3)])
    assert [t.id for t in ahead.due(NOW + timedelta(minutes=5), 10)] == ["a", "b", "c"]


def test_a_task_due_before_those_held_is_merged_in_its_place():
    ahead = ReadAhead(limit=10)
    ahead.add([task("a", 1), task("c", 3), task("e", 5)])
    ahead.add([task("b", 2), task("d", 4)])
    assert ahead.next_due() == NOW + timedelta(minutes=1)
    assert [t.id for t in ahead.due(NOW + timedelta(minutes=3), 10)] == ["a", "b", "c"]
    assert [t.id for t in ahead.take_all()] == ["d", "e"]
    assert len(ahead) == 0 and ahead.room == 10


def test_only_what_is_due_is_taken_and_at_most_so_many():
    ahead = ReadAhead(limit=3)
    ahead.add([task("a", 1), task("b", 1), task("c", 2)])
    assert ahead.room == 0
    assert [t.id for t in ahead.due(NOW + timedelta(minutes=1), 1)] == ["a"]
    assert [t.id for t in ahead.due(NOW + timedelta(minutes=1), 5)] == ["b"]
    assert ahead.next_due() == NOW + timedelta(minutes=2)


def test_of_tasks_due_together_those_that_may_start_early_come_first():
    ahead = ReadAhead(limit=10, early=lambda t: not t.id.startswith("post"))
    ahead.add([task("post-a", 1), task("d", 1), task("b", 1)])
    assert ahead.first().id == "d"
    ahead.add([task("c", 1), task("a", 2)])
    taken = ahead.due(NOW, 10, NOW + timedelta(minutes=1))
    assert [t.id for t in taken] == ["d", "b", "c"]  # started ahead; the POST waits its time
    assert [t.id for t in ahead.take_all()] == ["post-a", "a"]
