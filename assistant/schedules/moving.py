"""A schedule moved to another time zone with its wall-clock meaning kept: 08:00 on weekdays
stays 08:00, a one-shot "tomorrow at 9" stays at 9; a one-shot given as a span from now ("in 3
hours") and an interval keep their instants."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import assert_never
from zoneinfo import ZoneInfo

from assistant.schedules.schedule import Cron, Interval, Once, Schedule


def moved(schedule: Schedule, zone: str) -> Schedule:
    """``schedule`` as the same wall clock reads it in ``zone``."""
    if isinstance(schedule, Once):
        if schedule.from_now:
            return replace(schedule, zone=zone)
        return Once(_same_wall(schedule.at, schedule.zone, zone), zone)
    if isinstance(schedule, Interval):
        return replace(schedule, zone=zone)  # elapsed time knows no zone
    if isinstance(schedule, Cron):
        until = schedule.until and _same_wall(schedule.until, schedule.zone, zone)
        return replace(schedule, zone=zone, until=until)
    assert_never(schedule)


def _same_wall(moment: datetime, before: str, after: str) -> datetime:
    """The instant that shows, in ``after``, the wall time ``moment`` showed in ``before``."""
    wall = moment.astimezone(ZoneInfo(before)).replace(tzinfo=None)
    return wall.replace(tzinfo=ZoneInfo(after)).astimezone(moment.tzinfo)
