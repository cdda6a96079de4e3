"""The running scheduler: one sleeper woken by changes, bounded kinds, a graceful stop."""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta

import pytest

from assistant.clock import FakeClock
from assistant.scheduler import Delivery, ReminderExecutor, Scheduler, SchedulerSettings
from assistant.scheduler.backlog import SETTLE_WITHIN
from assistant.scheduler.engine import SETTLE_QUIET
from assistant.scheduler.lead import START_AHEAD, START_GROUP, START_PER_RUN
from assistant.schedules.oneshot import describe
from assistant.schedules.parsed import Parsed
from assistant.schedules.schedule import Once
from assistant.tasks import TaskStore
from assistant.tasks.task import NewTask
from tests.conftest import fetch
from tests.tasks_fixtures import ALICE, FakeCalls, FakeOutbox, call, recurring, reminder, until

MINUTE = timedelta(minutes=1)


@pytest.fixture
async def running(tmp_path, clock, conn):
    """Run schedulers in the background: yield a maker, a store maker, the fakes, the runs."""
    outbox, calls = FakeOutbox(), FakeCalls()
    started: list[asyncio.Task[None]] = []
    made: list[Scheduler] = []

    def make(**settings) -> Scheduler:
        executors = {"reminder": ReminderExecutor(outbox), "api_call": calls}
        path = tmp_path / "assistant.db"
        scheduler = Scheduler(path, clock, executors, outbox, SchedulerSettings(**settings))
        made.append(scheduler)
        started.append(asyncio.ensure_future(scheduler.run()))
        return scheduler

    def store_for(scheduler: Scheduler) -> TaskStore:
        return TaskStore(conn, clock, on_change=scheduler.wake)

    yield make, store_for, outbox, calls, started
    for task in started:
        if not task.done():
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    for scheduler in made:
        await scheduler.close()


async def asleep(clock: FakeClock) -> None:
    await until(lambda: clock.sleepers() == 1)


def grace_timer(clock: FakeClock, grace: timedelta) -> bool:
    """Whether a wait ends at the grace's end (the recorder may have a shorter one armed)."""
    now = clock.now()
    return clock.sleepers(now + grace) - clock.sleepers(now + grace - timedelta(seconds=1)) == 1


async def test_the_sleeper_wakes_for_a_new_task_and_fires_it_on_time(running, clock):
    make, store_for, outbox, _, _ = running
    scheduler = make()
    store = store_for(scheduler)
    await until(lambda: clock.sleepers() == 0)  # nothing stored: it waits for a wake-up only
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    await asleep(clock)
    clock.advance(5 * MINUTE)
    await asyncio.wait_for(outbox.arrived.wait(), 5)
    assert outbox.texts() == [f"⏰ call mom\ntask {task.id}"]
    await until(lambda: clock.sleepers() == 0)
    scheduler.stop()


async def test_an_earlier_task_added_later_cuts_the_sleep_short(running, clock):
    make, store_for, outbox, _, _ = running
    scheduler = make()
    store = store_for(scheduler)
    await store.add(reminder("later", "in 2h", clock.now()))
    await asleep(clock)
    soon = await store.add(reminder("sooner", "in 1m", clock.now()))
    await until(lambda: clock.sleepers() >= 1)
    clock.advance(MINUTE)
    await asyncio.wait_for(outbox.arrived.wait(), 5)
    assert outbox.texts() == [f"⏰ sooner\ntask {soon.id}"]
    scheduler.stop()


async def test_a_slow_http_call_never_delays_a_reminder(running, clock):
    make, store_for, outbox, calls, _started = running
    calls.release = asyncio.Event()
    scheduler = make(concurrency={"reminder": 4, "api_call": 1})
    store = store_for(scheduler)
    for _ in range(3):
        await store.add(call("POST", "in 5m", clock.now()))
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    await asleep(clock)
    clock.advance(5 * MINUTE)
    await asyncio.wait_for(outbox.arrived.wait(), 5)
    assert outbox.texts() == [f"⏰ call mom\ntask {task.id}"]
    assert len(calls.calls) == 1  # one slot for api calls, and it is taken
    calls.release.set()
    await until(lambda: len(calls.calls) == 3)
    scheduler.stop()


