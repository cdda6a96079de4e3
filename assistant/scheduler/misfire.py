"""What to do with a claimed task that is late: fire it with a note, coalesce, skip or miss it."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from assistant.scheduler.delivery import local_time
from assistant.schedules.schedule import latest_due
from assistant.tasks.runs import Dropped, Firing, Plan
from assistant.tasks.task import Task

# Later than this counts as late: the run's message says when it was due.
ON_TIME = timedelta(minutes=1)


@dataclass(frozen=True)
class MisfirePolicy:
    """How late a run may still fire, and which runs a crash interrupted."""

    grace: timedelta = timedelta(hours=24)
    replays: Set[tuple[str, datetime]] = field(default_factory=frozenset)


def plan(task: Task, now: datetime, policy: MisfirePolicy) -> Plan:
    """Decide the run for a claimed task: which slot it is for and whether it fires."""
    slot = task.due_at
    if task.attempts:
        return Firing(task, slot, f"attempt {task.attempts + 1}")
    if policy.replays and (task.id, slot) in policy.replays:
        note = "sent again after a restart; it may have arrived already"
        return Firing(task, slot, note, replay=True)
    skipped = 0
    if task.schedule_kind != "once":
        slot, skipped = latest_due(task.schedule, slot, now)
    late = now - slot
    if late <= ON_TIME:
        return Firing(task, slot)
    due = f"was due {local_time(slot, task.timezone, now)}"
    if task.misfire == "skip":
        return Dropped(task, slot, "skipped", f"{due}; late runs of this task are skipped")
    if late > policy.grace:
        return Dropped(task, slot, "missed", f"{due}; too late to run")
    earlier = f"; {skipped} earlier run{'s' if skipped > 1 else ''} missed" if skipped else ""
    return Firing(task, slot, f"late: {due}{earlier}", skipped=skipped)
