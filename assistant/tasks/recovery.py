"""After a restart: the runs a crash interrupted, repeated where safe and reported where not."""

from __future__ import annotations

import logging
from datetime import datetime

from assistant.clock import Clock
from assistant.tasks.attempt import Attempts
from assistant.tasks.queue import DueQueue
from assistant.tasks.reports import Reports
from assistant.tasks.runs import Dropped

log = logging.getLogger(__name__)


async def recover(
    queue: DueQueue, attempts: Attempts, reports: Reports, clock: Clock
) -> frozenset[tuple[str, datetime]]:
    """Release stale leases; return the interrupted runs to repeat, abandon and report the rest."""
    interrupted = await queue.recover()
    unsafe = [f for f in interrupted if not attempts.replayable(f.task)]
    replays = {(f.task.id, f.scheduled_for) for f in interrupted}
    if unsafe:
        reason = "interrupted by a restart and not repeated, as it may have taken effect"
        dropped = [Dropped(f.task, f.scheduled_for, "abandoned", reason) for f in unsafe]
        await queue.abandon(dropped, clock.now())
        await reports.dropped(dropped, "abandoned")
    if interrupted:
        log.warning("recovered %d interrupted runs (%d abandoned)", len(interrupted), len(unsafe))
    return frozenset(replays - {(f.task.id, f.scheduled_for) for f in unsafe})
