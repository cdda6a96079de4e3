"""One-shot schedules: ``in 5m``, ``2h``, ``at 18:30``, ``tomorrow 9am``, ``2026-12-24 18:00``."""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from assistant.schedules import vocabulary
from assistant.schedules.parsed import (
    MAX_AHEAD,
    Parsed,
    Reading,
    check_length,
    without,
    zone_named,
)
from assistant.schedules.rewriting import Rewritten
from assistant.schedules.schedule import Once, to_utc

ONCE_FORMS = "in 5m, in 2h30m, 30s, at 18:30, tomorrow 9am, monday 10am, 2026-12-24 18:00"
_RECURRING_START = re.compile(
    r"(?:every|each|daily|everyday|weekdays|weekends|hourly|monthly|yearly|annually)\b|@"
)
_CRONLIKE = re.compile(r"(?:\S+\s+){4,6}\S+")


def parse_once(text: str, zone: str, now: datetime, rewritten: Rewritten | None = None) -> Parsed:
    """Read a one-shot schedule in ``zone``; ``now`` is UTC. ``rewritten`` is ``text`` in
    canonical words, when the caller rewrote it."""
    check_length(text)
    tz = zone_named(zone)
    reading = Reading.of(text, zone, now, ONCE_FORMS, rewritten)
    t = reading.words
    if not t:
        raise reading.fail("it is empty")
    if _RECURRING_START.match(t) or ("*" in t and _CRONLIKE.fullmatch(t)) or _plural_day(t):
        raise reading.fail("that is a recurring schedule; set it as a recurring task", "recurring")
    seconds = vocabulary.duration(t.removeprefix("in ").strip())
    if seconds is not None:
        return _delay(reading, seconds)
    wall, note = _wall_time(reading, tz)
    at = to_utc(wall, tz)
    if at <= now:
        raise reading.fail(f"{wall:%Y-%m-%d %H:%M} in {zone} is in the past", "past")
    return reading.parsed(Once(at, zone), describe(at, zone), at, note)


def _plural_day(t: str) -> bool:
    """``fridays at 11am`` means every Friday."""
    return any(
        w.endswith("s") and w not in vocabulary.WEEKDAYS and vocabulary.weekday(w) is not None
        for w in vocabulary.tokens(t)
    )


def describe(at: datetime, zone: str) -> str:
    """``once on Sat 14 Mar 2026 at 18:30, Europe/Berlin``."""
    local = at.astimezone(ZoneInfo(zone))
    clock = f"{local:%H:%M:%S}" if local.second else f"{local:%H:%M}"
    return f"once on {local:%a %d %b %Y} at {clock}, {zone}"


def _delay(reading: Reading, seconds: int) -> Parsed:
    if seconds <= 0:
        raise reading.fail("the delay must be more than zero")
    if seconds > MAX_AHEAD.total_seconds():
        raise reading.fail("that is more than ten years ahead", "too_far")
    at = (reading.now + timedelta(seconds=seconds)).replace(microsecond=0)
    once = Once(at, reading.zone, from_now=True)
    return reading.parsed(once, describe(at, reading.zone), at)


def _wall_time(reading: Reading, tz: ZoneInfo) -> tuple[datetime, str]:
    t = reading.words
    try:
        tod = vocabulary.time_of_day(t)
    except ValueError as exc:
        raise reading.fail(str(exc)) from None
    rest = without(t, tod.start, tod.end) if tod else t
    rest = re.sub(r"^(?:on|the)\s+", "", rest)
    if tod is None:
        if _day(reading, rest, tz, time(23, 59)) is not None:
            raise reading.fail("it names a day but no time of day, as in 'tomorrow 9am'", "no_time")
        raise reading.unknown(t)
    clock = time(tod.hour, tod.minute)
    found = _day(reading, rest, tz, clock)
    if found is None:
        raise reading.unknown(t)
    day, note = found
    return datetime.combine(day, clock), note