async def test_a_recurring_task_keeps_firing(running, clock):
    make, store_for, outbox, _, _ = running
    scheduler = make()
    store = store_for(scheduler)
    await store.add(recurring("stretch", "every 15m", clock.now()))
    for n in range(1, 4):
        await asleep(clock)
        clock.advance(15 * MINUTE)
        await until(lambda n=n: len(outbox.notices) == n)
    scheduler.stop()


async def test_stop_lets_runs_finish_within_the_grace_and_releases_the_rest(
    running, clock, conn, tmp_path
):
    make, store_for, outbox, calls, started = running
    calls.release = asyncio.Event()  # the POST hangs past the grace
    scheduler = make(shutdown_grace=timedelta(seconds=5))
    store = store_for(scheduler)
    post = await store.add(call("POST", "in 5m", clock.now()))
    mom = await store.add(reminder("call mom", "in 5m", clock.now()))
    await asleep(clock)
    clock.advance(5 * MINUTE)
    await asyncio.wait_for(calls.entered.wait(), 5)
    await asyncio.wait_for(outbox.arrived.wait(), 5)
    scheduler.stop()
    await until(lambda: grace_timer(clock, timedelta(seconds=5)))
    clock.advance(timedelta(seconds=5))
    await asyncio.wait_for(started[-1], 5)  # run() returns once the rest is released
    rows = await fetch(conn, "SELECT id, lease_owner, status FROM scheduled_tasks ORDER BY id")
    states = {row[0]: (row[1], row[2]) for row in rows}
    assert states[post.id] == (None, "active")  # released, not finished
    assert states[mom.id] == (None, "done")  # finished in time and recorded
    runs = await fetch(conn, "SELECT status FROM task_runs WHERE task_id = ?", (post.id,))
    assert runs == [("running",)]
    # The next start reports the POST as interrupted instead of replaying it.
    restarted = Scheduler(tmp_path / "assistant.db", clock, {"api_call": calls}, outbox)
    try:
        await restarted.recover()
        assert "A restart interrupted these" in outbox.texts("report")[-1]
        assert (await TaskStore(conn, clock).get(ALICE.user_id, post.id)).status == "done"
    finally:
        await restarted.close()


class Gated:
    """An api_call executor whose runs each wait for their own gate."""

    def __init__(self) -> None:
        self.gates: list[asyncio.Event] = []

    def replayable(self, task):
        return True

    async def run(self, firing):
        gate = asyncio.Event()
        self.gates.append(gate)
        await gate.wait()
        return Delivery(None, "200 OK")


async def test_outcomes_wait_while_runs_queue_for_a_worker_and_no_longer_than_a_second(
    tmp_path, clock, conn
):
    gated = Gated()
    settings = SchedulerSettings(concurrency={"reminder": 1, "api_call": 1})
    scheduler = Scheduler(tmp_path / "assistant.db", clock, {"api_call": gated}, FakeOutbox(),
                          settings)  # fmt: skip
    store = TaskStore(conn, clock, on_change=scheduler.wake)
    first, *_ = [await store.add(call("GET", "in 5m", clock.now())) for _ in range(3)]
    running = asyncio.ensure_future(scheduler.run())
    try:
        await asleep(clock)
        clock.advance(5 * MINUTE)
        await until(lambda: len(gated.gates) == 1)
        gated.gates[0].set()  # the first run ends while the third still waits for the worker
        await until(lambda: len(gated.gates) == 2)
        await until(lambda: clock.sleepers(clock.now() + SETTLE_WITHIN) >= 1)
        status = "SELECT status FROM scheduled_tasks WHERE id = ?"
        assert await fetch(conn, status, (first.id,)) == [("active",)]  # not written yet
        clock.advance(SETTLE_WITHIN)
        await until_stored(conn, status, (first.id,), [("done",)])
        gated.gates[1].set()
        await until(lambda: len(gated.gates) == 3)
        gated.gates[2].set()
        scheduler.stop()
        await asyncio.wait_for(running, 5)
        done = await fetch(conn, "SELECT COUNT(*) FROM scheduled_tasks WHERE status = 'done'")
        assert done == [(3,)]
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await scheduler.close()


