"""Firing: on time, retried, late, missed, coalesced; restarts and faults lose nothing."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from assistant.errors import RunError
from assistant.scheduler import ReminderExecutor, Scheduler, SchedulerSettings
from assistant.tasks import TaskStore
from tests.conftest import fetch
from tests.tasks_fixtures import ALICE, BOB, FakeCalls, FakeOutbox, call, recurring, reminder

MINUTE = timedelta(minutes=1)


@pytest.fixture
def outbox() -> FakeOutbox:
    return FakeOutbox()


@pytest.fixture
def calls() -> FakeCalls:
    return FakeCalls()


@pytest.fixture
async def start(tmp_path, clock, outbox, calls):
    """Start a scheduler on the test database with its own connection, as the app does."""
    opened = []

    async def make(**settings) -> Scheduler:
        executors = {"reminder": ReminderExecutor(outbox), "api_call": calls}
        path = tmp_path / "assistant.db"
        scheduler = Scheduler(path, clock, executors, outbox, SchedulerSettings(**settings))
        opened.append(scheduler)
        await scheduler.recover()
        return scheduler

    yield make
    for scheduler in opened:
        await scheduler.close()


@pytest.fixture
def store(conn, clock) -> TaskStore:
    return TaskStore(conn, clock)


FAULTS = {
    "settle": "BEFORE UPDATE OF status ON task_runs WHEN NEW.status = 'ok'",
    "claim": "BEFORE INSERT ON task_runs",
}


def inject_fault(scheduler: Scheduler, where: str) -> None:
    """Make matching writes on the scheduler's connection fail, as a broken disk would."""
    scheduler.queue.connection.execute(
        f"CREATE TEMP TRIGGER fault_{where} {FAULTS[where]} "
        "BEGIN SELECT RAISE(ABORT, 'disk I/O error (injected)'); END"
    )


async def run_rows(conn, task_id: str) -> list[tuple]:
    return await fetch(
        conn,
        "SELECT scheduled_for, status, attempt, message_id, error, note FROM task_runs "
        "WHERE task_id = ? ORDER BY scheduled_for",
        (task_id,),
    )


async def test_a_reminder_fires_when_due_and_records_the_message_id(
    start, store, clock, outbox, conn
):
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    scheduler = await start()
    assert await scheduler.fire_due() == 0
    clock.advance(5 * MINUTE - timedelta(seconds=1))
    assert await scheduler.fire_due() == 0
    clock.advance(timedelta(seconds=1))
    assert await scheduler.fire_due() == 1
    assert outbox.texts() == [f"⏰ call mom\ntask {task.id}"]
    assert outbox.notices[0].task_id == task.id
    assert outbox.notices[0].owner == ALICE
    [(slot, status, attempt, message_id, error, note)] = await run_rows(conn, task.id)
    assert (status, attempt, message_id, error, note) == ("ok", 1, 1001, "", "")
    assert slot == (await store.get(ALICE.user_id, task.id)).due_at.isoformat(
        timespec="milliseconds"
    )
    assert (await store.get(ALICE.user_id, task.id)).status == "done"
    assert await scheduler.fire_due() == 0


async def test_a_run_that_ends_within_its_stored_millisecond_is_not_run_again(
    start, store, clock, outbox
):
    # Stored times keep milliseconds; a schedule's instant can lie just after its stored due
    # time. A run that started and ended in that gap counted that instant as its next run, and
    # fired again and again.
    import asyncio

    from assistant.schedules.parsed import Parsed
    from assistant.schedules.schedule import Once
    from assistant.tasks import NewTask

    at = clock.now() + 5 * MINUTE + timedelta(microseconds=123_456)
    parsed = Parsed(Once(at, "UTC"), "in 5 minutes", at, "in 5m")
    task = await store.add(NewTask(ALICE, "reminder", "call mom", parsed, {"text": "x"}))
    scheduler = await start()
    due = (await store.get(ALICE.user_id, task.id)).next_run
    assert due < at
    clock.advance(due - clock.now())  # the stored due time, just before the instant itself
    assert await asyncio.wait_for(scheduler.fire_due(), 5) == 1
    clock.advance(timedelta(milliseconds=1))
    assert await asyncio.wait_for(scheduler.fire_due(), 5) == 0
    assert len(outbox.texts()) == 1
    assert (await store.get(ALICE.user_id, task.id)).status == "done"


