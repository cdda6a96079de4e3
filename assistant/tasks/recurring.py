"""Recurring schedules: intervals, days of the week or month at a time, cron and its aliases."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from itertools import pairwise

from croniter import croniter

from assistant.errors import ScheduleError
from assistant.tasks import words
from assistant.tasks.reading import (
    MAX_AHEAD,
    MIN_INTERVAL,
    Parsed,
    Reading,
    check_length,
    without,
    zone_named,
)
from assistant.tasks.schedule import MINUTE, Cron, Interval, next_after

RECURRING_FORMS = (
    "every 15m, daily 9am, every day at 9:30, weekdays 6pm, weekends 10am, every monday 10am, "
    "mondays and thursdays 8:15, 1st of every month 9am, every year on dec 24 18:00, "
    "*/15 * * * *, @hourly, @daily"
)
ALIASES = {
    "@yearly": ("0 0 1 1 *", "every year on 1 January at 00:00"),
    "@annually": ("0 0 1 1 *", "every year on 1 January at 00:00"),
    "@monthly": ("0 0 1 * *", "on the 1st of every month at 00:00"),
    "@weekly": ("0 0 * * 0", "every Sunday at 00:00"),
    "@daily": ("0 0 * * *", "every day at 00:00"),
    "@midnight": ("0 0 * * *", "every day at 00:00"),
    "@hourly": ("0 * * * *", "every hour, on the hour"),
}
# Runs sampled to check a cron expression against a minimum interval above one minute.
CRON_SAMPLE = 50
_CRON_FIELD = re.compile(r"(?:\*|\d+|[a-z]{3})(?:-(?:\d+|[a-z]{3}))?(?:/\d+)?")
_MONTH_DAY = re.compile(
    r"(?:on\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+)?of\s+(?:every|each|the)\s+month"
    r"|(?:(?:every\s+|each\s+)?month|monthly)\s+on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?"
)
_YEARLY = re.compile(r"(?:(?:every\s+)?year|yearly|annually)\s+on\s+(.+)|(.+?)\s+every\s+year")
_DAY_LIST_SPLIT = re.compile(r"\s*(?:,|&|/|\band\b|\s)\s*")
_DAILY = ("day", "daily", "everyday", "days")
_WEEKDAYS = ("weekday", "weekdays", "workday", "workdays")
_WEEKENDS = ("weekend", "weekends", "weekend day", "weekend days")


def parse_recurring(
    text: str, zone: str, now: datetime, min_interval: timedelta = MIN_INTERVAL
) -> Parsed:
    """Read a recurring schedule in ``zone``; ``now`` is UTC."""
    check_length(text)
    zone_named(zone)
    reading = Reading(text, zone, now, RECURRING_FORMS, min_interval)
    t = reading.words
    if not t:
        raise reading.fail("it is empty")
    if t.startswith("@"):
        if t not in ALIASES:
            raise reading.fail(f"it is not one of {', '.join(ALIASES)}")
        expr, said = ALIASES[t]
        return _cron(reading, expr, f"{said} ({t})")
    if fields := _cron_fields(t):
        return _raw_cron(reading, fields)
    try:
        tod = words.time_of_day(t)
    except ValueError as exc:
        raise reading.fail(str(exc)) from None
    if tod is None:
        return _interval(reading, t)
    expr, said = _calendar(reading, without(t, tod.start, tod.end), tod)
    return _cron(reading, expr, said)


def _cron_fields(t: str) -> list[str] | None:
    fields = t.split()
    if not 5 <= len(fields) <= 7:
        return None
    if all(all(_CRON_FIELD.fullmatch(p) for p in f.split(",")) for f in fields):
        return fields
    return None


def _raw_cron(reading: Reading, fields: list[str]) -> Parsed:
    if len(fields) != 5:
        raise reading.fail(
            "a cron expression has exactly five fields (minute hour day-of-month month "
            f"day-of-week); this one has {len(fields)}, and seconds or years are not supported"
        )
    expr = " ".join(_single_ranges(field) for field in fields)
    try:
        croniter.expand(expr)
    except (ValueError, KeyError) as exc:
        raise reading.fail(f"it is not a valid cron expression ({exc})") from None
    return _cron(reading, expr, f"cron {expr!r}")


def _single_ranges(field: str) -> str:
    """``11-11`` (or ``dec-dec``, ``sun-sun``) is the single value, not the whole field as
    croniter reads it."""
    parts = []
    for part in field.split(","):
        span = part.partition("/")[0]
        low, dash, high = span.partition("-")
        parts.append(low if dash and low == high else part)  # N-N/step is N too
    return ",".join(parts)


def _cron(reading: Reading, expr: str, said: str) -> Parsed:
    schedule = Cron(expr, reading.zone)
    try:
        first = next_after(schedule, reading.now)
    except ScheduleError:
        raise reading.fail(f"{said} never happens") from None
    assert first is not None
    if reading.minimum > MINUTE:
        _check_gap(reading, schedule, first)
    return reading.parsed(schedule, f"{said}, {reading.zone}", first)


def _check_gap(reading: Reading, schedule: Cron, first: datetime) -> None:
    run = first
    for _ in range(CRON_SAMPLE):
        following = next_after(schedule, run)
        if following is None:
            return
        if following - run < reading.minimum:
            least = words.span(int(reading.minimum.total_seconds()))
            raise reading.fail(f"it runs more often than the minimum interval of {least}")
        run = following


def _interval(reading: Reading, t: str) -> Parsed:
    body = re.sub(r"^(?:every|each)\s+", "", t)
    body = {"hourly": "1h", "hour": "1h", "minute": "1m"}.get(body, body)
    seconds = words.duration(body)
    if seconds is None:
        if _names_days(reading, body):
            raise reading.fail("it says which days but not at what time, as in 'daily 9am'")
        raise reading.unknown(t)
    if seconds <= 0:
        raise reading.fail(f"every {body} is not an interval; it must be more than zero")
    if seconds < reading.minimum.total_seconds():
        least = words.span(int(reading.minimum.total_seconds()))
        raise reading.fail(f"every {words.span(seconds)} is more often than the minimum of {least}")
    if seconds > MAX_AHEAD.total_seconds():
        raise reading.fail("that interval is more than ten years")
    anchor = (reading.now + timedelta(seconds=seconds)).replace(microsecond=0)
    spoken = words.span(seconds)
    if re.fullmatch(r"1 [a-z]+", spoken):
        spoken = spoken[2:]
    said = f"every {spoken}, {reading.zone}"
    return reading.parsed(Interval(seconds, anchor, reading.zone), said, anchor)


def _names_days(reading: Reading, body: str) -> bool:
    try:
        _calendar(reading, body, words.TimeOfDay(0, 0, 0, 0))
    except ScheduleError:
        return False
    return True


def _calendar(reading: Reading, rest: str, tod: words.TimeOfDay) -> tuple[str, str]:
    """The cron expression and description for the day part of a timed recurring schedule."""
    at = f"at {tod}"
    rest = re.sub(r"^(?:every|each|on)\s+", "", rest)
    if rest in _DAILY:
        return f"{tod.minute} {tod.hour} * * *", f"every day {at}"
    if rest in _WEEKDAYS:
        return f"{tod.minute} {tod.hour} * * 1-5", f"every weekday {at}"
    if rest in _WEEKENDS:
        return f"{tod.minute} {tod.hour} * * 0,6", f"every Saturday and Sunday {at}"
    if days := _weekday_list(rest):
        names = words.listing([words.DAY_NAMES[d] for d in days])
        crons = ",".join(str((d + 1) % 7) for d in days)
        said = "every day" if len(days) == 7 else f"every {names}"
        return f"{tod.minute} {tod.hour} * * {crons}", f"{said} {at}"
    if match := _MONTH_DAY.fullmatch(rest):
        return _monthly(reading, int(match[1] or match[2]), tod)
    if match := _YEARLY.fullmatch(rest):
        return _yearly(reading, match[1] or match[2], tod)
    if _names_day_interval(rest):
        raise reading.fail(
            "a time of day goes with daily, weekly or monthly schedules, not with an interval "
            "of days; use 'daily 9am' or an interval such as 'every 48h'"
        )
    if not rest:
        raise reading.fail("it gives a time but not which days")
    raise reading.unknown(rest)


def _names_day_interval(rest: str) -> bool:
    """Whether ``rest`` holds a count of days or weeks (``3 days``, ``2w``); linear."""
    parts = words.tokens(rest)
    return any(
        a[0].isdigit() and b in ("day", "days", "d", "week", "weeks", "w")
        for a, b in pairwise(parts)
    )


def _weekday_list(rest: str) -> list[int]:
    parts = [p for p in _DAY_LIST_SPLIT.split(rest) if p and p != "every"]
    days = [words.weekday(p) for p in parts]
    if not days or any(d is None for d in days):
        return []
    return sorted({d for d in days if d is not None})


def _monthly(reading: Reading, day: int, tod: words.TimeOfDay) -> tuple[str, str]:
    if not 1 <= day <= 31:
        raise reading.fail(f"a month has no day {day}")
    note = " (skipped in months without one)" if day > 28 else ""
    said = f"on the {words.ordinal(day)} of every month at {tod}{note}"
    return f"{tod.minute} {tod.hour} {day} * *", said


def _yearly(reading: Reading, text: str, tod: words.TimeOfDay) -> tuple[str, str]:
    try:
        day = words.day_of_year(text.removeprefix("the "))
    except ValueError as exc:
        raise reading.fail(str(exc)) from None
    if day is None or day.year is not None:
        raise reading.fail(f"{text!r} is not a day of the year such as 'dec 24'")
    note = " (in leap years)" if (day.month, day.day) == (2, 29) else ""
    said = f"every year on {day.day} {words.MONTH_NAMES[day.month]} at {tod}{note}"
    return f"{tod.minute} {tod.hour} {day.day} {day.month} *", said