async def until_stored(conn, sql, parameters, expected) -> None:
    for _ in range(2000):
        if await fetch(conn, sql, parameters) == expected:
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"never stored: {expected}")


class TickingClock(FakeClock):
    """A clock that moves a second every time it is read, as a busy machine's clock does."""

    def now(self):
        return self.advance(timedelta(seconds=1))

    async def sleep_until(self, when):
        if when > self.now():
            await super().sleep_until(when)


async def test_a_task_falling_due_between_claim_and_sleep_still_fires(tmp_path, conn):
    from tests.conftest import START

    clock = TickingClock(START)
    outbox = FakeOutbox()
    scheduler = Scheduler(
        tmp_path / "assistant.db", clock, {"reminder": ReminderExecutor(outbox)}, outbox
    )
    store = TaskStore(conn, clock, on_change=scheduler.wake)
    await store.add(reminder("call mom", "in 3s", START))
    running = asyncio.ensure_future(scheduler.run())
    try:
        await asyncio.wait_for(outbox.arrived.wait(), 5)
    finally:
        scheduler.stop()
        await running
        await scheduler.close()


async def test_runs_claimed_but_never_started_at_stop_are_returned_untouched(
    running, clock, conn, tmp_path
):
    make, store_for, outbox, calls, started = running
    calls.release = asyncio.Event()  # the first POST hangs; one worker, so the others wait
    scheduler = make(concurrency={"reminder": 4, "api_call": 1}, shutdown_grace=MINUTE)
    store = store_for(scheduler)
    posts = [await store.add(call("POST", "in 5m", clock.now())) for _ in range(3)]
    await asleep(clock)
    clock.advance(5 * MINUTE)
    await asyncio.wait_for(calls.entered.wait(), 5)
    rows = await fetch(conn, "SELECT COUNT(*) FROM scheduled_tasks WHERE lease_owner IS NOT NULL")
    assert rows == [(3,)]  # claimed together: the claim is not tied to free workers
    scheduler.stop()
    await until(lambda: grace_timer(clock, MINUTE))
    clock.advance(MINUTE)
    await asyncio.wait_for(started[-1], 5)
    [ran] = [p for p in posts if p.id == calls.calls[0][0]]
    runs = await fetch(conn, "SELECT task_id, status FROM task_runs")
    assert runs == [(ran.id, "running")]  # the two never started left no run behind
    audit = await fetch(conn, "SELECT task_id, outcome FROM audit")
    assert audit == [(ran.id, "cancelled")]
    leased = await fetch(conn, "SELECT COUNT(*) FROM scheduled_tasks WHERE lease_owner IS NOT NULL")
    assert leased == [(0,)]
    restarted = Scheduler(tmp_path / "assistant.db", clock, {"api_call": calls}, outbox)
    try:
        await restarted.recover()  # only the started one is reported as interrupted
        [report] = outbox.texts("report")
        assert ran.id in report and all(p.id not in report for p in posts if p is not ran)
        calls.release.set()
        calls.calls.clear()
        assert await restarted.fire_due() == 2
        assert sorted(c[0] for c in calls.calls) == sorted(p.id for p in posts if p is not ran)
        assert outbox.texts("report") == [report]  # they ran without a note of a restart
    finally:
        await restarted.close()