async def test_every_scheduled_run_leaves_an_audit_row_with_its_task(
    start, store, clock, calls, conn
):
    sent = await store.add(reminder("call mom", "in 5m", clock.now()))
    new = call("POST", "in 5m", clock.now())
    secret = {**new.execution, "headers": {"Authorization": "Bearer sk-abcdefghijkl"}}
    failing = await store.add(replace(new, execution=secret))
    calls.error = RunError("POST http://home.lan/lights answered HTTP 404: no such lamp")
    scheduler = await start()
    clock.advance(5 * MINUTE)
    assert await scheduler.fire_due() == 2
    rows = await fetch(
        conn,
        "SELECT task_id, user_id, tool, outcome, error, arguments, duration_ms FROM audit "
        "ORDER BY task_id = ?",
        (failing.id,),
    )
    assert [r[:4] for r in rows] == [
        (sent.id, ALICE.user_id, "reminder", "ok"),
        (failing.id, ALICE.user_id, "api_call", "error"),
    ]
    assert "HTTP 404" in rows[1][4] and rows[1][6] == 0
    assert "sk-abcdefghijkl" not in rows[1][5] and "[REDACTED]" in rows[1][5]


async def test_a_recurring_task_keeps_its_grid_however_late_it_ran(start, store, clock, outbox):
    task = await store.add(recurring("stretch", "every 15m", clock.now()))
    scheduler = await start()
    clock.advance(15 * MINUTE + timedelta(seconds=40))
    assert await scheduler.fire_due() == 1
    again = await store.get(ALICE.user_id, task.id)
    assert again.next_run == task.next_run + 15 * MINUTE
    assert again.last_run == task.next_run


async def test_failed_sends_retry_with_backoff_across_a_restart(start, store, clock, outbox, conn):
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    outbox.failures = 2
    first = await start(retry_base=timedelta(seconds=30))
    clock.advance(5 * MINUTE)
    await first.fire_due()
    after_one = await store.get(ALICE.user_id, task.id)
    assert (after_one.attempts, after_one.status) == (1, "active")
    assert after_one.next_run == clock.now() + timedelta(seconds=30)
    assert after_one.last_error == "the channel is unreachable"
    second = await start(retry_base=timedelta(seconds=30))  # a restart in between
    clock.advance(timedelta(seconds=30))
    await second.fire_due()
    assert (await store.get(ALICE.user_id, task.id)).next_run == clock.now() + timedelta(seconds=60)
    clock.advance(timedelta(seconds=59))
    assert await second.fire_due() == 0
    clock.advance(timedelta(seconds=1))
    assert await second.fire_due() == 1
    assert outbox.texts() == [f"⏰ call mom\n(attempt 3) · task {task.id}"]
    [(_, status, attempt, message_id, error, _)] = await run_rows(conn, task.id)
    assert (status, attempt, message_id, error) == ("ok", 3, 1001, "")
    assert (await store.get(ALICE.user_id, task.id)).status == "done"


async def test_after_the_last_attempt_the_user_is_told(start, store, clock, outbox, conn):
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    outbox.failures = 99
    scheduler = await start(max_attempts=3, retry_base=MINUTE)
    clock.advance(5 * MINUTE)
    for _ in range(3):
        await scheduler.fire_due()
        clock.advance(10 * MINUTE)
    assert await scheduler.fire_due() == 0
    [(_, status, attempt, _, error, _)] = await run_rows(conn, task.id)
    assert (status, attempt) == ("error", 3)
    assert error == "the channel is unreachable (gave up after 3 tries)"
    assert outbox.texts("report") == [
        f"⚠️ Task {task.id} (call mom) failed: the channel is unreachable (gave up after 3 tries)"
    ]
    assert (await store.get(ALICE.user_id, task.id)).status == "done"


async def test_a_one_shot_late_within_the_grace_fires_with_a_note(start, store, clock, outbox):
    task = await store.add(reminder("call mom", "in 5m", clock.now()))  # due 10:31:53 Berlin
    clock.advance(timedelta(hours=3))
    scheduler = await start()
    assert await scheduler.fire_due() == 1
    assert outbox.texts() == [f"⏰ call mom\n(late: was due Sat, Mar 14, 10:31) · task {task.id}"]


async def test_beyond_the_grace_runs_are_missed_and_listed_in_one_message(
    start, store, clock, outbox, conn
):
    mom = await store.add(reminder("call mom", "in 5m", clock.now()))
    milk = await store.add(reminder("buy milk", "in 10m", clock.now()))
    bobs = await store.add(reminder("bob's", "in 10m", clock.now(), owner=BOB))
    clock.advance(timedelta(hours=30))
    scheduler = await start()
    await scheduler.fire_due()
    assert outbox.texts("reminder") == []
    reports = {n.owner: n.text for n in outbox.notices if n.kind == "report"}
    assert len(outbox.notices) == 2
    assert reports[ALICE].startswith("While I was not running, these came due and were missed:")
    assert f"• {mom.id} call mom (was due Sat 14 Mar 10:31; too late to run)" in reports[ALICE]
    assert f"• {milk.id} buy milk" in reports[ALICE]
    assert f"• {bobs.id} bob's" in reports[BOB]
    assert [r[1] for r in await run_rows(conn, mom.id)] == ["missed"]
    assert (await store.get(ALICE.user_id, mom.id)).status == "done"


