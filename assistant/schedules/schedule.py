"""Normalized schedules and their next run: UTC in and out, wall-clock rules in the user's zone.

Fixed-time schedules (``Once`` given as a local time, a ``Cron`` whose minute and hour fields
are fixed) follow the wall clock: across DST a time in the repeated hour fires once, at its
first occurrence, and a time skipped by the change fires right after the gap. Wildcard cron
jobs (minute or hour field starting with ``*``, as ``0 * * * *``) follow elapsed time, as in
Vixie cron: they run in both passes of a repeated hour and have no run for skipped minutes.
``Interval`` schedules follow elapsed time from an anchor, so they never drift however late a
run was. Day of month and day of week, when both are restricted, match if either does (the
Vixie and croniter rule: ``0 9 13 * 5`` is every 13th and every Friday).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
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
DST_REACH = timedelta(hours=3)  # more than any offset change
PERIOD_TRIES = 2000  # matches of a cron looked at for one in its period (every 12 months: 365)


@dataclass(frozen=True)
class Once:
    """A single run at one instant; ``from_now`` when it was given as a span from now ("in 3
    hours"), whose instant a zone change keeps, not its wall clock."""

    at: datetime
    zone: str
    from_now: bool = False

    kind: Literal["once"] = "once"


@dataclass(frozen=True)
class Interval:
    """Runs every ``seconds`` of elapsed time, on the grid that starts at ``anchor``; none
    after ``until``."""

    seconds: int
    anchor: datetime
    zone: str
    until: datetime | None = None

    kind: Literal["interval"] = "interval"


@dataclass(frozen=True)
class Cron:
    """Runs whenever the five-field cron expression matches the wall clock in ``zone``; none
    after ``until``. With a period above 1, only in every n-th week, day or month counted from
    ``anchor``: the Monday of the first run's week, or the first run's day or month."""

    expr: str
    zone: str
    every_weeks: int = 1
    anchor: date | None = None
    every_days: int = 1
    every_months: int = 1
    until: datetime | None = None

    kind: Literal["cron"] = "cron"

    def in_period(self, local: date) -> bool:
        """Whether ``local`` falls in one of the schedule's weeks, days or months."""
        if self.anchor is None:
            return True
        if self.every_days > 1:
            return (local - self.anchor).days % self.every_days == 0
        if self.every_months > 1:
            months = (local.year - self.anchor.year) * 12 + local.month - self.anchor.month
            return months % self.every_months == 0
        if self.every_weeks > 1:
            return ((local - self.anchor).days // 7) % self.every_weeks == 0
        return True


Schedule = Once | Interval | Cron


def is_recurring(schedule: Schedule) -> bool:
    """Whether the schedule has runs after its first."""
    return schedule.kind != "once"


def next_after(schedule: Schedule, after: datetime) -> datetime | None:
    """The first run strictly after ``after`` (UTC), or None when there is none."""
    if isinstance(schedule, Once):
        return schedule.at if schedule.at > after else None
    run = _next_repeat(schedule, after)
    return None if schedule.until is not None and run > schedule.until else run


def _next_repeat(schedule: Interval | Cron, after: datetime) -> datetime:
    if isinstance(schedule, Interval):
        step = timedelta(seconds=schedule.seconds)
        if after < schedule.anchor:
            return schedule.anchor
        return schedule.anchor + ((after - schedule.anchor) // step + 1) * step
    if isinstance(schedule, Cron):
        zone = ZoneInfo(schedule.zone)
        run = _next_cron(schedule.expr, zone, after)
        for _ in range(PERIOD_TRIES):
            if schedule.in_period(run.astimezone(zone).date()):
                return run
            run = _next_cron(schedule.expr, zone, run)
        raise ScheduleError(f"the schedule {schedule.expr!r} never falls in its period")
    assert_never(schedule)


def latest_due(schedule: Schedule, slot: datetime, now: datetime) -> tuple[datetime, int]:
    """The last run at or before ``now``, counting from ``slot``, and how many were passed over.

    The count stops at ``MAX_COUNTED``; past it only the last run is looked for, a day back.
    """
    if isinstance(schedule, Interval) and now >= slot and schedule.until is None:
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
    if _wildcard(expr):
        return _next_elapsed(expr, zone, after)
    for candidate in _walls(expr, after.astimezone(zone).replace(tzinfo=None)):
        at = to_utc(candidate, zone)
        if at > after:
            return at
    raise AssertionError("unreachable: _walls ends only by raising")


def _walls(expr: str, start: datetime) -> Iterator[datetime]:
    """The naive wall times the expression matches after ``start``, in order."""
    walker = _walker(expr)
    walker.set_current(start, force=True)
    while True:
        try:
            yield walker.get_next(datetime)
        except CroniterBadDateError:
            raise ScheduleError(f"the cron expression {expr!r} never matches a date") from None


def _wildcard(expr: str) -> bool:
    minute, hour = expr.split()[:2]
    return minute.startswith("*") or hour.startswith("*")


def _next_elapsed(expr: str, zone: ZoneInfo, after: datetime) -> datetime:
    """The next instant whose wall time matches: both passes of a repeated hour, no skipped
    minute. Walks wall times from a little before ``after``, as offsets move by hours."""
    before, beyond = (after + d * DST_REACH for d in (-1, 1))
    steady = before.astimezone(zone).utcoffset() == beyond.astimezone(zone).utcoffset()
    back = timedelta(0) if steady else DST_REACH  # no offset change near: no need to look back
    best: datetime | None = None
    for candidate in _walls(expr, after.astimezone(zone).replace(tzinfo=None) - back):
        instants = _instants(candidate, zone)
        later = [i for i in instants if i > after] + ([best] if best is not None else [])
        best = min(later, default=None)
        if best is not None and (steady or (instants and instants[0] - DST_REACH > best)):
            return best  # later wall times cannot name an earlier instant
    raise AssertionError("unreachable: _walls ends only by raising")


def _instants(wall: datetime, zone: ZoneInfo) -> list[datetime]:
    """The instants a wall time names: none in a gap, two in a repeated hour, else one."""
    if not _exists(wall, zone):
        return []
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    second = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    return [first] if first == second else sorted({first, second})


@lru_cache(maxsize=1024)
def _walker(expr: str) -> croniter:
    # Walking naive wall times keeps croniter out of DST; to_utc applies our rules instead.
    return croniter(expr, datetime(2000, 1, 1))


_COMPACT = json.JSONEncoder(separators=(",", ":"))


def to_json(schedule: Schedule) -> str:
    """The schedule as the JSON stored in ``scheduled_tasks.schedule_data``."""
    data: dict[str, Any] = {"kind": schedule.kind, "zone": schedule.zone}
    if isinstance(schedule, Once):
        data["at"] = schedule.at.isoformat()
        if schedule.from_now:
            data["from_now"] = True
    elif isinstance(schedule, Interval):
        data |= {"seconds": schedule.seconds, "anchor": schedule.anchor.isoformat()}
    else:
        data["cron"] = schedule.expr
        data |= _periods(schedule)
    if not isinstance(schedule, Once) and schedule.until is not None:
        data["until"] = schedule.until.isoformat()
    return _COMPACT.encode(data)


def _periods(schedule: Cron) -> dict[str, Any]:
    if schedule.anchor is None:
        return {}
    if schedule.every_weeks > 1:
        return {"weeks": schedule.every_weeks, "week_of": schedule.anchor.isoformat()}
    if schedule.every_days > 1:
        return {"days": schedule.every_days, "from": schedule.anchor.isoformat()}
    if schedule.every_months > 1:
        return {"months": schedule.every_months, "from": schedule.anchor.isoformat()}
    return {}


def from_json(text: str) -> Schedule:
    """Read back what ``to_json`` stored."""
    data = json.loads(text)
    kind: ScheduleKind = data["kind"]
    if kind == "once":
        return Once(datetime.fromisoformat(data["at"]), data["zone"], bool(data.get("from_now")))
    until = datetime.fromisoformat(data["until"]) if "until" in data else None
    if kind == "interval":
        anchor = datetime.fromisoformat(data["anchor"])
        return Interval(int(data["seconds"]), anchor, data["zone"], until)
    if kind == "cron":
        since = data.get("week_of") or data.get("from")
        return Cron(
            data["cron"],
            data["zone"],
            int(data.get("weeks", 1)),
            date.fromisoformat(since) if since else None,
            int(data.get("days", 1)),
            int(data.get("months", 1)),
            until,
        )
    assert_never(kind)