async def test_tasks_are_reserved_ahead_and_a_cancel_in_between_is_honoured(running, clock, conn):
    make, store_for, outbox, _, started = running
    scheduler = make(read_ahead=timedelta(seconds=2))
    store = store_for(scheduler)
    kept = await store.add(reminder("call mom", "in 5m", clock.now()))
    dropped = await store.add(reminder("water plants", "in 5m", clock.now()))
    await asleep(clock)
    clock.advance(5 * MINUTE - timedelta(seconds=1))  # within the read-ahead: reserved, not fired
    await until(lambda: clock.sleepers() == 1)
    leased = await fetch(conn, "SELECT id FROM scheduled_tasks WHERE lease_owner IS NOT NULL")
    assert sorted(leased) == sorted([(kept.id,), (dropped.id,)])
    assert await fetch(conn, "SELECT * FROM task_runs") == []  # nothing started early
    assert outbox.notices == []
    await store.cancel(ALICE.user_id, dropped.id)
    clock.advance(timedelta(seconds=1))
    await asyncio.wait_for(outbox.arrived.wait(), 5)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert outbox.texts() == [f"⏰ call mom\ntask {kept.id}"]  # on time, with no late note
    runs = await fetch(conn, "SELECT task_id, status FROM task_runs")
    assert runs == [(kept.id, "ok")]
    rows = await fetch(conn, "SELECT id, status, lease_owner FROM scheduled_tasks ORDER BY id")
    assert {row[0]: row[1:] for row in rows} == {
        kept.id: ("done", None),
        dropped.id: ("cancelled", None),
    }


async def test_reserved_tasks_are_let_go_at_stop_and_fire_after_a_restart(
    running, clock, conn, tmp_path
):
    make, store_for, outbox, _, started = running
    scheduler = make(read_ahead=timedelta(seconds=2))
    store = store_for(scheduler)
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    await asleep(clock)
    clock.advance(5 * MINUTE - timedelta(seconds=1))
    await until(lambda: clock.sleepers() == 1)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    leased = await fetch(conn, "SELECT COUNT(*) FROM scheduled_tasks WHERE lease_owner IS NOT NULL")
    assert leased == [(0,)]
    restarted = Scheduler(
        tmp_path / "assistant.db", clock, {"reminder": ReminderExecutor(outbox)}, outbox
    )
    try:
        await restarted.recover()
        clock.advance(timedelta(seconds=1))
        assert await restarted.fire_due() == 1
        assert outbox.texts() == [f"⏰ call mom\ntask {task.id}"]  # no note of a restart
    finally:
        await restarted.close()


async def test_a_reserved_task_released_late_fires_with_its_late_note(running, clock, conn):
    make, store_for, outbox, _, started = running
    scheduler = make(read_ahead=timedelta(seconds=2))
    store = store_for(scheduler)
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    await asleep(clock)
    clock.advance(5 * MINUTE - timedelta(seconds=1))  # reserved, not fired
    await until(lambda: clock.sleepers() == 1)
    clock.advance(10 * MINUTE)  # the machine slept through its instant
    await asyncio.wait_for(outbox.arrived.wait(), 5)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    [text] = outbox.texts()
    assert text.startswith("⏰ call mom\n(late: was due ")
    runs = await fetch(conn, "SELECT task_id, status, note FROM task_runs")
    assert [(r[0], r[1]) for r in runs] == [(task.id, "ok")] and runs[0][2].startswith("late: ")


async def test_a_burst_changes_no_interpreter_wide_setting_unless_configured(running, clock, conn):
    # The collector and the switch interval are the process's: by default a burst leaves both
    # as they were (the switch interval is the config's to shorten, off by default).
    import gc

    make, store_for, outbox, _, started = running
    seen: list[tuple[bool, float]] = []
    deliver = outbox.deliver

    async def noting(notice):
        seen.append((gc.isenabled(), sys.getswitchinterval()))
        return await deliver(notice)

    outbox.deliver = noting
    before = (gc.isenabled(), sys.getswitchinterval())
    scheduler = make()
    store = store_for(scheduler)
    for n in range(4):
        await store.add(reminder(f"burst {n}", "in 5m", clock.now()))
    await asleep(clock)
    clock.advance(5 * MINUTE)
    await until(lambda: len(seen) == 4)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert seen == [before] * 4 and (gc.isenabled(), sys.getswitchinterval()) == before