async def test_missed_runs_of_a_recurring_task_coalesce_into_one(start, store, clock, outbox, conn):
    task = await store.add(recurring("standup", "daily 9am", clock.now()))  # first: Sun 15 Mar
    clock.advance(timedelta(days=3, hours=1))  # Tue 17 Mar 11:26 Berlin; 15, 16, 17 passed
    scheduler = await start()
    assert await scheduler.fire_due() == 1
    assert outbox.texts() == [
        f"⏰ standup\n(late: was due Tue, Mar 17, 09:00; 2 earlier runs missed) · task {task.id}"
    ]
    [(slot, status, *_)] = await run_rows(conn, task.id)
    assert (slot, status) == ("2026-03-17T08:00:00.000+00:00", "ok")
    after = await store.get(ALICE.user_id, task.id)
    assert after.next_run.isoformat() == "2026-03-18T08:00:00+00:00"


async def test_a_skip_policy_drops_late_runs_without_firing(start, store, clock, outbox, conn):
    new = recurring("poll", "every 15m", clock.now())
    task = await store.add(type(new)(**{**new.__dict__, "misfire": "skip"}))
    clock.advance(timedelta(minutes=50))
    scheduler = await start()
    await scheduler.fire_due()
    assert outbox.notices == []
    [(_, status, *_rest)] = await run_rows(conn, task.id)
    assert status == "skipped"
    assert (await store.get(ALICE.user_id, task.id)).next_run > clock.now()


async def test_a_crash_mid_send_resends_the_reminder_after_restart(
    start, store, clock, outbox, conn
):
    import asyncio

    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    crashed = await start()
    outbox.hold = asyncio.Event()  # the send hangs, then the process dies
    clock.advance(5 * MINUTE)
    firing = asyncio.ensure_future(crashed.fire_due())
    await _until_running(conn, task.id)
    firing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await firing
    assert [r[1] for r in await run_rows(conn, task.id)] == ["running"]
    outbox.hold = None
    restarted = await start()
    assert await restarted.fire_due() == 1
    assert outbox.texts() == [
        f"⏰ call mom\n(sent again after a restart; it may have arrived already) · task {task.id}"
    ]
    [(_, status, attempt, message_id, *_)] = await run_rows(conn, task.id)
    assert (status, attempt, message_id) == ("ok", 2, 1001)


async def test_an_interrupted_post_is_abandoned_and_reported_not_replayed(
    start, store, clock, calls, outbox, conn
):
    import asyncio

    post = await store.add(call("POST", "in 5m", clock.now()))
    get = await store.add(call("GET", "in 5m", clock.now()))
    crashed = await start()
    calls.release = asyncio.Event()
    clock.advance(5 * MINUTE)
    firing = asyncio.ensure_future(crashed.fire_due())
    await _until_running(conn, post.id, get.id)
    await _until(lambda: len(calls.calls) == 2)
    firing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await firing
    calls.release = None
    calls.calls.clear()
    restarted = await start()
    assert await restarted.fire_due() == 1
    assert [task_id for task_id, _ in calls.calls] == [get.id]
    assert [r[1] for r in await run_rows(conn, post.id)] == ["abandoned"]
    assert [r[1] for r in await run_rows(conn, get.id)] == ["ok"]
    [report] = outbox.texts("report")
    assert "A restart interrupted these; they were not repeated" in report
    assert f"• {post.id} POST lights" in report
    assert (await store.get(ALICE.user_id, post.id)).status == "done"


async def test_a_failed_commit_loses_nothing_and_replays_nothing_unsafe(
    start, store, clock, outbox, conn
):
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    broken = await start()
    inject_fault(broken, "settle")
    clock.advance(5 * MINUTE)
    await broken.fire_due()  # sent, but the outcome could not be written
    assert len(outbox.texts()) == 1
    assert [r[1] for r in await run_rows(conn, task.id)] == ["running"]
    restarted = await start()  # the process died with the outcome in memory
    await restarted.fire_due()
    assert len(outbox.texts()) == 2  # at least once: the duplicate is marked as such
    assert "sent again after a restart" in outbox.texts()[1]
    assert [r[1] for r in await run_rows(conn, task.id)] == ["ok"]


