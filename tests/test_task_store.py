"""The task store: short ids, limits, state changes, and every call scoped to its owner."""

from __future__ import annotations

import re
from dataclasses import FrozenInstanceError, fields
from datetime import timedelta

import pytest

from assistant.errors import TaskError, TaskNotFoundError
from assistant.schedules import parse_once
from assistant.tasks import NewTask, TaskStore
from assistant.tasks import store as store_module
from assistant.tasks.runs import Firing, Outcome, delivered
from assistant.tasks.task import COLUMNS, Owner, Task
from tests.conftest import fetch
from tests.tasks_fixtures import ALICE, BOB, ZONE, call, recurring, reminder


@pytest.fixture
def woken() -> list[str]:
    return []


@pytest.fixture
def store(conn, clock, woken) -> TaskStore:
    return TaskStore(conn, clock, max_live_per_user=3, on_change=lambda: woken.append("wake"))


async def rows(conn) -> list[tuple]:
    return await fetch(
        conn, "SELECT id, user_id, status, next_run, attempts FROM scheduled_tasks ORDER BY id"
    )


async def test_a_task_gets_a_short_id_and_wakes_the_scheduler(store, clock, woken) -> None:
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    assert re.fullmatch(r"[23456789a-hjkmnp-z]{6}", task.id)
    assert woken == ["wake"]
    stored = await store.get(ALICE.user_id, task.id)
    assert stored.description == "call mom"
    assert stored.next_run == clock.now() + timedelta(minutes=5)
    assert stored.schedule_text.startswith("once on ")  # the normalized reading, not "in 5m"
    assert stored.timezone == ZONE
    assert stored.status == "active"
    assert dict(stored.execution) == {"text": "call mom"}
    assert await store.get(ALICE.user_id, f"  {task.id.upper()} ") == stored


async def test_another_users_task_is_not_found_even_by_its_id(store, clock, conn) -> None:
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    before = await rows(conn)
    for attempt in (
        store.get(BOB.user_id, task.id),
        store.cancel(BOB.user_id, task.id),
        store.pause(BOB.user_id, task.id),
        store.resume(BOB.user_id, task.id),
        store.run_now(BOB.user_id, task.id),
        store.runs(BOB.user_id, task.id),
    ):
        with pytest.raises(TaskNotFoundError) as caught:
            await attempt
        assert str(caught.value) == f"you have no task {task.id!r}; /tasks lists yours"
    assert await store.list_tasks(BOB.user_id) == []
    assert await rows(conn) == before
    with pytest.raises(TaskNotFoundError) as unknown:
        await store.get(BOB.user_id, "zzzzzz")
    assert "no task 'zzzzzz'" in str(unknown.value)


async def test_the_live_task_limit_is_a_clear_refusal(store, clock, conn) -> None:
    for n in range(3):
        await store.add(reminder(f"r{n}", "in 5m", clock.now()))
    before = await rows(conn)
    with pytest.raises(TaskError, match=r"most active or paused tasks allowed \(3\)"):
        await store.add(reminder("one too many", "in 5m", clock.now()))
    assert await rows(conn) == before
    await store.add(reminder("bob's own", "in 5m", clock.now(), owner=BOB))
    done = (await store.list_tasks(ALICE.user_id))[0]
    await store.cancel(ALICE.user_id, done.id)
    await store.add(reminder("room again", "in 5m", clock.now()))


async def test_a_batch_is_stored_whole_or_not_at_all(store, clock, conn) -> None:
    batch = [reminder(f"r{n}", "in 5m", clock.now()) for n in range(2)]
    added = await store.add_many(batch)
    assert len({t.id for t in added}) == 2
    before = await rows(conn)
    with pytest.raises(TaskError, match="allowed"):
        await store.add_many([reminder(f"x{n}", "in 5m", clock.now()) for n in range(2)])
    assert await rows(conn) == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"description": "   "}, "a task needs a description"),
        ({"description": "x" * 2001}, "at most 2000 characters"),
        ({"execution": {"when": object()}}, "not plain JSON"),
        ({"kind": "launch_rockets"}, "unknown task kind 'launch_rockets'"),
    ],
)
async def test_bad_tasks_are_refused_and_nothing_is_stored(store, clock, conn, change, message):
    good = reminder("call mom", "in 5m", clock.now())
    fields = {
        "owner": good.owner,
        "kind": good.kind,
        "description": good.description,
        "parsed": good.parsed,
        "execution": good.execution,
    } | change
    for add in (store.add, lambda new: store.add_many([new])):
        with pytest.raises(TaskError, match=re.escape(message)):
            await add(NewTask(**fields))
    assert await rows(conn) == []