async def _started_ahead(running, clock, conn, *news):
    """Reserve these tasks, due in 5 minutes, and move the clock to just before their time."""
    make, store_for, *_ = running
    scheduler = make(read_ahead=timedelta(seconds=2))
    store = store_for(scheduler)
    tasks = [await store.add(new) for new in news]
    await asleep(clock)
    clock.advance(5 * MINUTE - timedelta(seconds=1))  # reserved
    await until(lambda: clock.sleepers() == 1)
    clock.advance(timedelta(seconds=1) - START_AHEAD / 2)  # within START_AHEAD of their time
    return scheduler, tasks


async def _reminder_started_ahead(running, clock, conn):
    """One reminder reserved and started ahead: its run row is written, its time not come."""
    scheduler, [task] = await _started_ahead(
        running, clock, conn, reminder("call mom", "in 5m", clock.now())
    )
    status = "SELECT status FROM task_runs WHERE task_id = ?"
    await until_stored(conn, status, (task.id,), [("running",)])
    return scheduler, task


async def _restart_at_its_time(tmp_path, clock, outbox, *, late: bool = False) -> None:
    """Start another scheduler on the same file, recover (``late``: once the time has come),
    and fire what is due at the time."""
    restarted = Scheduler(
        tmp_path / "assistant.db", clock, {"reminder": ReminderExecutor(outbox)}, outbox
    )
    try:
        clock.advance(START_AHEAD if late else timedelta(0))
        await restarted.recover()
        clock.advance(timedelta(0) if late else START_AHEAD)
        assert await restarted.fire_due() == 1
    finally:
        await restarted.close()


async def test_a_reminder_is_started_a_moment_ahead_and_fired_at_its_time(running, clock, conn):
    _, _, outbox, _, started = running
    scheduler, task = await _reminder_started_ahead(running, clock, conn)
    status = "SELECT status FROM task_runs WHERE task_id = ?"
    await until(lambda: clock.sleepers() == 1)
    assert outbox.notices == []  # its row is written; its time has not come
    clock.advance(START_AHEAD / 2)
    await asyncio.wait_for(outbox.arrived.wait(), 5)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert outbox.texts() == [f"⏰ call mom\ntask {task.id}"]  # on time, with no note
    assert await fetch(conn, status, (task.id,)) == [("ok",)]


async def test_a_started_run_fires_on_time_while_the_loop_waits_for_the_database(
    running, clock, conn
):
    _, _, outbox, _, started = running
    scheduler, task = await _reminder_started_ahead(running, clock, conn)
    await until(lambda: clock.sleepers() == 1)
    stalled, gate, claim = asyncio.Event(), asyncio.Event(), scheduler.queue.claim

    async def stalling_claim(request):  # a disk stall under the loop's next read
        stalled.set()
        await gate.wait()
        return await claim(request)

    scheduler.queue.claim = stalling_claim
    scheduler.wake()
    await asyncio.wait_for(stalled.wait(), 5)
    clock.advance(START_AHEAD / 2)
    await asyncio.wait_for(outbox.arrived.wait(), 5)  # its row is written: it needs no more
    gate.set()
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert outbox.texts() == [f"⏰ call mom\ntask {task.id}"]


def _reminder_at(text: str, when) -> NewTask:
    parsed = Parsed(Once(when, "UTC"), describe(when, "UTC"), when, text)
    return NewTask(ALICE, "reminder", text, parsed, {"text": text})


