"""The vocabulary of the schedule language: durations, times of day, weekdays, months, dates."""

from __future__ import annotations

import calendar
import re
import unicodedata
from dataclasses import dataclass
from datetime import date

UNITS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), 604800),
}
WEEKDAYS = {
    **dict.fromkeys(("monday", "mon"), 0),
    **dict.fromkeys(("tuesday", "tue", "tues"), 1),
    **dict.fromkeys(("wednesday", "wed"), 2),
    **dict.fromkeys(("thursday", "thu", "thur", "thurs"), 3),
    **dict.fromkeys(("friday", "fri"), 4),
    **dict.fromkeys(("saturday", "sat"), 5),
    **dict.fromkeys(("sunday", "sun"), 6),
}
MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name} | {
    name.lower(): number for number, name in enumerate(calendar.month_abbr) if name
}
MONTHS["sept"] = 9
DAY_NAMES = tuple(calendar.day_name)
MONTH_NAMES = tuple(calendar.month_name)

# Tokens: a number (a decimal included), a run of letters, or one other character. No nested
# quantifiers: every pattern here reads in time linear in its input.
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+|\S")
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "ninety": 90,
}  # fmt: skip
_TENS = frozenset({"twenty", "thirty", "forty", "fifty"})
_TIME = re.compile(
    r"(?<![\d:-])(?:at\s+)?(?:(?P<h12>\d{1,2})(?::(?P<m12>\d{2}))?\s*(?P<ampm>am|pm)"
    r"|(?P<h24>\d{1,2}):(?P<m24>\d{2})|(?P<word>noon|midnight))(?![\d:])"
)
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_DAY_MONTH = re.compile(
    r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]+)(?:,?\s+(\d{4}))?"
)
_MONTH_DAY = re.compile(r"([a-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?")
ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
    "fifth": 5, "5th": 5, "last": -1,
}  # fmt: skip
_NTH_WEEKDAY = re.compile(
    r"(?:(?:at|on)\s+)?(?:the\s+)?([a-z0-9]+)\s+([a-z]+)\s+(?:of\s+|in\s+)?([a-z]+)"
)


@dataclass(frozen=True)
class TimeOfDay:
    """A wall-clock time, and the span of the text it was read from."""

    hour: int
    minute: int
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.hour:02d}:{self.minute:02d}"


@dataclass(frozen=True)
class DayOfYear:
    """A calendar day, with its year when the text gave one."""

    month: int
    day: int
    year: int | None


def normalize(text: str) -> str:
    """Lower case, single spaces, no trailing punctuation, ``a.m.`` as ``am``; compatibility
    forms as their plain characters (``²`` and ``⑤`` as digits, full-width letters as ASCII)."""
    text = unicodedata.normalize("NFKC", text)
    text = " ".join(text.strip().lower().split()).rstrip(".!")
    return (
        text.replace("a.m.", "am").replace("p.m.", "pm").replace("a.m", "am").replace("p.m", "pm")
    )


def tokens(text: str) -> list[str]:
    """``text`` as numbers, words and single other characters."""
    return _TOKEN.findall(text)


def days_ahead(text: str) -> int | None:
    """How many whole days ``in 3 days``, ``in two weeks`` says; None for any other text."""
    if not text.startswith("in "):
        return None
    seconds = duration(text.removeprefix("in "))
    return seconds // 86400 if seconds and not seconds % 86400 else None


def duration(text: str) -> int | None:
    """Seconds in ``5m``, ``2h30m``, ``1.5 hours``, ``an hour and a half``, ``half an hour``,
    ``twenty-five minutes``; None if ``text`` is not a duration."""
    parts = [t for t in tokens(text) if t not in (",", "and")]
    total, i, found = 0.0, 0, False
    while i < len(parts):
        amount, i = _amount(parts, i)
        if amount is None or i >= len(parts) or parts[i] not in UNITS:
            return None
        unit = UNITS[parts[i]]
        i += 1
        if parts[i : i + 2] == ["a", "half"]:  # "an hour and a half"
            amount, i = amount + 0.5, i + 2
        total, found = total + amount * unit, True
    return round(total) if found else None


def _amount(parts: list[str], i: int) -> tuple[float | None, int]:
    """The number at ``parts[i]`` (digits, words, ``half a``), and where reading goes on."""
    word = parts[i]
    if word == "half":
        return 0.5, i + (2 if parts[i + 1 : i + 2] in (["a"], ["an"]) else 1)
    if word[0].isdecimal():
        amount = float(word) if "." in word else int(word)
    elif word in NUMBER_WORDS:
        amount = NUMBER_WORDS[word]
        if word in _TENS:
            amount, i = _tens_and_ones(parts, i, amount)
    else:
        return None, i
    i += 1
    if parts[i : i + 2] == ["a", "half"]:  # "one and a half hours"
        return amount + 0.5, i + 2
    return amount, i


def number_at(parts: list[str], i: int) -> tuple[int, int]:
    """The number word at ``parts[i]`` (``twenty-five`` included) and the index of its last
    word."""
    value = NUMBER_WORDS[parts[i]]
    return _tens_and_ones(parts, i, value) if parts[i] in _TENS else (value, i)


def _tens_and_ones(parts: list[str], i: int, tens: int) -> tuple[int, int]:
    """``twenty five`` or ``twenty-five``: the number, and the index of its last word."""
    following = i + 2 if parts[i + 1 : i + 2] == ["-"] else i + 1
    ones = NUMBER_WORDS.get(parts[following]) if following < len(parts) else None
    if ones is None or ones >= 10 or parts[following] in ("a", "an"):
        return tens, i
    return tens + ones, following


