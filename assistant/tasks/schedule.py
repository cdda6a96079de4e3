"""Normalized schedules and their next run: UTC in and out, wall-clock rules in the user's zone.

Fixed-time schedules (``Once`` given as a local time, ``Cron``) follow the wall clock: across
DST a time in the repeated hour fires once, at its first occurrence, and a time skipped by the
change fires right after the gap. ``Interval`` schedules follow elapsed time from an anchor,
so they never drift however late a run was.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Literal, assert_never
from zoneinfo import ZoneInfo

from croniter import croniter
from croniter.croniter import CroniterBadDateError

from assistant.errors import ScheduleError

ScheduleKind = Literal["once", "interval", "cron"]
MINUTE = timedelta(minutes=1)
# The longest a wall time can be skipped: Samoa dropped a whole day in 2011.
LONGEST_GAP_MINUTES = 24 * 60 + 1
MAX_COUNTED = 1000


@dataclass(frozen=True)
class Once:
    """A single run at one instant."""

    at: datetime
    zone: str

    kind: Literal["once"] = "once"


@dataclass(frozen=True)
class Interval:
    """Runs every ``seconds`` of elapsed time, on the grid that starts at ``anchor``."""

    seconds: int
    anchor: datetime
    zone: str

    kind: Literal["interval"] = "interval"


@dataclass(frozen=True)
class Cron:
    """Runs whenever the five-field cron expression matches the wall clock in ``zone``."""

    expr: str
    zone: str

    kind: Literal["cron"] = "cron"


Schedule = Once | Interval | Cron


def is_recurring(schedule: Schedule) -> bool:
    """Whether the schedule has runs after its first."""
    return schedule.kind != "once"


def next_after(schedule: Schedule, after: datetime) -> datetime | None:
    """The first run strictly after ``after`` (UTC), or None when there is none."""
    if isinstance(schedule, Once):
        return schedule.at if schedule.at > after else None
    if isinstance(schedule, Interval):
        step = timedelta(seconds=schedule.seconds)
        if after < schedule.anchor:
            return schedule.anchor
        return schedule.anchor + ((after - schedule.anchor) // step + 1) * step
    if isinstance(schedule, Cron):
        return _next_cron(schedule.expr, ZoneInfo(schedule.zone), after)
    assert_never(schedule)


def latest_due(schedule: Schedule, slot: datetime, now: datetime) -> tuple[datetime, int]:
    """The last run at or before ``now``, counting from ``slot``, and how many were passed over.

    The count stops at ``MAX_COUNTED``; past it only the last run is looked for, a day back.
    """
    if isinstance(schedule, Interval) and now >= slot:
        step = timedelta(seconds=schedule.seconds)
        skipped = (now - slot) // step
        return slot + skipped * step, skipped
    skipped = 0
    while (following := next_after(schedule, slot)) is not None and following <= now:
        slot, skipped = following, skipped + 1
        if skipped == MAX_COUNTED:
            return _walk_to(schedule, slot, max(slot, now - timedelta(days=1)), now), skipped
    return slot, skipped


def _walk_to(schedule: Schedule, last: datetime, start: datetime, now: datetime) -> datetime:
    while (following := next_after(schedule, start)) is not None and following <= now:
        last = start = following
    return last


def to_utc(wall: datetime, zone: ZoneInfo) -> datetime:
    """The instant a naive wall time first happens in ``zone``; a skipped one maps past the gap."""
    if _exists(wall, zone):
        return wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    probe = wall.replace(second=0, microsecond=0)
    for _ in range(LONGEST_GAP_MINUTES):
        probe += MINUTE
        if _exists(probe, zone):
            return probe.replace(tzinfo=zone, fold=0).astimezone(UTC)
    raise ScheduleError(f"{wall:%Y-%m-%d %H:%M} does not exist in {zone.key}")


def _exists(wall: datetime, zone: ZoneInfo) -> bool:
    there = wall.replace(tzinfo=zone, fold=0).astimezone(UTC).astimezone(zone)
    return there.replace(tzinfo=None) == wall


def _next_cron(expr: str, zone: ZoneInfo, after: datetime) -> datetime:
    wall = after.astimezone(zone).replace(tzinfo=None)
    walker = _walker(expr)
    walker.set_current(wall, force=True)
    while True:
        try:
            candidate = walker.get_next(datetime)
        except CroniterBadDateError:
            raise ScheduleError(f"the cron expression {expr!r} never matches a date") from None
        at = to_utc(candidate, zone)
        if at > after:
            return at


@lru_cache(maxsize=1024)
def _walker(expr: str) -> croniter:
    # Walking naive wall times keeps croniter out of DST; to_utc applies our rules instead.
    return croniter(expr, datetime(2000, 1, 1))


def to_json(schedule: Schedule) -> str:
    """The schedule as the JSON stored in ``scheduled_tasks.schedule_data``."""
    data: dict[str, Any] = {"kind": schedule.kind, "zone": schedule.zone}
    if isinstance(schedule, Once):
        data["at"] = schedule.at.isoformat()
    elif isinstance(schedule, Interval):
        data |= {"seconds": schedule.seconds, "anchor": schedule.anchor.isoformat()}
    else:
        data["cron"] = schedule.expr
    return json.dumps(data, separators=(",", ":"))


def from_json(text: str) -> Schedule:
    """Read back what ``to_json`` stored."""
    data = json.loads(text)
    kind: ScheduleKind = data["kind"]
    if kind == "once":
        return Once(datetime.fromisoformat(data["at"]), data["zone"])
    if kind == "interval":
        return Interval(int(data["seconds"]), datetime.fromisoformat(data["anchor"]), data["zone"])
    if kind == "cron":
        return Cron(data["cron"], data["zone"])
    assert_never(kind)