async def test_runs_due_close_together_are_started_in_one_write(running, clock, conn):
    make, store_for, outbox, _, started = running
    scheduler = make(read_ahead=timedelta(seconds=2))
    store, due = store_for(scheduler), clock.now() + 5 * MINUTE
    within = START_GROUP - START_AHEAD - timedelta(milliseconds=20)
    group = [_reminder_at("first", due), _reminder_at("soon after", due + within)]
    tasks = [await store.add(new) for new in (*group, _reminder_at("later", due + START_GROUP))]
    writes, begin = [], scheduler.queue.begin

    async def counted_begin(*args):
        writes.append(len(args[0]))
        return await begin(*args)

    scheduler.queue.begin = counted_begin
    await asleep(clock)
    clock.advance(5 * MINUTE - START_AHEAD)  # the first one's start
    runs = "SELECT task_id FROM task_runs ORDER BY task_id"
    await until_stored(conn, runs, (), sorted((t.id,) for t in tasks[:2]))
    assert writes == [2]  # the one due soon after came with it; the later one waits
    clock.advance(START_AHEAD + START_GROUP)  # all three are due
    await until(lambda: len(outbox.notices) == 3)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)


async def test_a_burst_is_started_further_ahead_the_more_runs_it_has(running, clock, conn):
    make, _, outbox, _, started = running
    scheduler = make(read_ahead=timedelta(seconds=2))
    store, due, count = TaskStore(conn, clock, max_live_per_user=2000), clock.now() + MINUTE, 1000
    await store.add_many([_reminder_at(f"r{n}", due) for n in range(count)])
    scheduler.wake()
    await asleep(clock)
    clock.advance(MINUTE - timedelta(seconds=1))  # reserved
    leased = "SELECT COUNT(*) FROM scheduled_tasks WHERE lease_owner IS NOT NULL"
    await until_stored(conn, leased, (), [(count,)])
    await asleep(clock)
    # 1,000 reserved: started START_PER_RUN each earlier than START_AHEAD (30 ms here).
    clock.advance(timedelta(seconds=1) - START_AHEAD - START_PER_RUN * count / 2)
    await until(lambda: len(scheduler._started) > 0)
    await asleep(clock)
    assert outbox.notices == [] and 0 < len(scheduler._started) < count
    clock.advance(START_PER_RUN * count / 2)  # START_AHEAD before their time: all started
    await until(lambda: len(scheduler._started) == count)
    assert outbox.notices == []
    clock.advance(START_AHEAD)
    await until(lambda: len(outbox.notices) == count)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)


async def test_reserved_reminders_fire_with_the_smallest_batch_size(running, clock, conn):
    make, store_for, outbox, _, started = running
    scheduler = make(read_ahead=timedelta(seconds=2), batch_size=1)
    store, due = store_for(scheduler), clock.now() + 5 * MINUTE
    for text in ("one", "two"):
        await store.add(_reminder_at(text, due))
    await asleep(clock)
    clock.advance(5 * MINUTE - START_AHEAD)  # reserved, and now to be started
    leased = "SELECT COUNT(*) FROM scheduled_tasks WHERE lease_owner IS NOT NULL"
    await until_stored(conn, leased, (), [(2,)])
    clock.advance(START_AHEAD)
    await until(lambda: len(outbox.notices) == 2)  # a quarter of a batch was none
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)


async def test_outcomes_wait_while_another_run_is_due_in_a_moment(running, clock, conn):
    make, store_for, outbox, _, started = running
    scheduler = make(read_ahead=timedelta(seconds=2))
    store, due = store_for(scheduler), clock.now() + 5 * MINUTE
    for new in (_reminder_at("first", due), _reminder_at("next", due + SETTLE_QUIET / 2)):
        await store.add(new)
    writes, settle = [], scheduler.queue.settle

    async def counted_settle(outcomes):
        writes.append(len(outcomes))
        return await settle(outcomes)

    scheduler.queue.settle = counted_settle
    await asleep(clock)
    clock.advance(5 * MINUTE - timedelta(seconds=1))  # reserved
    await until(lambda: clock.sleepers() == 1)
    clock.advance(timedelta(seconds=1))  # the first fires, the next is due in a moment
    await until(lambda: len(outbox.notices) == 1)
    await until(lambda: clock.sleepers() == 2)  # the next one's time, the first outcome's bound
    assert writes == []
    clock.advance(SETTLE_QUIET / 2)
    await until(lambda: writes == [2])  # both in one write, once nothing is due
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)


