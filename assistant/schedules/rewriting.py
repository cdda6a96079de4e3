"""Everyday phrasing rewritten into the forms the reader takes: "in two hours", "tonight at 8",
"quarter past eight", "tomorrow morning", "12/25 at 9:00", "через 5 минут".

It works on tokens, one pass each, so it is linear in the text. What it cannot make certain
(``tomorrow at 3``: night or afternoon?) it leaves for the reader to refuse, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, time
from zoneinfo import ZoneInfo

from assistant.locales import language_of, words
from assistant.schedules import languages, vocabulary
from assistant.schedules.words import read_as
from assistant.schedules.written import at, at_clocks, dotted

# A clock time, a date in one of its written forms, a number (with a unit glued on), a word, or
# one other character. Each alternative is a bounded run: no nested quantifiers.
_TOKEN = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}:\d{2}|\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?|\d+(?:\.\d+)?[a-z]*"
    r"|[^\W\d_]+(?:'[a-z]+)?|\S"
)
_DROPPED = frozenset({",", ".", "!", "?", ";"})
_PARTS = {"morning": "am", "afternoon": "pm", "evening": "pm", "night": "pm", "tonight": "pm"}
_DEFAULT_HOUR = {"morning": 9, "afternoon": 15, "evening": 19, "night": 21, "tonight": 21}
_DAY_WORDS = frozenset({"today", "tomorrow", "after", *vocabulary.WEEKDAYS, *vocabulary.MONTHS})
_AMBIGUOUS_HOURS = range(1, 7)  # "tomorrow at 3": say am or pm
_UNIT_WORDS = "|".join(sorted(vocabulary.UNITS, key=len, reverse=True))  # "1.5 hours" is no date
_MONTH_DAYS = re.compile(
    r"(?:\bevery )?(?:on )?(\d{1,2}(?: and \d{1,2}| \d{1,2}){0,30}) dom\b(?: of every month)?"
)
_EVERY_MONTHS = re.compile(r"\bevery \d+ months\b")
_REPEATING = frozenset({"every", "daily", "weekdays", "weekends", "day"})


@dataclass(frozen=True)
class Rewritten:
    """The canonical text, and a note on how something was read (the next 3:30, say)."""

    text: str
    note: str = ""
    problem: str = ""  # why it cannot be read without guessing (``tomorrow at 3``)
    hour: str = ""  # the ambiguous hour as it was said
    read_as: str = ""  # a bare clock time as said that was read as the afternoon's ("3:30")


def rewrite(text: str, zone: str, now: datetime) -> Rewritten:
    """``text`` in the reader's canonical forms; cron expressions and aliases stay as they are."""
    normalized = vocabulary.normalize(text)
    if any(mark in normalized for mark in "*@#"):
        return Rewritten(normalized)
    tokens = [read_as(t) for t in _TOKEN.findall(normalized) if t not in _DROPPED]
    tokens = dotted(_ordinals(_translated(_split_iso(tokens))))
    tokens = _at_days(_clock_words(_numbers(at_clocks(tokens))))
    joined = " ".join(tokens).replace(" :00", ":00")
    joined = _from_now(_dates(_clock_phrases(_month_days(_times_a_week(joined)))))
    on_24h = words.of(language_of(text), "clock_24h")
    said = re.findall(r"(\d{1,2})[:.](\d{2})\b", normalized) if on_24h else []
    written = {f"{hour}:{minute}" for hour, minute in said}
    read = _hours(joined, zone, now, written=written)
    return _more_clocks(read) if not read.problem else read


def _more_clocks(read: Rewritten) -> Rewritten:
    """``at 09:00 and 21`` names a second time: ``21:00``; a bare ``and 9`` is refused."""
    parts = read.text.split()
    for index in range(2, len(parts)):
        word, before = parts[index], parts[index - 2]
        if parts[index - 1] != "and" or not word.isdecimal() or ":" not in before:
            continue
        hour = int(word)
        if not 13 <= hour <= 23 and hour != 0:
            return replace(read, problem=f"say {hour}am or {hour}pm", hour=str(hour))
        parts[index] = f"{hour:02d}:00"
    return replace(read, text=" ".join(parts))


