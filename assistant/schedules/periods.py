"""Repeats counted in days or months, and repeats inside work hours: ``every 3 days at 9am``,
``every 4th day at 9``, ``every other month on the 4th at 9``, ``every 15 minutes during work
hours``. Each is a cron expression kept to every n-th day or month from its first run."""

from __future__ import annotations

import re
from dataclasses import replace

from assistant.schedules import vocabulary
from assistant.schedules.parsed import Parsed, Reading, zone_named
from assistant.schedules.schedule import Cron, next_after

_DAYS = re.compile(r"(?:every|each)\s+(\d+)(?:\s+days?|(?:st|nd|rd|th)\s+day)")
_MONTHS = re.compile(
    r"(?:every|each)\s+(\d+)(?:\s+months?|(?:st|nd|rd|th)\s+month)\s+(?:on\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?"
    r"|(?:on\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+of\s+every\s+(\d+)\s+months?"
)
WORK_HOURS = " during work hours"
_FIRST_HOUR, _LAST_HOUR = 9, 17


def counted(reading: Reading, rest: str, tod: vocabulary.TimeOfDay) -> Parsed | None:
    """``every 3 days at 9am`` or ``every 2 months on the 4th at 9``; None for other text."""
    clock = f"{tod.minute} {tod.hour}"
    if match := _DAYS.fullmatch(rest):
        days = int(match[1])
        if not 1 <= days <= 366:
            raise reading.fail("every n days goes from 1 to 366 days")
        said = (
            "every day" if days == 1 else "every other day" if days == 2 else f"every {days} days"
        )
        return _first(
            reading, Cron(f"{clock} * * *", reading.zone, every_days=days), f"{said} at {tod}"
        )
    if match := _MONTHS.fullmatch(rest):
        months, day = int(match[1] or match[4]), int(match[2] or match[3])
        if not 1 <= months <= 24 or not 1 <= day <= 31:
            raise reading.fail("say every 2 to 24 months, on a day from the 1st to the 31st")
        spoken = "every other month" if months == 2 else f"every {months} months"
        said = f"on the {vocabulary.ordinal(day)} of {spoken} at {tod}"
        return _first(reading, Cron(f"{clock} {day} * *", reading.zone, every_months=months), said)
    return None


def _first(reading: Reading, schedule: Cron, said: str) -> Parsed:
    """The schedule counted from its first run: that day, or that month."""
    first = next_after(schedule, reading.now)
    assert first is not None
    anchored = replace(schedule, anchor=first.astimezone(zone_named(reading.zone)).date())
    return reading.parsed(anchored, f"{said}, {reading.zone}", first)


def work_hours(reading: Reading, seconds: int) -> Parsed:
    """``every 15 minutes during work hours``: on weekdays from 9:00, the last run before 17:00
    (or at 17:00 for whole hours)."""
    minutes, hours = seconds // 60, seconds // 3600
    if seconds % 3600 == 0 and hours <= 8:
        step = f"/{hours}" if hours > 1 else ""
        expr, last = f"0 {_FIRST_HOUR}-{_LAST_HOUR}{step} * * 1-5", f"{_LAST_HOUR}:00"
    elif seconds % 60 == 0 and minutes and 60 % minutes == 0:
        expr = f"*/{minutes} {_FIRST_HOUR}-{_LAST_HOUR - 1} * * 1-5"
        last = f"{_LAST_HOUR - 1}:{60 - minutes:02d}"
    else:
        raise reading.fail(
            "during work hours goes with a step that fits an hour (5, 10, 15, 20, 30 minutes) "
            "or whole hours"
        )
    if seconds < reading.minimum.total_seconds():
        least = vocabulary.span(int(reading.minimum.total_seconds()))
        raise reading.fail(
            f"it runs more often than the minimum interval of {least}", "too_frequent"
        )
    spoken = "hour" if seconds == 3600 else vocabulary.span(seconds)
    said = f"every {spoken} on weekdays from 0{_FIRST_HOUR}:00 to {last}"
    first = next_after(Cron(expr, reading.zone), reading.now)
    assert first is not None
    return reading.parsed(Cron(expr, reading.zone), f"{said}, {reading.zone}", first)
