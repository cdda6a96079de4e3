"""What reading schedule text shares: the result, the context of one reading, its errors."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from assistant.clock import shorten, zone_or_none
from assistant.errors import ScheduleError, ScheduleReason
from assistant.schedules import vocabulary
from assistant.schedules.rewriting import Rewritten
from assistant.schedules.schedule import Schedule

MAX_AHEAD = timedelta(days=3660)
MAX_TEXT = 200
MIN_INTERVAL = timedelta(minutes=1)


@dataclass(frozen=True)
class Parsed:
    """A schedule read from text: what it is, how to say it, and when it first runs (UTC)."""

    schedule: Schedule
    description: str
    first_run: datetime
    source: str
    note: str = ""
    read_as: str = ""  # a bare clock time as said, read as the afternoon's ("3:30" at 15:30)


@dataclass(frozen=True)
class Reading:
    """One piece of schedule text being read, in a zone, at a moment, with its accepted forms."""

    text: str
    zone: str
    now: datetime
    forms: str
    minimum: timedelta = MIN_INTERVAL
    said: str = ""  # what the user wrote, when ``text`` is its rewriting
    note: str = ""  # how the rewriting read something (the next 3:30)
    read_as: str = ""

    @classmethod
    def of(
        cls,
        text: str,
        zone: str,
        now: datetime,
        forms: str,
        rewritten: Rewritten | None,
        *,
        minimum: timedelta = MIN_INTERVAL,
    ) -> Reading:
        """A reading of ``text``, or of its canonical rewriting while errors quote ``text``."""
        if rewritten is None or rewritten.text == vocabulary.normalize(text):
            note, read_as = (rewritten.note, rewritten.read_as) if rewritten else ("", "")
            return cls(text, zone, now, forms, minimum, note=note, read_as=read_as)
        return cls(
            rewritten.text,
            zone,
            now,
            forms,
            minimum,
            said=text,
            note=rewritten.note,
            read_as=rewritten.read_as,
        )

    @property
    def words(self) -> str:
        """The text normalized for matching."""
        return vocabulary.normalize(self.text)

    def fail(
        self, detail: str, reason: ScheduleReason = "invalid", words: str = ""
    ) -> ScheduleError:
        """The error for this text: it quotes the text once (shortened), says why, and shows
        accepted forms; ``reason`` and ``words`` say why as data."""
        return ScheduleError(
            f"cannot read the schedule {shorten(self.said or self.text, 60)}: {detail}. "
            f"Accepted forms, for example: {self.forms}",
            reason,
            words,
            detail,
            self.said or self.text,
        )

    def unknown(self, part: str) -> ScheduleError:
        """The error for text that matched no form, naming its first unknown word."""
        for word in re.findall(r"[a-z]+", part):
            if word not in vocabulary.KNOWN:
                return self.fail(f"unknown word {word!r}", "unknown_word", word)
        return self.fail("it matches none of the accepted forms", "unread")

    def parsed(
        self, schedule: Schedule, description: str, first: datetime, note: str = ""
    ) -> Parsed:
        """The result, once the first run is known to be neither past nor too far ahead."""
        if first <= self.now:
            raise self.fail(f"{description} is in the past", "past")
        if first - self.now > MAX_AHEAD:
            raise self.fail("that is more than ten years ahead", "too_far")
        notes = "; ".join(n for n in (self.note, note) if n)
        return Parsed(schedule, description, first, self.said or self.text, notes, self.read_as)


def check_length(text: str) -> None:
    """Refuse schedule text too long to be one, before reading any of it."""
    if len(text) > MAX_TEXT:
        raise ScheduleError(
            f"schedule text is at most {MAX_TEXT} characters; this has {len(text):,}. "
            "Say when in a few words, e.g. 'tomorrow 9am' or 'every monday 10am'",
            "too_long",
        )


def zone_named(name: str) -> ZoneInfo:
    """The IANA timezone ``name``, or a clear error."""
    zone = zone_or_none(name)
    if zone is None:
        raise ScheduleError(
            f"unknown timezone {shorten(name)}; expected an IANA name such as 'Europe/Berlin'",
            "unknown_zone",
            name,
        )
    return zone


def without(text: str, start: int, end: int) -> str:
    """``text`` with the span cut out and spaces tidied."""
    return " ".join(f"{text[:start]} {text[end:]}".split())
