"""The scheduler: one sleeper over the due end of the table, claims in batches, bounded runs.

It waits until the earliest ``next_run`` or until woken (a task added, changed or room freed),
claims due tasks under a lease in batches, hands them to a fixed pool of workers per kind (as
many as that kind may run at once), and hands the outcomes to its backlog (``backlog.py``),
which writes them back in batches once the firing is done. A claim is not tied to free
workers: each kind holds up to a few batches in hand, so the next batch is claimed while the
last one runs. Tasks due within the read-ahead are reserved before their time, and those safe
to repeat are started a moment ahead of it and fired at their time by a task of their own,
which no write of the loop's holds back. On start it recovers runs a crash interrupted; on
stop it lets runs in flight finish within a grace and releases the rest, started or not.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from assistant.clock import Clock, event_or_time
from assistant.scheduler.attempt import Attempts
from assistant.scheduler.backlog import ERROR_PAUSE, Backlog
from assistant.scheduler.delivery import Executor, Outbox
from assistant.scheduler.handoff import Handoff
from assistant.scheduler.lead import GROUP, Started, lead
from assistant.scheduler.misfire import MisfirePolicy, plan
from assistant.scheduler.queue import Claim, DueQueue
from assistant.scheduler.readahead import ReadAhead
from assistant.scheduler.recovery import recover
from assistant.scheduler.reports import Reports
from assistant.scheduler.settings import SchedulerSettings
from assistant.scheduler.switch_interval import switch_interval
from assistant.tasks.runs import Firing, Outcome, Plan
from assistant.tasks.task import KINDS, Task, TaskKind

log = logging.getLogger(__name__)

NEVER = datetime.max.replace(tzinfo=UTC)  # no task is waiting to be claimed
HELD_PER_WORKER = 4  # claimed runs a kind may hold per worker, waiting or running
# A task is reserved this share of the read-ahead before it is due: time enough to reserve a
# burst of 100,000, and each reserve takes the next quarter of the read-ahead with it.
RESERVE_AT = 0.75
RESERVE_QUIET = timedelta(milliseconds=250)  # no reserved run due this soon: reserve in bulk
SETTLE_QUIET = timedelta(milliseconds=50)  # no held run due this soon: outcomes may be written


Life = Literal["created", "running", "stopping", "stopped"]  # running: recovered, looping
Phase = Literal["starting", "caught_up", "waiting_for_room"]  # from a wake to a wait, or waiting


class Scheduler:
    """Fires due tasks through the injected executors and tells owners what went wrong."""

    def __init__(
        self,
        database: Path,
        clock: Clock,
        executors: Mapping[TaskKind, Executor],
        outbox: Outbox,
        settings: SchedulerSettings | None = None,
        *,
        wrote: Callable[[], None] = lambda: None,
    ) -> None:
        self._clock = clock
        self._settings = settings or SchedulerSettings()
        self._attempts = Attempts(executors, clock, self._settings)
        self.queue = DueQueue(database, secrets.token_hex(6), wrote)
        self._waiting: dict[TaskKind, Handoff[Firing]] = {k: Handoff() for k in KINDS}
        self._held: dict[TaskKind, int] = defaultdict(int)  # claimed and not yet ended
        self._idle = asyncio.Event()  # nothing held
        self._idle.set()
        self._replays: frozenset[tuple[str, datetime]] = frozenset()
        self._ahead = ReadAhead(self._settings.reserved_max, self._attempts.replayable)
        self._started = Started()
        self._reports = Reports(outbox, self._settings.report_timeout)
        self._wake = asyncio.Event()  # the store's changes, and our own (a run written)
        self._changed = False  # the store's: a cancel or a pause may concern a started run
        batch = self._settings.batch_size
        self._backlog = Backlog(
            self.queue, self._reports, clock, batch, wake=self._wake.set, pace=self
        )
        self._life: Life = "created"
        self._phase: Phase = "caught_up"
        self._waiting_for_room = False  # the earliest due task waits for workers to make room
        self._claimed_at = datetime.min.replace(tzinfo=UTC)
        self._unclaimed: datetime | None = None  # the earliest due not claimed nor reserved

    async def close(self) -> None:
        """Close the scheduler's own connection to the database."""
        await self.queue.close()

    def wake(self) -> None:
        """Look at the table again: a task was added or changed (the store's ``on_change``)."""
        self._changed = True
        self._wake.set()

    @property
    def alive(self) -> bool:
        """Between recovery and the end of the loop: for /healthz."""
        return self._life == "running"

    def stop(self) -> None:
        """Ask ``run`` to stop claiming, let runs in flight finish, and return."""
        self._life = "stopping"
        self._wake.set()
        self._started.wake()

    async def run(self) -> None:
        """Recover, then fire tasks as they fall due until ``stop``."""
        await self.recover()
        if self._life == "created":
            self._life = "running"
        try:
            with switch_interval(self._settings.switch_interval):
                async with asyncio.TaskGroup() as group:
                    recorder = group.create_task(self._backlog.run())
                    group.create_task(self._fire_on_time(group))
                    workers = self._workers(group.create_task)
                    try:
                        await self._loop(group)
                    finally:
                        await self._drain(workers)
                        self._backlog.close()
                        await recorder
                await self._backlog.write_all()
        finally:
            self._life = "stopped"

    async def recover(self) -> None:
        """Release stale leases; repeat interrupted runs that are safe to, report the rest."""
        self._replays = await recover(self.queue, self._attempts, self._reports, self._clock)

    async def fire_due(self) -> int:
        """Fire every task due now, wait for the runs and record them; return how many ran."""
        total = 0
        await self._backlog.write()
        workers = self._workers(asyncio.ensure_future)
        try:
            while plans := await self._claim():
                async with asyncio.TaskGroup() as group:
                    self._dispatch(plans, group)
                await self._idle.wait()
                await self._backlog.write()
                total += len(plans)
        finally:
            await self._stop_workers(workers)
        return total

    async def _loop(self, group: asyncio.TaskGroup) -> None:
        # Woken by the clock alone, nothing in the table changed: the earliest task not yet
        # claimed or reserved is still the one read before, and no query is needed to know it.
        while self._life not in ("stopping", "stopped"):
            changed = self._wake.is_set() or self._unclaimed is None
            recheck, self._changed = self._changed, False
            self._wake.clear()
            try:
                if recheck and self._started:
                    await self._recheck_started()
                released = await self._release(group)
                due = changed or (self._unclaimed is not None and self._unclaimed <= self._now())
                plans = await self._claim() if due else []
                self._dispatch(plans, group)
                if plans or released:
                    self._unclaimed = None  # look again
                    continue  # more may be due: claim again before sleeping or writing
                wake_at = await self._next_wake(changed or due)
            except sqlite3.Error:
                log.exception("the scheduler could not read the task table; retrying")
                self._unclaimed, wake_at = None, self._clock.now() + ERROR_PAUSE
            await self._wait(wake_at)

    async def _release(self, group: asyncio.TaskGroup) -> int:
        """Start the reserved tasks whose time has come (and those safe to repeat that come
        within their lead), a batch a write; fire each run at its time; return how many."""
        # A small first batch fires soon; larger ones after it cost fewer writes, and each is
        # written while the workers fire the one before. Toward the end of a burst they get
        # smaller again, so that the last batch's write is short.
        batch = self._settings.batch_size
        released, most = self._fire_started(group), max(1, batch // 4)
        while self._starts_now() and (
            due := self._ahead.due(self._now(), most, self._now() + lead(len(self._ahead)) + GROUP)
        ):
            now = self._now()
            self._started.add(await self.queue.begin(due, self._planner(now), now))
            released += len(due) + self._fire_started(group)
            most = min(4 * most, 16 * batch, max(4 * batch, len(self._ahead) // 4))
        return released

    async def _fire_on_time(self, group: asyncio.TaskGroup) -> None:
        """Fire started runs at their time, also while the loop waits for the database: a slow
        write (a disk stall of 100 ms) would otherwise hold back runs whose rows are written."""
        while self._life not in ("stopping", "stopped"):
            await self._started.wait(self._clock)
            if self._life not in ("stopping", "stopped"):
                self._fire_started(group)

    async def _recheck_started(self) -> None:
        """Give back the runs started ahead whose tasks were cancelled or paused since."""
        gone = await self.queue.gone(self._started.tasks())
        for given_back in self._started.take(gone):  # those fired meanwhile have gone out
            self._backlog.add(self._returned(given_back))

    def _fire_started(self, group: asyncio.TaskGroup) -> int:
        """Hand the started runs whose time has come to the workers; return how many."""
        due = self._started.due(self._now())
        self._dispatch(due, group)
        return len(due)

    async def _next_wake(self, fresh: bool) -> datetime | None:
        """Reserve what falls due within the read-ahead, then say when to look again."""
        if fresh:
            self._unclaimed = await self.queue.next_wake() or NEVER
        reserving = self._reservable()
        if reserving:
            await self._reserve()
        return self._wake_at(reserved=reserving)

    def _reservable(self) -> bool:
        """Whether the earliest unclaimed task falls due within the read-ahead, with room."""
        unclaimed = self._unclaimed
        if not unclaimed or unclaimed == NEVER or unclaimed <= self._claimed_at:
            return False
        ahead = self._settings.read_ahead * RESERVE_AT
        return self._ahead.room > 0 and unclaimed - ahead <= self._now()

    async def _reserve(self) -> None:
        """Reserve the tasks due within the read-ahead; read the earliest left unclaimed."""
        assert self._unclaimed is not None
        ahead = self._settings.read_ahead
        room = dict.fromkeys(KINDS, self._reserve_step(self._unclaimed))
        claim = Claim(self._now() + ahead, room, self._settings.lease + ahead, _unplanned)
        self._ahead.add(await self.queue.reserve(claim))
        self._unclaimed = await self.queue.next_wake() or NEVER

    def _wake_at(self, *, reserved: bool) -> datetime | None:
        """When to look again: to reserve or claim the earliest unclaimed task, or to start
        the earliest reserved one."""
        unclaimed = None if self._unclaimed == NEVER else self._unclaimed
        due = unclaimed is not None and unclaimed <= self._claimed_at
        self._waiting_for_room = due and not reserved  # due, yet not claimed: no room
        if self._waiting_for_room:
            unclaimed = None
        if unclaimed and self._ahead.room > 0 and unclaimed > self._claimed_at:
            unclaimed -= self._settings.read_ahead * RESERVE_AT  # to reserve what follows too
        wakes = [w for w in (unclaimed, self._next_start()) if w is not None]
        return min(wakes) if wakes else None

    def _next_start(self) -> datetime | None:
        """When the earliest reserved task is to be started: ahead of its time if it is safe
        to repeat."""
        task = self._ahead.first()
        if task is None:
            return None
        if not self._attempts.replayable(task):
            return task.next_run
        return task.next_run - lead(len(self._ahead))

    def _starts_now(self) -> bool:
        """Whether the earliest reserved run is to be started: the loop, woken for anything
        else, leaves the rest of its group for then (a write for a group, not one a run)."""
        start = self._next_start()
        return start is not None and start <= self._now()

    def _reserve_step(self, unclaimed: datetime) -> int:
        # A reserve holds the database thread: while reserved runs fall due at any moment, a
        # small one, so that a run due meanwhile waits a few ms. Ahead of a burst (nothing
        # reserved is due before what is still to reserve), large ones.
        soon = self._ahead.next_due()
        quiet = soon is None or soon >= unclaimed or soon - self._now() > RESERVE_QUIET
        step = 4 * self._settings.batch_size if quiet else max(1, self._settings.batch_size // 4)
        return min(self._ahead.room, step)

    async def _claim(self) -> list[Plan]:
        now = self._claimed_at = self._clock.now()
        batch = self._settings.batch_size
        room = {k: min(batch, self._cap(k) - self._held[k]) for k in KINDS}
        room = {k: n for k, n in room.items() if n > 0}
        if not room or self._life in ("stopping", "stopped"):
            return []
        return await self.queue.claim(Claim(now, room, self._settings.lease, self._planner(now)))

    def _planner(self, now: datetime) -> Callable[[Task], Plan]:
        policy = MisfirePolicy(self._settings.grace, self._replays)
        return lambda task: plan(task, now, policy)

    def _dispatch(self, plans: Sequence[Plan], group: asyncio.TaskGroup) -> None:
        missed, firings = [], defaultdict[TaskKind, list[Firing]](list)
        for p in plans:
            if isinstance(p, Firing):
                firings[p.task.kind].append(p)
            elif p.status == "missed":
                missed.append(p)
        for kind, handed in firings.items():
            self._held[kind] += len(handed)
            self._waiting[kind].extend(handed)
        if self._holding():
            self._idle.clear()
        if missed:
            group.create_task(self._reports.dropped(missed, "missed"))

    def _workers(
        self, spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]]
    ) -> list[asyncio.Task[None]]:
        """One worker per run a kind may have in flight, each taking the next claimed run."""
        return [spawn(self._work(kind)) for kind in KINDS for _ in range(self._limit(kind))]

    async def _work(self, kind: TaskKind) -> None:
        waiting = self._waiting[kind]
        while True:
            while not waiting:
                await waiting.wait()
            firing = waiting.take()
            try:
                outcome = await self._attempts.run(firing, self._now())
            except asyncio.CancelledError:
                self._end(Outcome(firing.task, firing.scheduled_for, "released", self._now()))
                raise
            self._end(outcome)

    def _end(self, outcome: Outcome) -> None:
        kind = outcome.task.kind
        self._held[kind] -= 1
        self._backlog.add(outcome)
        if self._waiting_for_room and self._held[kind] <= self._cap(kind) // 2:
            self._wake.set()  # room for another batch of this kind, which due tasks wait for
        if not self._holding():
            self._idle.set()

    def _holding(self) -> bool:
        return any(self._held.values())  # four kinds: cheaper than keeping a total

    async def _drain(self, workers: list[asyncio.Task[None]]) -> None:
        """Let held runs finish within the grace, then return the unstarted, release the rest."""
        if not self._idle.is_set():
            await event_or_time(
                self._idle, self._clock, self._now() + self._settings.shutdown_grace
            )
        await self._stop_workers(workers)
        for unrun in self._started.take_all():  # started ahead of a time that has not come
            self._backlog.add(self._returned(unrun))
        if reserved := self._ahead.take_all():
            await self.queue.unreserve(reserved)

    async def _stop_workers(self, workers: list[asyncio.Task[None]]) -> None:
        """Return the claimed runs no worker started; cancel the workers (releasing theirs)."""
        for waiting in self._waiting.values():
            for unstarted in waiting.take_all():
                self._end(self._returned(unstarted))
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)

    def _returned(self, started: Plan) -> Outcome:
        """A run started but never handed to the executor, given back as it was."""
        replay = isinstance(started, Firing) and started.replay
        return Outcome(started.task, started.scheduled_for, "returned", self._now(), replay=replay)

    def settling_allowed(self) -> bool:
        """Whether the loop caught up and no held run is due in a moment: under a stream of
        runs, outcomes wait for the backlog's bound, not a write for every few runs."""
        if self._phase != "caught_up" or any(self._waiting.values()):
            return False
        soon = self._now() + SETTLE_QUIET
        first = self._started.first()
        return all(due is None or due > soon for due in (first, self._ahead.next_due()))

    def starting_runs(self) -> bool:
        """Whether the loop is starting due runs (between a wake and its next wait)."""
        return self._phase == "starting"

    async def _wait(self, until: datetime | None) -> None:
        # Waiting for workers to make room is not catching up: due tasks are still unclaimed,
        # and claims go before the outcomes' writes.
        self._phase = "waiting_for_room" if self._waiting_for_room else "caught_up"
        self._backlog.nudge()
        try:
            await event_or_time(self._wake, self._clock, until)
        finally:
            self._phase = "starting"

    def _limit(self, kind: TaskKind) -> int:
        return self._settings.concurrency.get(kind, 1)

    def _cap(self, kind: TaskKind) -> int:
        """How many claimed runs of a kind may be held, waiting for a worker or running."""
        return self._limit(kind) * HELD_PER_WORKER

    def _now(self) -> datetime:
        return self._clock.now()


def _unplanned(task: Task) -> Plan:
    raise AssertionError("reserved tasks are planned when their time comes")