def _day(reading: Reading, rest: str, tz: ZoneInfo, clock: time) -> tuple[date, str] | None:
    local = reading.now.astimezone(tz)
    today, passed = local.date(), local.time() >= clock
    if rest == "":
        if passed:
            return today + timedelta(days=1), f"{clock:%H:%M} has passed today, so tomorrow"
        return today, ""
    offsets = {"today": 0, "tomorrow": 1, "day after tomorrow": 2}
    if rest in offsets:
        return today + timedelta(days=offsets[rest]), ""
    if (found := _weekday(rest, today, passed) or _ahead(rest, today)) is not None:
        return found, ""
    if (found := _day_of_month(rest, today, passed)) is not None:
        return found, ""
    return _named_date(reading, rest, today, passed)


def _named_date(reading: Reading, rest: str, today: date, passed: bool) -> tuple[date, str] | None:
    """A calendar day, with the weekday it falls on said before it or not ("friday dec 4"); a
    weekday the date does not fall on is refused, never one of the two guessed."""
    name, _, date_part = rest.partition(" ")
    said = vocabulary.weekday(name.rstrip(","))
    if said is None or not date_part:
        return _calendar_day(reading, rest, today, passed)
    found = _calendar_day(reading, date_part, today, passed)
    if found is not None and found[0].weekday() != said:
        raise reading.fail(f"{found[0]:%b %d} is a {found[0]:%A}, not a {name}", "invalid")
    return found


def _ahead(rest: str, today: date) -> date | None:
    """``in 3 days``, ``in two weeks`` before a clock time: that many whole days on."""
    days = vocabulary.days_ahead(rest)
    return today + timedelta(days=days) if days is not None else None


def _day_of_month(rest: str, today: date, passed: bool) -> date | None:
    """``the 7th``: the next 7th of a month that has one, today's when its time is to come."""
    match = re.fullmatch(r"(?:the )?(\d{1,2})(?:st|nd|rd|th)", rest)
    if match is None or not 1 <= int(match[1]) <= 31:
        return None
    day, month, year = int(match[1]), today.month, today.year
    for _ in range(13):
        if day <= calendar.monthrange(year, month)[1]:
            found = date(year, month, day)
            if found > today or (found == today and not passed):
                return found
        month, year = (1, year + 1) if month == 12 else (month + 1, year)
    return None


def _weekday(rest: str, today: date, passed: bool) -> date | None:
    """``friday``, ``next friday``, ``wednesday next week``, ``the fourth thursday in
    november``: the day it names from ``today``, else None."""
    prefix, _, name = rest.rpartition(" ")
    if (wd := vocabulary.weekday(name)) is not None and prefix in ("", "next", "this"):
        ahead = (wd - today.weekday()) % 7
        if ahead == 0 and (passed or prefix == "next"):
            ahead = 7
        return today + timedelta(days=ahead)
    if (wd := _next_week_day(rest)) is not None:  # wednesday of next week
        return today + timedelta(days=7 - today.weekday() + wd)
    if nth := vocabulary.nth_weekday(rest):
        found = nth.next_on_or_after(today)
        return found if found > today or not passed else nth.in_year(today.year + 1)
    return None


def _next_week_day(rest: str) -> int | None:
    """``next week on wednesday``, ``wednesday next week``: the weekday, else None."""
    words = [w for w in rest.split() if w != "on"]
    if len(words) == 3 and words[:2] == ["next", "week"]:
        return vocabulary.weekday(words[2])
    if len(words) == 3 and words[1:] == ["next", "week"]:
        return vocabulary.weekday(words[0])
    return None


def _calendar_day(
    reading: Reading, rest: str, today: date, passed: bool
) -> tuple[date, str] | None:
    try:
        day = vocabulary.day_of_year(rest)
        if day is None:
            return None
        found = vocabulary.next_date(day, today)
        if found == today and passed and day.year is None:
            found = vocabulary.next_date(day, today + timedelta(days=1))
    except ValueError as exc:
        raise reading.fail(str(exc)) from None
    return found, ""
