"""Finished runs waiting to be written: after the firing, in steps, within bounds.

Firing comes first. While due runs are being started or wait for a worker, their outcomes
are held here and written once the scheduler catches up, a step a transaction, so that a
claim queued behind a write waits for one step, not all of them. They wait no longer than
``SETTLE_WITHIN`` once the scheduler is no longer starting runs, and no more than
``BACKLOG_BATCHES`` batches of them are ever held.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections import deque
from collections.abc import Callable
from datetime import timedelta
from typing import Protocol

from assistant.clock import Clock, event_or_time
from assistant.scheduler.queue import DueQueue
from assistant.scheduler.reports import Reports
from assistant.tasks.runs import Outcome

log = logging.getLogger(__name__)

ERROR_PAUSE = timedelta(seconds=5)
BACKLOG_BATCHES = 250  # outcomes wait for the loop to catch up, up to this many batches
SETTLE_WITHIN = timedelta(seconds=1)  # and at most this long once it no longer starts runs
# Outcomes written per transaction while tasks may fall due at any moment: a run due then
# waits for one such write (a few ms) on the database thread, not for a whole batch.
SETTLE_STEP = 64


class Pace(Protocol):
    """What the scheduler tells its backlog about its own work."""

    def settling_allowed(self) -> bool:
        """Whether nothing waits to be fired, so that outcomes may be written now."""
        ...

    def starting_runs(self) -> bool:
        """Whether due runs are being started right now (outcomes then wait)."""
        ...


class Backlog:
    """Holds finished runs and writes them back when the scheduler's pace allows."""

    def __init__(
        self,
        queue: DueQueue,
        reports: Reports,
        clock: Clock,
        batch: int,
        *,
        wake: Callable[[], None],
        pace: Pace,
    ) -> None:
        self._queue = queue
        self._pace = pace  # the scheduler, whose work decides when outcomes are written
        self._reports = reports
        self._clock = clock
        self._batch = batch
        self._most = BACKLOG_BATCHES * batch
        self._wake = wake  # a written run leaves its task due again: look at the table
        self._outcomes: deque[Outcome] = deque()
        self._added = asyncio.Event()
        self._closing = False

    def __len__(self) -> int:
        return len(self._outcomes)

    def add(self, outcome: Outcome) -> None:
        """Hold a finished run until it can be written."""
        self._outcomes.append(outcome)
        if len(self._outcomes) == 1 or self._may_settle():
            self._added.set()  # to write, or to start the oldest one's clock

    def nudge(self) -> None:
        """The scheduler caught up: look at what is held."""
        if self._outcomes:
            self._added.set()

    def close(self) -> None:
        """Let ``run`` return after the step it is writing."""
        self._closing = True
        self._added.set()

    async def run(self) -> None:
        """Write held outcomes as the pace allows, until ``close``."""
        pace = self._pace
        while not self._closing:
            # While due runs are being started, the scheduler's next wait nudges.
            deferred = pace.starting_runs() or not self._outcomes
            until = None if deferred else self._outcomes[0].finished_at + SETTLE_WITHIN
            await event_or_time(self._added, self._clock, until)
            self._added.clear()
            while self._outcomes and (self._may_settle() or self._overdue()):
                written = await self.write(self._step())
                if not written:
                    if not self._closing:
                        await self._clock.sleep_until(self._clock.now() + ERROR_PAUSE)
                        self._added.set()
                    break

    async def write_all(self) -> None:
        """Write every outcome still held, a bounded step a transaction."""
        while self._outcomes and await self.write(4 * self._batch):
            pass

    async def write(self, most: int | None = None) -> bool:
        """Write up to ``most`` of the oldest outcomes in one transaction; False if it failed
        (they are held again)."""
        most = len(self._outcomes) if most is None else min(most, len(self._outcomes))
        batch = [self._outcomes.popleft() for _ in range(most)]
        if not batch:
            return True
        try:
            await self._queue.settle(batch)
        except sqlite3.Error:
            log.exception("could not record %d finished runs; will try again", len(batch))
            self._outcomes.extendleft(reversed(batch))
            return False
        except BaseException:
            self._outcomes.extendleft(reversed(batch))
            raise
        if any(_comes_again(outcome) for outcome in batch):
            self._wake()
        await self._reports.failures(batch)
        return True

    def _may_settle(self) -> bool:
        return len(self._outcomes) >= self._most or self._pace.settling_allowed()

    def _overdue(self) -> bool:
        if self._pace.starting_runs():
            return False  # starting due runs goes first; the backlog's bound still holds
        return self._clock.now() >= self._outcomes[0].finished_at + SETTLE_WITHIN

    def _step(self) -> int:
        # A long backlog goes in larger steps (each write costs less a run), still short enough
        # that a claim queued behind one waits a few tens of ms.
        return max(SETTLE_STEP, min(len(self._outcomes) // 16, self._batch))


def _comes_again(outcome: Outcome) -> bool:
    """Whether a written run leaves its task due again: recurring, retried or let go."""
    return outcome.status not in ("ok", "error") or outcome.task.schedule_kind != "once"