@pytest.mark.parametrize("change", ["cancel", "pause"])
async def test_a_run_started_ahead_is_given_back_when_its_task_is_cancelled_or_paused(
    running, clock, conn, change
):
    _, store_for, outbox, _, started = running
    scheduler, task = await _reminder_started_ahead(running, clock, conn)
    await getattr(store_for(scheduler), change)(task.owner.user_id, task.id)  # wakes the loop
    await until_stored(conn, "SELECT * FROM task_runs", (), [])  # its row is removed
    clock.advance(START_AHEAD)  # its time comes: nothing is sent
    await until(lambda: clock.sleepers() == 0)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert outbox.notices == []
    stored = "SELECT status, lease_owner FROM scheduled_tasks WHERE id = ?"
    expected = "cancelled" if change == "cancel" else "paused"
    assert await fetch(conn, stored, (task.id,)) == [(expected, None)]


async def test_only_the_store_s_changes_recheck_runs_started_ahead(running, clock, conn):
    make, store_for, outbox, _, started = running
    scheduler = make(read_ahead=timedelta(seconds=2))
    store, due = store_for(scheduler), clock.now() + 5 * MINUTE
    first = await store.add(_reminder_at("first", due))
    second = await store.add(_reminder_at("second", due + timedelta(milliseconds=200)))
    await asleep(clock)
    runs = "SELECT task_id, status FROM task_runs ORDER BY task_id"
    clock.advance(5 * MINUTE - START_AHEAD)  # the first is started
    await until_stored(conn, runs, (), [(first.id, "running")])
    clock.advance(timedelta(milliseconds=200))  # and the second
    await until_stored(conn, runs, (), sorted([(first.id, "running"), (second.id, "running")]))
    checks, gone = [], scheduler.queue.gone

    async def counted(tasks):
        checks.append([t.id for t in tasks])
        return await gone(tasks)

    scheduler.queue.gone = counted
    outbox.failures = 1  # the first is to be tried again: its outcome's write wakes the loop
    clock.advance(timedelta(milliseconds=50))
    attempts = "SELECT attempts FROM scheduled_tasks WHERE id = ?"
    await until_stored(conn, attempts, (first.id,), [(1,)])
    await until(lambda: not scheduler._wake.is_set() and clock.sleepers() == 2)  # back asleep
    assert checks == []  # our own wake: no task changed, nothing to ask
    await store.pause(ALICE.user_id, second.id)
    await until_stored(conn, runs, (), [(first.id, "error")])  # the second's is given back
    assert checks == [[second.id]]
    clock.advance(timedelta(milliseconds=200))
    await until(lambda: clock.sleepers() <= 1)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert outbox.notices == []


async def test_a_call_not_safe_to_repeat_is_started_only_at_its_time(running, clock, conn):
    _, _, outbox, calls, started = running
    scheduler, [nudge, post] = await _started_ahead(
        running,
        clock,
        conn,
        reminder("call mom", "in 5m", clock.now()),
        call("POST", "in 5m", clock.now()),
    )
    runs = "SELECT task_id FROM task_runs"
    await until_stored(conn, runs, (), [(nudge.id,)])  # the reminder beside it is started
    await until(lambda: clock.sleepers() == 2)  # the loop waits for the POST, the firer for it
    assert await fetch(conn, runs) == [(nudge.id,)]
    clock.advance(START_AHEAD / 2)
    await until(lambda: len(calls.calls) == 1)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert [task_id for task_id, _ in calls.calls] == [post.id]
    assert outbox.texts() == [f"⏰ call mom\ntask {nudge.id}"]


