"""The scheduler: one sleeper over the due end of the table, claims in batches, bounded runs.

It waits until the earliest ``next_run`` or until woken (a task added, changed or a slot freed),
claims due tasks under a lease, runs them concurrently under a bound per kind, and writes the
outcomes back in batches. On start it recovers runs a crash interrupted; on stop it lets runs
in flight finish within a grace and releases the rest.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from assistant.clock import Clock
from assistant.errors import RetryableRunError, RunError
from assistant.tasks.delivery import Executor, Notice, Outbox
from assistant.tasks.misfire import MisfirePolicy, plan
from assistant.tasks.queue import Claim, Dropped, DueQueue, Firing, Outcome, Plan
from assistant.tasks.task import KINDS, Owner, Task, TaskKind

log = logging.getLogger(__name__)

DEFAULT_CONCURRENCY: Mapping[TaskKind, int] = {
    "reminder": 256,
    "api_call": 8,
    "web_search": 4,
    "agent_task": 2,
}
ERROR_PAUSE = timedelta(seconds=5)
BACKLOG_BATCHES = 10


@dataclass(frozen=True)
class SchedulerSettings:
    """Timing and bounds of the scheduler; the defaults are the config's."""

    grace: timedelta = timedelta(hours=24)
    max_attempts: int = 5
    retry_base: timedelta = timedelta(seconds=30)
    retry_max: timedelta = timedelta(hours=1)
    run_timeout: float = 120.0
    report_timeout: float = 30.0
    batch_size: int = 500
    shutdown_grace: timedelta = timedelta(seconds=5)
    concurrency: Mapping[TaskKind, int] = field(default_factory=lambda: dict(DEFAULT_CONCURRENCY))

    @property
    def lease(self) -> timedelta:
        """How long a claim holds: a run's timeout and a margin."""
        return timedelta(seconds=self.run_timeout + 60)


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
        wake: asyncio.Event | None = None,
    ) -> None:
        self._clock = clock
        self._executors = executors
        self._outbox = outbox
        self._settings = settings or SchedulerSettings()
        self.queue = DueQueue(database, secrets.token_hex(6))
        self._slots = {k: asyncio.Semaphore(self._limit(k)) for k in KINDS}
        self._pending: dict[TaskKind, int] = defaultdict(int)
        self._replays: frozenset[tuple[str, datetime]] = frozenset()
        self._outcomes: list[Outcome] = []
        self._running: set[asyncio.Task[None]] = set()
        self._wake = wake or asyncio.Event()  # the store's on_change may set it too
        self._recorded = asyncio.Event()
        self._stopping = False
        self._closing = False
        self.alive = False  # between recovery and the end of the loop: for /healthz
        self._caught_up = True
        self._claimed_at = datetime.min.replace(tzinfo=UTC)

    async def close(self) -> None:
        """Close the scheduler's own connection to the database."""
        await self.queue.close()

    def wake(self) -> None:
        """Look at the table again: a task was added, changed, or a slot freed."""
        self._wake.set()

    def stop(self) -> None:
        """Ask ``run`` to stop claiming, let runs in flight finish, and return."""
        self._stopping = True
        self._wake.set()

    async def run(self) -> None:
        """Recover, then fire tasks as they fall due until ``stop``."""
        await self.recover()
        self.alive = True
        try:
            async with asyncio.TaskGroup() as group:
                recorder = group.create_task(self._recorder())
                try:
                    await self._loop(group)
                finally:
                    await self._drain()
                    self._closing = True
                    self._recorded.set()
                    await recorder
            await self._flush()
        finally:
            self.alive = False

    async def recover(self) -> None:
        """Release stale leases; repeat interrupted runs that are safe to, report the rest."""
        interrupted = await self.queue.recover()
        unsafe = [f for f in interrupted if not self._replayable(f.task)]
        self._replays = frozenset((f.task.id, f.scheduled_for) for f in interrupted) - {
            (f.task.id, f.scheduled_for) for f in unsafe
        }
        if unsafe:
            reason = "interrupted by a restart and not repeated, as it may have taken effect"
            dropped = [Dropped(f.task, f.scheduled_for, "abandoned", reason) for f in unsafe]
            await self.queue.abandon(dropped, self._clock.now())
            await self._report_dropped(dropped, "abandoned")
        if interrupted:
            log.warning(
                "recovered %d interrupted runs (%d abandoned)", len(interrupted), len(unsafe)
            )

    async def fire_due(self) -> int:
        """Fire every task due now, wait for the runs and record them; return how many ran."""
        total = 0
        await self._flush()
        while plans := await self._claim():
            async with asyncio.TaskGroup() as group:
                self._dispatch(plans, group)
            await self._flush()
            total += len(plans)
        return total

    async def _loop(self, group: asyncio.TaskGroup) -> None:
        while not self._stopping:
            self._wake.clear()
            try:
                plans = await self._claim()
                self._dispatch(plans, group)
                if plans:
                    continue  # more may be due: claim again before sleeping or writing
                wake_at = await self.queue.next_wake()
            except sqlite3.Error:
                log.exception("the scheduler could not read the task table; retrying")
                wake_at = self._clock.now() + ERROR_PAUSE
            else:
                if wake_at and wake_at <= self._claimed_at:
                    wake_at = None  # due when we claimed, yet not claimed: wait for a free slot
            await self._wait(wake_at)

    async def _claim(self) -> list[Plan]:
        now = self._claimed_at = self._clock.now()
        free = {k: self._limit(k) - self._pending[k] for k in KINDS}
        kinds = [k for k in KINDS if free[k] > 0]
        if not kinds or self._stopping:
            return []
        limit = min(self._settings.batch_size, sum(free[k] for k in kinds))
        policy = MisfirePolicy(self._settings.grace, self._replays)
        return await self.queue.claim(
            Claim(now, limit, kinds, self._settings.lease, lambda task: plan(task, now, policy))
        )

    def _dispatch(self, plans: Sequence[Plan], group: asyncio.TaskGroup) -> None:
        missed = [p for p in plans if isinstance(p, Dropped) and p.status == "missed"]
        for firing in (p for p in plans if isinstance(p, Firing)):
            self._pending[firing.task.kind] += 1
            running = group.create_task(self._fire(firing))
            self._running.add(running)
            running.add_done_callback(self._running.discard)
        if missed:
            group.create_task(self._report_dropped(missed, "missed"))

    async def _fire(self, firing: Firing) -> None:
        kind = firing.task.kind
        try:
            async with self._slots[kind]:
                outcome = await self._execute(firing)
        except asyncio.CancelledError:
            self._record(Outcome(firing.task, firing.scheduled_for, "released", self._clock.now()))
            raise
        finally:
            self._pending[kind] -= 1
            if self._pending[kind] == self._limit(kind) - 1:
                self._wake.set()
        self._record(outcome)

    async def _execute(self, firing: Firing) -> Outcome:
        started = self._clock.now()
        outcome = await self._attempt(firing)
        return replace(outcome, started_at=started)

    async def _attempt(self, firing: Firing) -> Outcome:
        task, slot = firing.task, firing.scheduled_for
        executor = self._executors.get(task.kind)
        try:
            if executor is None:
                raise RunError(f"this installation cannot run {task.kind} tasks")
            async with asyncio.timeout(self._settings.run_timeout):
                delivery = await executor.run(firing)
        except RetryableRunError as exc:
            return self._retry_or_fail(task, slot, str(exc))
        except RunError as exc:
            return Outcome(task, slot, "error", self._clock.now(), error=str(exc))
        except TimeoutError:
            reason = f"took longer than {self._settings.run_timeout:g} s"
            if executor is not None and executor.replayable(task):
                return self._retry_or_fail(task, slot, reason)
            return Outcome(task, slot, "error", self._clock.now(), error=reason)
        except Exception:
            reference = secrets.token_hex(4)
            log.exception("task %s failed with an internal error (ref %s)", task.id, reference)
            reason = f"an internal error stopped it (reference {reference})"
            return Outcome(task, slot, "error", self._clock.now(), error=reason)
        now = self._clock.now()
        return Outcome(task, slot, "ok", now, delivery.message_id, summary=delivery.summary)

    def _retry_or_fail(self, task: Task, slot: datetime, reason: str) -> Outcome:
        now = self._clock.now()
        attempt = task.attempts + 1
        if attempt >= self._settings.max_attempts:
            return Outcome(
                task, slot, "error", now, error=f"{reason} (gave up after {attempt} tries)"
            )
        backoff = min(self._settings.retry_base * 2 ** (attempt - 1), self._settings.retry_max)
        return Outcome(task, slot, "retry", now, error=reason, retry_at=now + backoff)

    def _record(self, outcome: Outcome) -> None:
        # While due tasks are still being claimed, outcomes wait: claims come first, and the
        # outcomes go in one write when the loop catches up (or the backlog grows too long).
        self._outcomes.append(outcome)
        if self._caught_up or len(self._outcomes) >= BACKLOG_BATCHES * self._settings.batch_size:
            self._recorded.set()

    async def _recorder(self) -> None:
        while not self._closing:
            await self._recorded.wait()
            self._recorded.clear()
            if not await self._flush() and not self._closing:
                await self._clock.sleep_until(self._clock.now() + ERROR_PAUSE)
                self._recorded.set()

    async def _flush(self) -> bool:
        batch, self._outcomes = self._outcomes, []
        if not batch:
            return True
        try:
            await self.queue.settle(batch)
        except sqlite3.Error:
            log.exception("could not record %d finished runs; will try again", len(batch))
            self._outcomes = batch + self._outcomes
            return False
        except BaseException:
            self._outcomes = batch + self._outcomes
            raise
        self._wake.set()
        await self._report_failures(batch)
        return True

    async def _drain(self) -> None:
        if not self._running:
            return
        deadline = self._clock.now() + self._settings.shutdown_grace
        grace = asyncio.ensure_future(self._clock.sleep_until(deadline))
        try:
            await asyncio.wait({grace, *self._running}, return_when=asyncio.FIRST_COMPLETED)
            while self._running and not grace.done():
                await asyncio.wait({grace, *self._running}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            grace.cancel()
        for running in list(self._running):
            running.cancel()
        await asyncio.gather(*self._running, grace, return_exceptions=True)

    async def _wait(self, until: datetime | None) -> None:
        self._caught_up = True
        if self._outcomes:
            self._recorded.set()
        waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(self._wake.wait())}
        if until is not None:
            waits.add(asyncio.ensure_future(self._clock.sleep_until(until)))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
            self._caught_up = False

    async def _report_failures(self, outcomes: Sequence[Outcome]) -> None:
        for o in outcomes:
            if o.status == "error":
                text = f"⚠️ Task {o.task.id} ({o.task.description}) failed: {o.error}"
                await self._report(Notice(o.task.owner, text, "report", o.task.id))

    async def _report_dropped(self, dropped: Sequence[Dropped], what: str) -> None:
        by_owner: dict[Owner, list[Dropped]] = defaultdict(list)
        for d in dropped:
            by_owner[d.task.owner].append(d)
        heading = {
            "missed": "While I was not running, these came due and were missed:",
            "abandoned": "A restart interrupted these; they were not repeated. Check them:",
        }[what]
        for owner, items in by_owner.items():
            lines = [f"• {d.task.id} {d.task.description} ({d.reason})" for d in items]
            await self._report(Notice(owner, "\n".join([heading, *lines])))

    async def _report(self, notice: Notice) -> None:
        try:
            async with asyncio.timeout(self._settings.report_timeout):
                await self._outbox.deliver(notice)
        except (RunError, TimeoutError) as exc:
            log.warning("could not tell user %s: %s", notice.owner.user_id, exc)
        except Exception:
            log.exception("could not tell user %s", notice.owner.user_id)

    def _replayable(self, task: Task) -> bool:
        executor = self._executors.get(task.kind)
        return executor is not None and executor.replayable(task)

    def _limit(self, kind: TaskKind) -> int:
        return self._settings.concurrency.get(kind, 1)
