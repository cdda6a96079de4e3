"""Recurring schedules: intervals, days of the week or month at a time, cron and its aliases."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from itertools import pairwise

from croniter import croniter

from assistant.errors import ScheduleError
from assistant.schedules import periods, vocabulary
from assistant.schedules.parsed import (
    MAX_AHEAD,
    MIN_INTERVAL,
    Parsed,
    Reading,
    check_length,
    without,
    zone_named,
)
from assistant.schedules.rewriting import Rewritten
from assistant.schedules.schedule import MINUTE, Cron, Interval, next_after

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
# One day of the month or several: "the 4th", "the 4th and 10th", "1st, 15th".
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DAYS = rf"({_DAY}(?:(?:\s*,\s*|\s+)(?:and\s+)?(?:the\s+)?{_DAY})*)"
_MONTH_DAY = re.compile(
    rf"(?:on\s+)?(?:the\s+)?{_DAYS}\s+(?:days?\s+)?of\s+(?:every|each|the)\s+month"
    rf"|(?:(?:every\s+|each\s+)?month|monthly)\s+on\s+(?:the\s+)?{_DAYS}"
)
_YEARLY = re.compile(
    r"(?:(?:every\s+)?year|yearly|annually)\s+(?:on\s+)?(.+)|(.+?)\s+(?:every|each)\s+year"
)
_DAY_LIST_SPLIT = re.compile(r"\s*(?:,|&|/|\band\b|\s)\s*")
_DAILY = ("day", "daily", "everyday", "days")
_SPOKEN = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last"}
_MONTH_FILLER = frozenset(
    {"every", "each", "on", "the", "of", "month", "months", "monthly", "a", "in", "at"}
)
_WEEKDAYS = ("weekday", "weekdays", "workday", "workdays")
_WEEKENDS = ("weekend", "weekends", "weekend day", "weekend days")


def parse_recurring(
    text: str,
    zone: str,
    now: datetime,
    min_interval: timedelta = MIN_INTERVAL,
    rewritten: Rewritten | None = None,
) -> Parsed:
    """Read a recurring schedule in ``zone``; ``now`` is UTC. ``rewritten`` is ``text`` in
    canonical words, when the caller rewrote it."""
    check_length(text)
    zone_named(zone)
    reading = Reading.of(text, zone, now, RECURRING_FORMS, rewritten, minimum=min_interval)
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
        times = vocabulary.times_of_day(t)
    except ValueError as exc:
        raise reading.fail(str(exc)) from None
    if not times:
        return _interval(reading, t)
    rest = t
    for found in reversed(times):
        rest = without(rest, found.start, found.end)
    if len(times) == 1 and (counted := periods.counted(reading, rest, times[0])):
        return counted
    weeks, rest = _week_period(rest)
    expr, said = _calendar(reading, re.sub(r"\s+and$", "", rest), times[0])
    if len(times) > 1:
        expr, said = _several_times(reading, expr, said, times)
    if weeks > 1:
        return _every_n_weeks(reading, expr, said, weeks)
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


def _week_period(rest: str) -> tuple[int, str]:
    """``every other monday``, ``every other week on mon and fri``, ``every 3 weeks on tue``:
    the period in weeks and the days part without it."""
    parts = rest.split()
    if parts[:2] == ["every", "other"]:
        weeks, tail = 2, parts[2:]
    elif len(parts) > 2 and parts[0] == "every" and parts[1].isdecimal() and parts[2] == "weeks":
        weeks, tail = int(parts[1]), parts[3:]
    else:
        return 1, rest
    if tail[:1] == ["week"]:
        tail = tail[1:]
    if tail[:1] == ["on"]:
        tail = tail[1:]
    return weeks, " ".join(tail)


def _several_times(
    reading: Reading, expr: str, said: str, times: list[vocabulary.TimeOfDay]
) -> tuple[str, str]:
    """``every day at 9:00 and 21:00``: one cron with the hours listed (one minute for all)."""
    if len({t.minute for t in times}) > 1:
        raise reading.fail("several times a day need the same minutes, as in '9:00 and 21:00'")
    minute, _, *rest = expr.split()
    hours = ",".join(str(h) for h in sorted({t.hour for t in times}))
    listed = vocabulary.listing([str(t) for t in sorted(times, key=lambda t: t.hour)])
    return " ".join([minute, hours, *rest]), said.replace(f"at {times[0]}", f"at {listed}")


def _every_n_weeks(reading: Reading, expr: str, said: str, weeks: int) -> Parsed:
    """A weekly schedule kept to every n-th week, counted from the week of its first run."""
    if weeks > 52 or expr.split()[2:4] != ["*", "*"] or expr.split()[4] == "*":
        raise reading.fail(
            "every other week (or every n weeks) goes with days of the week, as in "
            "'every other monday 9am'"
        )
    first = next_after(Cron(expr, reading.zone), reading.now)
    assert first is not None
    local = first.astimezone(zone_named(reading.zone)).date()
    monday = local - timedelta(days=local.weekday())
    spoken = "every other" if weeks == 2 else f"every {weeks} weeks on"
    schedule = Cron(expr, reading.zone, weeks, monday)
    said = said.replace("every ", f"{spoken} ", 1)
    return reading.parsed(schedule, f"{said}, {reading.zone}", first)


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
            least = vocabulary.span(int(reading.minimum.total_seconds()))
            raise reading.fail(
                f"it runs more often than the minimum interval of {least}", "too_frequent"
            )
        run = following


def _interval(reading: Reading, t: str) -> Parsed:
    if t.startswith(periods.WORK_HOURS.strip()):  # в рабочее время каждые 15 минут
        t = t.removeprefix(periods.WORK_HOURS.strip()).strip() + periods.WORK_HOURS
    body = re.sub(r"^(?:every|each)\s+", "", t)
    window = body.endswith(periods.WORK_HOURS)
    body = body.removesuffix(periods.WORK_HOURS)
    body = {"hourly": "1h", "hour": "1h", "minute": "1m"}.get(body, body)
    seconds = vocabulary.duration(body)
    if window and seconds:
        return periods.work_hours(reading, seconds)
    if seconds is None:
        if _names_days(reading, body) or _names_days(reading, t):
            raise reading.fail(
                "it says which days but not at what time, as in 'daily 9am'", "no_time"
            )
        raise reading.unknown(t)
    if seconds <= 0:
        raise reading.fail(f"every {body} is not an interval; it must be more than zero")
    if seconds < reading.minimum.total_seconds():
        least = vocabulary.span(int(reading.minimum.total_seconds()))
        raise reading.fail(
            f"every {vocabulary.span(seconds)} is more often than the minimum of {least}"
        )
    if seconds > MAX_AHEAD.total_seconds():
        raise reading.fail("that interval is more than ten years", "too_far")
    anchor = (reading.now + timedelta(seconds=seconds)).replace(microsecond=0)
    spoken = vocabulary.span(seconds)
    if re.fullmatch(r"1 [a-z]+", spoken):
        spoken = spoken[2:]
    said = f"every {spoken}, {reading.zone}"
    return reading.parsed(Interval(seconds, anchor, reading.zone), said, anchor)


def _names_days(reading: Reading, body: str) -> bool:
    midnight = vocabulary.TimeOfDay(0, 0, 0, 0)
    try:
        return periods.counted(reading, body, midnight) is not None or bool(
            _calendar(reading, body, midnight)
        )
    except ScheduleError:
        return False


def _calendar(reading: Reading, rest: str, tod: vocabulary.TimeOfDay) -> tuple[str, str]:
    """The cron expression and description for the day part of a timed recurring schedule."""
    rest = re.sub(r"^(?:every|each|on)\s+", "", rest)
    rest = re.sub(r"^(?:1 )?weeks? (?:on )?(?=[a-z])", "", rest)  # еженедельно по средам
    found = _weekly(rest, tod) or _dated(reading, rest, tod)
    if found is not None:
        return found
    if _names_day_interval(rest):
        raise reading.fail(
            "a time of day goes with daily, weekly or monthly schedules, not with an interval "
            "of days; use 'daily 9am' or an interval such as 'every 48h'"
        )
    if not rest:
        raise reading.fail("it gives a time but not which days")
    raise reading.unknown(rest)


def _weekly(rest: str, tod: vocabulary.TimeOfDay) -> tuple[str, str] | None:
    """Every day, weekdays, weekends, or named weekdays (``mon, wed and fri``)."""
    at, clock = f"at {tod}", f"{tod.minute} {tod.hour}"
    if rest in _DAILY:
        return f"{clock} * * *", f"every day {at}"
    if rest in _WEEKDAYS:
        return f"{clock} * * 1-5", f"every weekday {at}"
    if rest in _WEEKENDS:
        return f"{clock} * * 0,6", f"every Saturday and Sunday {at}"
    if days := _weekday_list(rest) or _all_but(rest):
        names = vocabulary.listing([vocabulary.DAY_NAMES[d] for d in days])
        crons = ",".join(str((d + 1) % 7) for d in days)
        said = "every day" if len(days) == 7 else f"every {names}"
        return f"{clock} * * {crons}", f"{said} {at}"
    return None


def _all_but(rest: str) -> list[int]:
    """``weekdays except friday``, ``every day but sunday``: the days that are left."""
    base, _, removed = rest.replace(" but ", " except ").partition(" except ")
    every = {**dict.fromkeys(_DAILY, range(7)), **dict.fromkeys(_WEEKDAYS, range(5))}
    if base not in every or not (dropped := _weekday_list(removed)):
        return []
    return [d for d in every[base] if d not in dropped]


def _dated(reading: Reading, rest: str, tod: vocabulary.TimeOfDay) -> tuple[str, str] | None:
    """A day of every month (``15th``, ``first friday``, ``last day``) or of every year."""
    if match := _MONTH_DAY.fullmatch(rest):
        days = [int(day) for day in re.findall(r"\d+", match[1] or match[2])]
        return _monthly(reading, days, tod)
    if found := _nth_of_month(rest):
        return _nth(found, tod)
    if nth := vocabulary.nth_weekday(rest):  # every fourth thursday in november
        return _yearly_weekday(nth, tod)
    if match := _YEARLY.fullmatch(rest):
        return _yearly(reading, match[1] or match[2], tod)
    if _a_day_of_the_year(rest):  # every july 4th
        return _yearly(reading, rest, tod)
    return None


def _a_day_of_the_year(rest: str) -> bool:
    try:
        return vocabulary.day_of_year(rest.removeprefix("the ")) is not None
    except ValueError:
        return True  # a day of the year that does not exist: _yearly says why


def _names_day_interval(rest: str) -> bool:
    """Whether ``rest`` holds a count of days or weeks (``3 days``, ``2w``); linear."""
    parts = vocabulary.tokens(rest)
    return any(
        a[0].isdecimal() and b in ("day", "days", "d", "week", "weeks", "w")
        for a, b in pairwise(parts)
    )


def _weekday_list(rest: str) -> list[int]:
    parts = [p for p in _DAY_LIST_SPLIT.split(rest) if p and p != "every"]
    days = [vocabulary.weekday(p) for p in parts]
    if not days or any(d is None for d in days):
        return []
    return sorted({d for d in days if d is not None})


def _nth_of_month(rest: str) -> tuple[tuple[int, ...], int | None] | None:
    """``first friday of every month``, ``every 2nd tuesday``, ``last day of the month``: which
    one (-1 for the last) and the weekday (None for a day of the month)."""
    kept = [w for w in rest.replace(",", " ").split() if w not in _MONTH_FILLER and w != "and"]
    if len(kept) < 2 or any(w not in vocabulary.ORDINALS for w in kept[:-1]):
        return None
    ordinals = {vocabulary.ORDINALS[w] for w in kept[:-1]}
    which = tuple(sorted(ordinals, key=lambda n: n if n > 0 else 9))
    if kept[-1] == "day":
        return (which, None) if which == (-1,) else None
    day = vocabulary.weekday(kept[-1])
    return (which, day) if day is not None else None


def _nth(found: tuple[tuple[int, ...], int | None], tod: vocabulary.TimeOfDay) -> tuple[str, str]:
    which, day = found
    at = f"{tod.minute} {tod.hour}"
    if day is None:
        return f"{at} L * *", f"on the last day of every month at {tod}"
    name, cron_day = vocabulary.DAY_NAMES[day], (day + 1) % 7
    fields = ",".join(f"L{cron_day}" if n == -1 else f"{cron_day}#{n}" for n in which)
    spoken = vocabulary.listing([_SPOKEN[n] for n in which])
    return f"{at} * * {fields}", f"on the {spoken} {name} of every month at {tod}"


def _monthly(reading: Reading, days: list[int], tod: vocabulary.TimeOfDay) -> tuple[str, str]:
    """One or several days of every month: ``15th``, ``4th and 10th``."""
    if wrong := [day for day in days if not 1 <= day <= 31]:
        raise reading.fail(f"a month has no day {wrong[0]}")
    days = sorted(set(days))
    note = " (skipped in months without one)" if days[-1] > 28 else ""
    spoken = vocabulary.listing([vocabulary.ordinal(day) for day in days])
    said = f"on the {spoken} of every month at {tod}{note}"
    return f"{tod.minute} {tod.hour} {','.join(map(str, days))} * *", said


def _yearly(reading: Reading, text: str, tod: vocabulary.TimeOfDay) -> tuple[str, str]:
    if nth := vocabulary.nth_weekday(text):
        return _yearly_weekday(nth, tod)
    try:
        day = vocabulary.day_of_year(text.removeprefix("the "))
    except ValueError as exc:
        raise reading.fail(str(exc)) from None
    if day is None or day.year is not None:
        raise reading.fail(f"{text!r} is not a day of the year such as 'dec 24'")
    note = " (in leap years)" if (day.month, day.day) == (2, 29) else ""
    said = f"every year on {day.day} {vocabulary.MONTH_NAMES[day.month]} at {tod}{note}"
    return f"{tod.minute} {tod.hour} {day.day} {day.month} *", said


def _yearly_weekday(nth: vocabulary.NthWeekday, tod: vocabulary.TimeOfDay) -> tuple[str, str]:
    """The fourth Thursday in November (the last Sunday of March) every year."""
    cron_day = (nth.weekday + 1) % 7
    field = f"L{cron_day}" if nth.which == -1 else f"{cron_day}#{nth.which}"
    name, month = vocabulary.DAY_NAMES[nth.weekday], vocabulary.MONTH_NAMES[nth.month]
    said = f"every year on the {_SPOKEN[nth.which]} {name} of {month} at {tod}"
    return f"{tod.minute} {tod.hour} * {nth.month} {field}", said