def time_of_day(text: str) -> TimeOfDay | None:
    """The one time of day in ``text`` (``9am``, ``18:30``, ``at 6:15pm``, ``noon``), if any."""
    found = times_of_day(text)
    if len(found) > 1:
        raise ValueError(f"it names {len(found)} times of day; give one")
    return found[0] if found else None


def times_of_day(text: str) -> list[TimeOfDay]:
    """Every time of day in ``text``, in order (``at 9:00 and 21:00``)."""
    found = []
    for match in _TIME.finditer(text):
        hour, minute = _clock_reading(match)
        found.append(TimeOfDay(hour, minute, match.start(), match.end()))
    return found


def _clock_reading(match: re.Match[str]) -> tuple[int, int]:
    if word := match["word"]:
        return (12, 0) if word == "noon" else (0, 0)
    if match["ampm"]:
        hour, minute = int(match["h12"]), int(match["m12"] or 0)
        if not 1 <= hour <= 12 or minute > 59:
            raise ValueError(f"{match.group().strip()!r} is not a time of day")
        return hour % 12 + (12 if match["ampm"] == "pm" else 0), minute
    hour, minute = int(match["h24"]), int(match["m24"])
    if hour > 23:
        raise ValueError(f"{match['h24']}:{match['m24']} is not a time of day: hours go 0–23")
    if minute > 59:
        raise ValueError(f"{match['h24']}:{match['m24']} is not a time of day: minutes go 0–59")
    return hour, minute


def weekday(word: str) -> int | None:
    """Monday=0 for a day name, short or plural (``mon``, ``mondays``); None if not one."""
    if word in WEEKDAYS:
        return WEEKDAYS[word]
    return WEEKDAYS.get(word[:-1]) if word.endswith("s") else None


def day_of_year(text: str) -> DayOfYear | None:
    """``2026-12-24``, ``24 december``, ``dec 24th, 2027``, ``the 1st of may``; None if not one."""
    if match := _ISO_DATE.fullmatch(text):
        numbers = [int(part) for part in match.groups()]
        return _checked(DayOfYear(numbers[1], numbers[2], numbers[0]))
    for pattern, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        if (match := pattern.fullmatch(text)) and match[month_group] in MONTHS:
            year = int(match[3]) if match[3] else None
            return _checked(DayOfYear(MONTHS[match[month_group]], int(match[day_group]), year))
    return None


@dataclass(frozen=True)
class NthWeekday:
    """A weekday of a month: the fourth Thursday in November (``which`` -1 is the last)."""

    which: int
    weekday: int
    month: int

    def in_year(self, year: int) -> date:
        """The day it is in ``year``."""
        days = [
            week[self.weekday]
            for week in calendar.Calendar().monthdatescalendar(year, self.month)
            if week[self.weekday].month == self.month
        ]
        return days[-1] if self.which == -1 else days[min(self.which, len(days)) - 1]

    def next_on_or_after(self, today: date) -> date:
        """The first such day on or after ``today``."""
        found = self.in_year(today.year)
        return found if found >= today else self.in_year(today.year + 1)


def nth_weekday(text: str) -> NthWeekday | None:
    """``the fourth thursday in november``, ``last sunday of march``; None if not one."""
    match = _NTH_WEEKDAY.fullmatch(text)
    if match is None or match[1] not in ORDINALS or match[3] not in MONTHS:
        return None
    day = weekday(match[2])
    if day is None or ORDINALS[match[1]] == 5:
        return None  # not every month has a fifth
    return NthWeekday(ORDINALS[match[1]], day, MONTHS[match[3]])


def _checked(day: DayOfYear) -> DayOfYear:
    if not 1 <= day.month <= 12:
        raise ValueError(f"there is no month {day.month}")
    longest = calendar.monthrange(day.year or 2000, day.month)[1]
    if not 1 <= day.day <= longest:
        year = f" {day.year}" if day.year else ""
        raise ValueError(f"{MONTH_NAMES[day.month]}{year} has no day {day.day}")
    return day


def next_date(day: DayOfYear, today: date) -> date:
    """The date ``day`` names, on or after ``today`` when it gave no year."""
    if day.year is not None:
        return date(day.year, day.month, day.day)
    for year in range(today.year, today.year + 9):
        if calendar.monthrange(year, day.month)[1] >= day.day:
            candidate = date(year, day.month, day.day)
            if candidate >= today:
                return candidate
    raise ValueError(f"{MONTH_NAMES[day.month]} {day.day} does not come up again soon")


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def span(seconds: int) -> str:
    """``2 hours 30 minutes`` for 9000."""
    parts = []
    for name, size in (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {name}{'s' if count > 1 else ''}")
    if seconds:
        parts.append(f"{seconds} second{'s' if seconds > 1 else ''}")
    return " ".join(parts)


def listing(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


# fmt: off
_GRAMMAR = {
    "in", "at", "on", "the", "of", "and", "every", "each", "next", "this", "today", "tomorrow",
    "day", "after", "am", "pm", "noon", "midnight", "daily", "everyday", "weekday", "weekdays",
    "weekend", "weekends", "workday", "workdays", "month", "monthly", "year", "yearly",
    "annually", "hourly", "st", "nd", "rd", "th", "a", "an",
}
# fmt: on
# Every word the core reader takes.
KNOWN = _GRAMMAR | set(UNITS) | set(WEEKDAYS) | {f"{day}s" for day in WEEKDAYS} | set(MONTHS)