async def test_an_id_collision_draws_another_id(store, clock, monkeypatch) -> None:
    first = await store.add(reminder("first", "in 5m", clock.now()))
    ids = iter([first.id, "abcdef"])
    monkeypatch.setattr(store_module, "new_id", lambda: next(ids))
    second = await store.add(reminder("second", "in 5m", clock.now()))
    assert second.id == "abcdef"


async def test_pause_and_resume_skip_the_runs_missed_while_paused(store, clock) -> None:
    task = await store.add(recurring("stretch", "every 15m", clock.now()))
    anchor = task.next_run
    paused = await store.pause(ALICE.user_id, task.id)
    assert paused.status == "paused"
    with pytest.raises(TaskError, match=f"task {task.id} is paused"):
        await store.pause(ALICE.user_id, task.id)
    clock.advance(timedelta(hours=2, minutes=1))
    resumed = await store.resume(ALICE.user_id, task.id)
    assert resumed.status == "active"
    assert resumed.next_run == anchor + timedelta(hours=2)  # 11:41:53, the grid kept
    assert resumed.next_run > clock.now()


async def test_a_one_shot_resumed_after_its_time_fires_now(store, clock) -> None:
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    await store.pause(ALICE.user_id, task.id)
    clock.advance(timedelta(minutes=30))
    resumed = await store.resume(ALICE.user_id, task.id)
    assert resumed.next_run == clock.now()


async def test_cancel_is_final_and_keeps_the_history(store, clock) -> None:
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    cancelled = await store.cancel(ALICE.user_id, task.id)
    assert cancelled.status == "cancelled"
    with pytest.raises(TaskError, match="is cancelled"):
        await store.resume(ALICE.user_id, task.id)
    with pytest.raises(TaskError, match="is cancelled"):
        await store.cancel(ALICE.user_id, task.id)
    assert await store.list_tasks(ALICE.user_id) == []
    assert [t.id for t in await store.list_tasks(ALICE.user_id, ("cancelled",))] == [task.id]


async def test_run_now_makes_an_active_task_due(store, clock) -> None:
    task = await store.add(recurring("report", "daily 9am", clock.now()))
    now_task = await store.run_now(ALICE.user_id, task.id)
    assert now_task.next_run == clock.now()
    assert now_task.due_at == clock.now()
    await store.pause(ALICE.user_id, task.id)
    with pytest.raises(TaskError, match="is paused"):
        await store.run_now(ALICE.user_id, task.id)


async def test_snooze_keeps_a_one_shot_reminders_id_and_copies_a_recurring_one(
    store, clock, conn
) -> None:
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    async with conn.write() as session:  # it fired
        await session.execute("UPDATE scheduled_tasks SET status = 'done' WHERE id = ?", (task.id,))
    snoozed = await store.snooze(ALICE.user_id, task.id, parse_once("in 10m", ZONE, clock.now()))
    assert (snoozed.id, snoozed.status, snoozed.description) == (task.id, "active", "call mom")
    assert snoozed.next_run == clock.now() + timedelta(minutes=10)
    daily = await store.add(recurring("stretch", "daily 9am", clock.now()))
    copy = await store.snooze(ALICE.user_id, daily.id, parse_once("in 10m", ZONE, clock.now()))
    assert (
        copy.id != daily.id
        and (await store.get(ALICE.user_id, daily.id)).schedule == daily.schedule
    )
    await store.cancel(ALICE.user_id, copy.id)  # room under the limit of 3 live tasks
    lights = await store.add(call("POST", "in 5m", clock.now()))
    with pytest.raises(TaskError, match="only reminders can be snoozed"):
        await store.snooze(ALICE.user_id, lights.id, parse_once("in 10m", ZONE, clock.now()))
    with pytest.raises(TaskNotFoundError):
        await store.snooze(BOB.user_id, task.id, parse_once("in 10m", ZONE, clock.now()))


async def test_an_edit_keeps_the_id_and_history_and_refuses_what_it_cannot(
    store, clock, conn
) -> None:
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    async with conn.write() as session:
        await session.execute(
            "INSERT INTO task_runs (task_id, scheduled_for, status) VALUES (?, 'x', 'ok')",
            (task.id,),
        )
    moved = await store.edit(ALICE.user_id, task.id, parse_once("in 1h", ZONE, clock.now()), None)
    assert moved.id == task.id and moved.next_run == clock.now() + timedelta(hours=1)
    worded = await store.edit(ALICE.user_id, task.id, None, "call dad")
    assert worded.description == "call dad" and dict(worded.execution) == {"text": "call dad"}
    assert worded.next_run == moved.next_run
    assert len(await fetch(conn, "SELECT * FROM task_runs WHERE task_id = ?", (task.id,))) == 1
    before = await fetch(conn, "SELECT * FROM scheduled_tasks")
    with pytest.raises(TaskError, match="say what to change"):
        await store.edit(ALICE.user_id, task.id, None, None)
    with pytest.raises(TaskError, match="at most"):
        await store.edit(ALICE.user_id, task.id, None, "x" * 5000)
    with pytest.raises(TaskNotFoundError):
        await store.edit(BOB.user_id, task.id, None, "mine now")
    await store.cancel(ALICE.user_id, task.id)
    with pytest.raises(TaskError, match="is cancelled"):
        await store.edit(ALICE.user_id, task.id, None, "again")
    after = await fetch(conn, "SELECT * FROM scheduled_tasks")
    assert [r for r in after if r[0] != task.id] == [r for r in before if r[0] != task.id]