def _split_iso(tokens: list[str]) -> list[str]:
    """``2026-12-24t18:00`` is a date and a time: the ``t`` between them goes."""
    return [
        t
        for i, t in enumerate(tokens)
        if not (t == "t" and i and re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", tokens[i - 1]))
    ]


def _at_days(tokens: list[str]) -> list[str]:
    """``at friday`` (``в пятницу``), ``at next friday`` are ``friday``, ``next friday``: ``at``
    goes before a day, not a time."""
    return [
        t
        for i, t in enumerate(tokens)
        if not (t == "at" and _names_day(at(tokens, i + 1 + (at(tokens, i + 1) == "next"))))
    ]


def _translated(tokens: list[str]) -> list[str]:
    """Phrases of every language table, longest first, as canonical words."""
    out: list[str] = []
    table, longest = languages.table(), languages.longest()
    i = 0
    while i < len(tokens):
        for size in range(min(longest, len(tokens) - i), 0, -1):
            phrase = " ".join(tokens[i : i + size])
            found = table.get(phrase)
            if found is not None:
                out.extend(found.split())
                i += size
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def _numbers(tokens: list[str]) -> list[str]:
    """Number words as digits: ``eight`` → 8, ``twenty five`` / ``twenty-five`` → 25."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in vocabulary.NUMBER_WORDS and word not in ("a", "an"):
            value, i = vocabulary.number_at(tokens, i)
            out.append(str(value))
        else:
            out.append(word)
        i += 1
    return out


def _ordinals(tokens: list[str]) -> list[str]:
    """«5-го» is the 5th, «1-е число» the 1st of a month: the ending goes (the number stays
    before a day-of-month marker, which reads it so)."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        if token == "-" and out and out[-1].isdecimal() and _ending(tokens, i + 1):
            continue
        if out and out[-1].isdecimal() and _ending(tokens, i):
            if tokens[i + 1 : i + 2] != ["dom"]:
                out[-1] = vocabulary.ordinal(int(out[-1]))
            continue
        out.append(token)
    return out


def _ending(tokens: list[str], at: int) -> bool:
    """Whether ``tokens[at]`` is an ordinal's ending (each pack's: «го», or «е» before
    «числа»)."""
    word = tokens[at] if at < len(tokens) else ""
    before_day = tokens[at + 1 : at + 2] == ["dom"]
    return word in words.listed("ordinal_endings") or (
        before_day and word in words.listed("day_ordinal_endings")
    )


def _clock_words(tokens: list[str]) -> list[str]:
    """``six fifteen pm`` (6 15 pm) and ``at six thirty`` (at 6 30) as 6:15 and 6:30; «в 3
    дня» as 3 pm."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        before, after = out[-1] if out else "", tokens[i + 1] if i + 1 < len(tokens) else ""
        if token == "days" and out[-2:-1] == ["at"] and re.fullmatch(r"\d{1,2}(?::\d\d)?", before):
            out.append("pm")  # «в 3 дня»: an hour of the day, not a count of days
            continue
        if (
            len(token) == 2
            and token.isdecimal()
            and 10 <= int(token) <= 59
            and before.isdecimal()
            and int(before) <= 23
            and (after in ("am", "pm") or (len(out) > 1 and out[-2] == "at"))
            and after not in vocabulary.UNITS
        ):
            out[-1] = f"{before}:{token}"
        else:
            out.append(token)
    return out


def _times_a_week(text: str) -> str:
    """``twice a week, tue and fri``: the count goes when the days listed are as many."""
    match = re.search(r"\b(twice|[2-7] times) a week\b", text)
    if match is None:
        return text
    count = 2 if match[1] == "twice" else int(match[1][0])
    days = [w for w in text.split() if vocabulary.weekday(w) is not None]
    if len(days) != count:
        return text
    rest = (text[: match.start()] + text[match.end() :]).split()
    return " ".join(["every", *rest] if rest[:1] != ["every"] else rest)


def _clock_phrases(text: str) -> str:
    """``quarter past 8`` → 8:15, ``half past 8`` → 8:30, ``ten past 2`` → 2:10, ``quarter to
    9`` → 8:45."""
    text = re.sub(r"\b(?:a )?quarter past (\d{1,2})\b", r"\1:15", text)
    text = re.sub(r"\bhalf past (\d{1,2})\b", r"\1:30", text)
    text = re.sub(
        r"\b([1-5]?\d) (?:minutes )?past (\d{1,2})\b",
        lambda m: f"{m[2]}:{int(m[1]):02d}" if int(m[1]) < 60 and int(m[2]) <= 24 else m[0],
        text,
    )
    text = re.sub(
        r"\b([1-5]?\d) minutes to (\d{1,2})\b",
        lambda m: f"{(int(m[2]) - 1) % 24 or 12}:{60 - int(m[1]):02d}" if int(m[2]) <= 24 else m[0],
        text,
    )
    return re.sub(
        r"\b(?:a )?quarter to (\d{1,2})\b",
        lambda m: f"{(int(m[1]) - 1) % 24 or 12}:45" if int(m[1]) <= 24 else m[0],
        text,
    )


def _dates(text: str) -> str:
    """``12/25`` (month/day, or day/month when the first cannot be a month: ``25/12``) and
    ``25.12.`` (day.month), with a year or without, as words."""

    def spelled(match: re.Match[str]) -> str:
        first, second = int(match[1]), int(match[3])
        month, day = (first, second) if match[2] == "/" else (second, first)
        if match[2] == "/" and first > 12 >= second:  # 25/12: the day cannot be a month
            month, day = second, first
        if not 1 <= month <= 12:
            return match[0]
        year = match[4] or ""
        if len(year) == 2:
            year = f"20{year}"
        return f"{vocabulary.MONTH_NAMES[month].lower()[:3]} {day} {year}".strip()

    return re.sub(
        r"\b(\d{1,2})([./])(\d{1,2})(?:[./](\d{4}|\d{2}))?\b\.?(?! ?(?:" + _UNIT_WORDS + r")\b)",
        spelled,
        text,
    )


def _month_days(text: str) -> str:
    """Days of the month a language names with a marker word (``dom``: «4 и 10 числа»), as
    ``on the 4th and 10th of every month``, or ``every 3 months on the 4th``."""
    match = _MONTH_DAYS.search(text)
    if match is None:
        return text
    days = vocabulary.listing([vocabulary.ordinal(int(d)) for d in re.findall(r"\d+", match[1])])
    before, after = text[: match.start()], text[match.end() :]
    if period := _EVERY_MONTHS.search(before + after):
        whole = (before + after).replace(period[0], f"{period[0]} on the {days}", 1)
        return " ".join(whole.split())
    before = re.sub(r"\bevery month\b", "", before)
    after = re.sub(r"\bevery month\b", "", after)
    return " ".join(f"{before} on the {days} of every month {after}".split())


def _from_now(text: str) -> str:
    """``2 hours from now`` → ``in 2 hours``."""
    if text.endswith(" from now"):
        return "in " + text.removesuffix(" from now").removeprefix("in ")
    return text


def _hours(text: str, zone: str, now: datetime, *, written: set[str]) -> Rewritten:
    """Parts of the day and bare hours (``at 8``, ``8 in the evening``) as clock times; a time
    ``written`` by a person of a 24-hour language stands as written."""
    parts = text.split()
    part = next((p for p in parts if p in _PARTS), None)
    kept = _with_part(parts, part) if part else parts
    clock = _find_clock(kept)
    if clock is None:
        default = [f"{_DEFAULT_HOUR[part]}:00"] if part else []
        return Rewritten(" ".join([*kept, *default]))
    if clock.marked:
        return Rewritten(" ".join(kept))
    if part is not None:
        return Rewritten(clock.written(kept, clock.hour % 12 + (12 if _PARTS[part] == "pm" else 0)))
    if kept[clock.index] in written and clock.hour not in _AMBIGUOUS_HOURS:
        return Rewritten(clock.written(kept, clock.hour))  # «в 7:45» is 07:45, as written
    return _bare(kept, clock, now.astimezone(ZoneInfo(zone)).time())


def _bare(kept: list[str], clock: _Clock, local: time) -> Rewritten:
    """An hour without am, pm or a part of the day: 24-hour when it can only be, the morning
    hour with a day when that is the likely one, refused when it is not, else the next one."""
    if clock.hour > 12 or clock.hour == 0 or kept[clock.index].startswith("0"):
        return Rewritten(clock.written(kept, clock.hour))
    dayless = " ".join(p for i, p in enumerate(kept) if i != clock.index and p != "at")
    if any(_names_day(p) for p in kept) or vocabulary.days_ahead(dayless) is not None:
        if clock.hour in _AMBIGUOUS_HOURS:  # "tomorrow at 3" or "at 2:30": night or day?
            spoken = kept[clock.index]
            return Rewritten(" ".join(kept), problem=f"say {spoken}am or {spoken}pm", hour=spoken)
        return Rewritten(clock.written(kept, clock.hour))
    return clock.next_to_come(kept, local)


def _names_day(word: str) -> bool:
    """Whether a word says which day (a weekday, plural too, a month, a date, every…)."""
    return (
        word in _DAY_WORDS
        or word in _REPEATING
        or vocabulary.weekday(word) is not None
        or bool(re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)|\d{4}-\d{1,2}-\d{1,2}", word))
    )


def _with_part(parts: list[str], part: str) -> list[str]:
    """The words without ``in the evening``, ``this morning``, ``tonight`` (``at`` stays)."""
    kept = [p for p in parts if p not in {"in", "the", "this", *_PARTS}]
    if part == "tonight" or ("this" in parts and not any(_names_day(p) for p in kept)):
        kept = ["today", *kept]
    if kept[:1] == ["every"] and (len(kept) == 1 or kept[1][0].isdecimal() or kept[1] == "at"):
        kept = ["every", "day", *kept[1:]]
    return kept


@dataclass(frozen=True)
class _Clock:
    """A clock time found among the words: where, which, and whether am/pm or 24h marks it."""

    index: int
    hour: int
    minute: int
    marked: bool

    def written(self, parts: list[str], hour: int) -> str:
        """The words with this time as ``HH:MM`` (the ``at`` before it dropped)."""
        valid = 0 <= hour <= 23 and 0 <= self.minute <= 59
        clock = f"{hour:02d}:{self.minute:02d}" if valid else parts[self.index]
        kept = [*parts[: self.index], clock, *parts[self.index + 1 :]]
        return " ".join(p for i, p in enumerate(kept) if not (p == "at" and i + 1 == self.index))

    def next_to_come(self, parts: list[str], local: time) -> Rewritten:
        """A bare ``at 3:30`` with no day: the next 3:30 to come, morning or afternoon."""
        for hour in (self.hour % 12, self.hour % 12 + 12):
            if self.minute <= 59 and time(hour, self.minute) > local:
                said = f"{self.hour}:{self.minute:02d}"
                note = f"the next {said} is {hour:02d}:{self.minute:02d}"
                return Rewritten(self.written(parts, hour), note, read_as=said * (hour > 12))
        return Rewritten(self.written(parts, self.hour % 12))


def _find_clock(parts: list[str]) -> _Clock | None:
    """The first clock time: ``9:30``, ``9am``, ``9 pm``, or a bare hour after ``at``."""
    for index, part in enumerate(parts):
        match = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?(am|pm)?", part)
        if match is None:
            continue
        following = parts[index + 1] if index + 1 < len(parts) else ""
        marked = following in ("am", "pm") or match[3] is not None
        previous = parts[index - 1] if index else ""
        if ":" not in part and not marked and previous != "at":
            continue  # a bare number is an hour only after "at"
        return _Clock(index, int(match[1]), int(match[2] or 0), marked)
    return None
