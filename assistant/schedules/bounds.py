"""When a repeating schedule starts and ends: ``starting next week``, ``until june 1``,
``for 5 times``. Read off the canonical text before the schedule itself, in one pass over its
words; the schedule then gets its first run on or after the start and none after its end."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from assistant.schedules import vocabulary
from assistant.schedules.parsed import Parsed, Reading
from assistant.schedules.schedule import Cron, Interval, next_after, to_utc

MAX_TIMES = 1000
ONLY_REPEATING = "a start, an end or a number of times goes with a repeating schedule"
_UNTIL = frozenset({"until", "till", "through", "thru"})
_START = frozenset({"starting", "beginning", "from"})
_DAY_STARTS = frozenset(
    {"today", "tomorrow", "next", "this", "on", "the", *vocabulary.WEEKDAYS, *vocabulary.MONTHS}
)


@dataclass(frozen=True)
class Bounds:
    """The words of each bound, as written in canonical form; empty when not given."""

    start: str = ""
    until: str = ""
    times: int | None = None

    def __bool__(self) -> bool:
        return bool(self.start or self.until or self.times is not None)


def split(text: str) -> tuple[str, Bounds]:
    """The schedule's own words, and its bounds."""
    words, main, found = text.split(), [], Bounds()
    i = 0
    while i < len(words):
        kind, size = _bound_at(words, i)
        if kind is None:
            main.append(words[i])
            i += 1
            continue
        end = i + size
        while kind != "times" and end < len(words) and _bound_at(words, end)[0] is None:
            end += 1  # a start or an end runs to the next bound; a count is its own words
        found = _with(found, kind, words[i:end])
        i = end
    return " ".join(main), found


def _bound_at(words: list[str], i: int) -> tuple[str | None, int]:
    word, following = words[i], words[i + 1] if i + 1 < len(words) else ""
    if word in _UNTIL:
        return "until", 1
    if word in _START and (word != "from" or following in _DAY_STARTS or following[:1].isdecimal()):
        return "start", 1
    if word == "for" and following.isdecimal() and words[i + 2 : i + 3] == ["times"]:
        return "times", 3
    if word.isdecimal() and following == "times":
        return "times", 2
    return None, 0


def _with(found: Bounds, kind: str, words: list[str]) -> Bounds:
    if kind == "times":
        count = next(w for w in words if w.isdecimal())
        return replace(found, times=int(count) if len(count) < 6 else MAX_TIMES + 1)
    said = " ".join(words[1:])
    return replace(found, until=said) if kind == "until" else replace(found, start=said)


def bounded(reading: Reading, parsed: Parsed, bounds: Bounds) -> Parsed:
    """``parsed`` starting and ending as ``bounds`` say; a clear error when they cannot."""
    schedule = parsed.schedule
    if not isinstance(schedule, Interval | Cron):
        raise reading.fail(ONLY_REPEATING)
    zone = ZoneInfo(reading.zone)
    today = reading.now.astimezone(zone).date()
    first, said = parsed.first_run, parsed.description.removesuffix(f", {reading.zone}")
    if bounds.start:
        start = _day(reading, bounds.start, today, "starting")
        schedule, first = _from(schedule, to_utc(datetime.combine(start, time()), zone), first)
        said += f", starting {start:%a %d %b %Y}"
    if bounds.until:
        end = _day(reading, bounds.until, today, "until")
        until = to_utc(datetime.combine(end + timedelta(days=1), time()), zone)
        schedule = replace(schedule, until=until - timedelta(microseconds=1))
        said += f", until {end:%a %d %b %Y}"
    if bounds.times is not None:
        schedule, last = _times(reading, schedule, first, bounds.times)
        said += f", {bounds.times} times (the last on {last.astimezone(zone):%a %d %b %Y %H:%M})"
    if schedule.until is not None and first > schedule.until:
        raise reading.fail("it ends before its first run")
    return Parsed(schedule, f"{said}, {reading.zone}", first, parsed.source, parsed.note)


def _from(
    schedule: Interval | Cron, start: datetime, first: datetime
) -> tuple[Interval | Cron, datetime]:
    """The schedule with its first run on or after ``start``, counted from that run."""
    if start <= first:
        return schedule, first
    if isinstance(schedule, Interval):
        return replace(schedule, anchor=start), start
    run = next_after(replace(schedule, anchor=None), start - timedelta(microseconds=1))
    assert run is not None
    local = run.astimezone(ZoneInfo(schedule.zone)).date()
    if schedule.every_weeks > 1:
        local -= timedelta(days=local.weekday())
    return (replace(schedule, anchor=local) if schedule.anchor else schedule), run


def _times(
    reading: Reading, schedule: Interval | Cron, first: datetime, times: int
) -> tuple[Interval | Cron, datetime]:
    if not 1 <= times <= MAX_TIMES:
        raise reading.fail(f"the number of times goes from 1 to {MAX_TIMES}")
    last = first
    for _ in range(times - 1):
        following = next_after(schedule, last)
        if following is None:
            raise reading.fail(f"it ends before it has run {times} times")
        last = following
    return replace(schedule, until=last), last


def _day(reading: Reading, text: str, today: date, bound: str) -> date:
    """The day ``text`` names: today, tomorrow, a weekday, next week or month, a date."""
    text = text.removeprefix("on ").removeprefix("the ")
    named = {"today": today, "tomorrow": today + timedelta(days=1)}
    if text in named:
        return named[text]
    if text == "next week":
        return today + timedelta(days=7 - today.weekday())
    if text == "next month":
        return (today.replace(day=1) + timedelta(days=32)).replace(day=1)
    prefix, _, name = text.rpartition(" ")
    if (weekday := vocabulary.weekday(name)) is not None and prefix in ("", "next", "this"):
        ahead = (weekday - today.weekday()) % 7
        return today + timedelta(days=ahead or (7 if prefix == "next" else 0))
    try:
        day = vocabulary.day_of_year(text)
        if day is not None:
            return vocabulary.next_date(day, today)
    except ValueError as exc:
        raise reading.fail(str(exc)) from None
    raise reading.fail(f"{bound} {text!r} is not a day I can read, as in '{bound} june 1'")