async def test_a_failed_commit_is_written_once_the_fault_clears(start, store, clock, outbox, conn):
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    scheduler = await start()
    inject_fault(scheduler, "settle")
    clock.advance(5 * MINUTE)
    await scheduler.fire_due()
    scheduler.queue.connection.execute("DROP TRIGGER fault_settle")
    await scheduler.fire_due()
    assert [r[1] for r in await run_rows(conn, task.id)] == ["ok"]
    assert len(outbox.texts()) == 1


async def test_a_failed_claim_claims_nothing(start, store, clock, outbox, conn):
    import sqlite3

    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    scheduler = await start()
    inject_fault(scheduler, "claim")
    clock.advance(5 * MINUTE)
    with pytest.raises(sqlite3.Error, match="injected"):
        await scheduler.fire_due()
    assert not (await store.get(ALICE.user_id, task.id)).leased
    scheduler.queue.connection.execute("DROP TRIGGER fault_claim")
    assert await scheduler.fire_due() == 1
    assert len(outbox.texts()) == 1


async def test_executor_errors_reach_the_owner_without_internals(
    start, store, clock, calls, outbox, conn, caplog
):
    refused = await store.add(call("GET", "in 5m", clock.now()))
    scheduler = await start()
    calls.error = RunError("the server answered 404 Not Found")
    clock.advance(5 * MINUTE)
    await scheduler.fire_due()
    assert outbox.texts("report") == [
        f"⚠️ Task {refused.id} (GET lights) failed: the server answered 404 Not Found"
    ]
    buggy = await store.add(call("GET", "in 5m", clock.now()))
    calls.error = KeyError("secret internals")
    clock.advance(5 * MINUTE)
    await scheduler.fire_due()
    report = outbox.texts("report")[-1]
    assert report.startswith(
        f"⚠️ Task {buggy.id} (GET lights) failed: an internal error stopped it (reference "
    )
    assert "secret internals" not in report
    assert "secret internals" in caplog.text


async def test_a_kind_without_an_executor_fails_clearly(start, store, clock, outbox, conn):
    from assistant.schedules import parse_once
    from assistant.tasks import NewTask

    task = await store.add(
        NewTask(
            ALICE, "web_search", "news", parse_once("in 5m", "UTC", clock.now()), {"query": "x"}
        )
    )
    scheduler = await start()
    clock.advance(5 * MINUTE)
    await scheduler.fire_due()
    assert outbox.texts("report") == [
        f"⚠️ Task {task.id} (news) failed: this installation cannot run web_search tasks"
    ]


async def test_a_run_past_its_timeout_is_retried_only_if_safe(
    start, store, clock, calls, outbox, conn
):
    import asyncio

    get = await store.add(call("GET", "in 5m", clock.now()))
    post = await store.add(call("POST", "in 5m", clock.now()))
    calls.release = asyncio.Event()  # never set: both calls hang
    scheduler = await start(run_timeout=0.05)
    clock.advance(5 * MINUTE)
    await scheduler.fire_due()
    assert (await store.get(ALICE.user_id, get.id)).attempts == 1
    assert [r[1] for r in await run_rows(conn, post.id)] == ["error"]
    assert outbox.texts("report") == [
        f"⚠️ Task {post.id} (POST lights) failed: took longer than 0.05 s"
    ]


async def test_due_queries_read_only_the_unclaimed_due_index(start, conn):
    from assistant.scheduler.queue import _CLAIM, _NEXT_WAKE

    scheduler = await start()
    del scheduler
    for query, arguments in (
        (_CLAIM, ("x", "y", "reminder", "z", 10)),
        (_NEXT_WAKE, ("api_call",)),
    ):
        rows = await fetch(conn, f"EXPLAIN QUERY PLAN {query}", arguments)
        plan = " ".join(str(tuple(row)) for row in rows)
        assert "idx_tasks_due" in plan and "SCAN scheduled_tasks" not in plan.replace(
            "SCAN scheduled_tasks USING INDEX", ""
        )
    rows = await fetch(conn, "EXPLAIN QUERY PLAN SELECT * FROM task_runs WHERE status = 'running'")
    plan = " ".join(str(row) for row in rows)
    assert "idx_runs_running" in plan


async def _until_running(conn, *task_ids: str) -> None:
    async def running() -> bool:
        rows = await fetch(conn, "SELECT COUNT(*) FROM task_runs WHERE status = 'running'")
        return rows[0][0] == len(task_ids)

    import asyncio

    for _ in range(5000):
        if await running():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the runs never started")


async def _until(condition) -> None:
    from tests.tasks_fixtures import until

    await until(condition)
