"""After a restart: the runs a crash interrupted, repeated where safe and reported where not."""

from __future__ import annotations

import logging
from datetime import datetime

from assistant.clock import Clock
from assistant.scheduler.attempt import Attempts
from assistant.scheduler.queue import DueQueue
from assistant.scheduler.reports import Reports
from assistant.tasks.runs import Dropped, Firing, Outcome

log = logging.getLogger(__name__)


async def recover(
    queue: DueQueue, attempts: Attempts, reports: Reports, clock: Clock
) -> frozenset[tuple[str, datetime]]:
    """Release stale leases; return the interrupted runs to repeat, abandon and report the rest."""
    now = clock.now()
    interrupted: list[Firing] = []
    ahead: list[Firing] = []
    for firing in await queue.recover():
        # A run safe to repeat whose time has not come was started ahead and has not gone
        # out (it fires once its time comes): it is returned unrun, to fire with no note.
        early = firing.task.next_run > now and attempts.replayable(firing.task)
        (ahead if early else interrupted).append(firing)
    if ahead:
        await queue.settle([Outcome(f.task, f.scheduled_for, "returned", now) for f in ahead])
    unsafe = [f for f in interrupted if not attempts.replayable(f.task)]
    replays = {(f.task.id, f.scheduled_for) for f in interrupted}
    if unsafe:
        reason = "interrupted by a restart and not repeated, as it may have taken effect"
        dropped = [Dropped(f.task, f.scheduled_for, "abandoned", reason) for f in unsafe]
        await queue.abandon(dropped, now)
        await reports.dropped(dropped, "abandoned")
    if interrupted:
        log.warning("recovered %d interrupted runs (%d abandoned)", len(interrupted), len(unsafe))
    return frozenset(replays - {(f.task.id, f.scheduled_for) for f in unsafe})