async def test_listing_is_soonest_first_and_only_the_owners(store, clock) -> None:
    late = await store.add(reminder("later", "in 2h", clock.now()))
    soon = await store.add(reminder("sooner", "in 5m", clock.now()))
    await store.add(reminder("bob's", "in 1m", clock.now(), owner=BOB))
    assert [t.id for t in await store.list_tasks(ALICE.user_id)] == [soon.id, late.id]
    assert await store.count_live(ALICE.user_id) == 2


async def test_an_add_on_a_full_disk_is_one_clear_error_and_stores_nothing(
    store, conn, clock, woken
) -> None:
    from assistant.errors import WriteError
    from assistant.tasks import Owner

    async with conn.read() as session:
        (pages,) = await session.fetchone("PRAGMA page_count") or (0,)
        await session.execute(f"PRAGMA max_page_count = {pages + 1}")
    with pytest.raises(WriteError, match="storage is full; nothing was saved"):
        for n in range(1, 500):  # until the one page left is full
            before = await rows(conn)
            owner = Owner(1000 + n, 1000 + n)
            await store.add(reminder("y" * 300, "in 5m", clock.now(), owner))
    assert await rows(conn) == before
    assert len(woken) == len(before)  # every stored add woke the scheduler, the refused one not


async def test_task_from_row_is_the_constructed_task(store, clock, conn) -> None:
    # A task read from its row is the very value the constructor makes, frozen, every field set.
    added = await store.add(recurring("stretch", "every day at 9am", clock.now()))
    row = (await fetch(conn, f"SELECT {COLUMNS} FROM scheduled_tasks"))[0]
    read = Task.from_row(row)
    values = {f.name: getattr(read, f.name) for f in fields(Task)}
    built = Task(**values)
    assert read == built and hash(read) == hash(built) and repr(read) == repr(built)
    assert vars(read) == vars(built)  # nothing more, nothing less than the fields
    assert read.owner == Owner(ALICE.user_id, ALICE.chat_id) and hash(read.owner)
    assert read.schedule == added.schedule and read.next_run == added.next_run
    with pytest.raises(FrozenInstanceError):
        read.status = "done"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        read.owner.user_id = 2  # type: ignore[misc]


async def test_a_delivered_outcome_is_the_constructed_outcome(store, clock) -> None:
    task, now = await store.add(reminder("tea", "in 5m", clock.now())), clock.now()
    firing = Firing(task, task.next_run)
    made = delivered(firing, now, now + timedelta(seconds=1), 7, "sent")
    built = Outcome(task, task.next_run, "ok", now + timedelta(seconds=1), 7, "", None, now, "sent")
    assert made == built and hash(made) == hash(built) and vars(made) == vars(built)
    with pytest.raises(FrozenInstanceError):
        made.status = "error"  # type: ignore[misc]


def test_task_kinds_are_declared_once_and_every_kind_has_its_concurrency_key() -> None:
    from typing import get_args

    from assistant.config import ConcurrencySettings
    from assistant.scheduler.settings import DEFAULT_CONCURRENCY
    from assistant.tasks.task import KINDS, TaskKind

    assert get_args(TaskKind) == KINDS
    assert set(ConcurrencySettings.model_fields) == set(KINDS) == set(DEFAULT_CONCURRENCY)


async def test_an_edit_of_a_paused_task_keeps_it_paused_and_says_so(store, clock) -> None:
    from assistant.tools.builtin.tasks import edited

    task = await store.add(recurring("stretch", "every day at 9am", clock.now()))
    paused = await store.pause(ALICE.user_id, task.id)
    moved = await store.edit(ALICE.user_id, task.id, parse_once("in 1h", ZONE, clock.now()), None)
    assert moved.status == "paused"
    assert edited(paused, moved, ZONE).endswith("; it stays paused until you resume it")
    resumed = await store.resume(ALICE.user_id, task.id)
    assert resumed.status == "active"