async def test_a_run_started_ahead_is_returned_unrun_at_stop_and_fires_after_restart(
    running, clock, conn, tmp_path
):
    _, _, outbox, _, started = running
    scheduler, task = await _reminder_started_ahead(running, clock, conn)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert await fetch(conn, "SELECT * FROM task_runs") == []  # as if never started
    leased = "SELECT COUNT(*) FROM scheduled_tasks WHERE lease_owner IS NOT NULL"
    assert await fetch(conn, leased) == [(0,)]
    await _restart_at_its_time(tmp_path, clock, outbox)
    assert outbox.texts() == [f"⏰ call mom\ntask {task.id}"]  # no note of a restart


@pytest.mark.parametrize("restart", ["before its time", "after its time"])
async def test_a_run_started_ahead_and_cut_off_by_a_crash_fires_after_the_restart(
    running, clock, conn, tmp_path, restart
):
    # Before its time it has not gone out: returned unrun, it fires with no note. After its
    # time it may have: it is sent again with the restart's note.
    _, _, outbox, _, started = running
    scheduler, task = await _reminder_started_ahead(running, clock, conn)
    status = "SELECT status FROM task_runs WHERE task_id = ?"

    async def dies(workers) -> None:  # the process dies: nothing is returned or released
        for worker in workers:
            worker.cancel()

    scheduler._drain = dies
    started[-1].cancel()
    await asyncio.gather(started[-1], return_exceptions=True)
    assert await fetch(conn, status, (task.id,)) == [("running",)]
    late = restart == "after its time"
    await _restart_at_its_time(tmp_path, clock, outbox, late=late)
    note = "\n(sent again after a restart; it may have arrived already) · " if late else "\n"
    assert outbox.texts() == [f"⏰ call mom{note}task {task.id}"]
    [(status, attempt)] = await fetch(conn, "SELECT status, attempt FROM task_runs")
    assert (status, attempt) == ("ok", 2 if late else 1)


async def test_a_retry_started_ahead_fires_at_its_retry_time_not_before(running, clock, conn):
    make, store_for, outbox, _, started = running
    outbox.failures = 1  # the first send fails: a retry 30 s later
    scheduler = make(read_ahead=timedelta(seconds=2), retry_base=timedelta(seconds=30))
    store = store_for(scheduler)
    task = await store.add(reminder("call mom", "in 5m", clock.now()))
    await asleep(clock)
    clock.advance(5 * MINUTE)
    tried = "SELECT attempts FROM scheduled_tasks WHERE id = ?"
    await until_stored(conn, tried, (task.id,), [(1,)])
    await until(lambda: clock.sleepers() == 1)
    clock.advance(timedelta(seconds=29))  # the retry is reserved
    await until(lambda: clock.sleepers() == 1)
    clock.advance(timedelta(seconds=1) - START_AHEAD / 2)  # and started ahead
    runs = "SELECT status, attempt FROM task_runs WHERE task_id = ?"
    await until_stored(conn, runs, (task.id,), [("running", 2)])
    await until(lambda: clock.sleepers() == 1)
    assert outbox.notices == []  # its row was written early; its time has not come
    clock.advance(START_AHEAD / 2)
    await asyncio.wait_for(outbox.arrived.wait(), 5)
    scheduler.stop()
    await asyncio.wait_for(started[-1], 5)
    assert outbox.texts() == [f"⏰ call mom\n(attempt 2) · task {task.id}"]


async def test_a_configured_switch_interval_holds_while_running_and_is_restored(running):
    make, _, _, _, started = running
    before = sys.getswitchinterval()
    first, second = make(switch_interval=0.001), make(switch_interval=0.001)
    await until(lambda: first.alive and second.alive)
    assert sys.getswitchinterval() == min(before, 0.001)
    first.stop()
    await asyncio.wait_for(started[0], 5)
    assert sys.getswitchinterval() == min(before, 0.001)  # the second still runs
    second.stop()
    await asyncio.wait_for(started[1], 5)
    assert sys.getswitchinterval() == before
