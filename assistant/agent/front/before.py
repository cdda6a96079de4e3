"""A reminder set before an event: "30 minutes before the 3pm call", "за час до встречи".

The event's own time is found among its words ("3pm call", "встречи в 15:00"); the reminder is
that time less the lead. An event without a time is asked about, never read as "in 30 minutes".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from assistant.errors import ScheduleError
from assistant.schedules import Parsed
from assistant.schedules.schedule import is_recurring
from assistant.schedules.words import may_be_schedule, read_as, schedule_words


def event_time(event: str, read: Callable[[str], Parsed]) -> datetime | None:
    """When the event is (UTC), from the most of its first and last words that read as one
    time, the name between them left out ("3pm call", "the meeting tomorrow at 10", "my 9am
    train tomorrow"); None when its words give none."""
    found = event_when(event, read)
    return found[0] if found else None


def event_when(event: str, read: Callable[[str], Parsed]) -> tuple[datetime, str] | None:
    """The event's time (UTC) and its name, the words its time leaves ("the vet appointment"
    of "the vet appointment tomorrow at 4pm"); None when its words give no time."""
    words = [re.sub(r"['’]s$", "", w) for w in event.split()]  # "monday's 9am meeting"
    timed = [w for w in words if _timely(w)]
    name = [w for w in words if not _timely(w)]
    found = _once(" ".join(timed), read) if timed else None
    if found is not None and not _dated(name):  # its day and time
        return found, " ".join(name)
    for part, name in _ends(words):
        found = _once(" ".join(part), read)
        if found is not None and not _dated(name):
            return found, " ".join(name)  # a day left in its name is no time of its own
    return None


def _dated(name: list[str]) -> bool:
    """Whether an event's name still holds a day or a time ("monday's"), so its time is not
    the one read; a letter or two ("w/") is none."""
    return any(len(w.strip(".,/-")) > 2 and may_be_schedule(w) for w in name)


def _timely(word: str) -> bool:
    """Whether a word is one a schedule holds: a digit's, or the schedule language's."""
    folded = word.casefold()
    return any(c.isdigit() for c in word) or read_as(folded) in schedule_words()


def _once(text: str, read: Callable[[str], Parsed]) -> datetime | None:
    try:
        parsed = read(text)
    except ScheduleError:
        return None
    return None if is_recurring(parsed.schedule) else parsed.first_run


def _ends(words: list[str]) -> Iterator[tuple[list[str], list[str]]]:
    """Its first and last words together, the most first, and the words between them."""
    yield words, []
    for size in range(len(words) - 1, 0, -1):
        for first in range(size, -1, -1):
            last = len(words) - (size - first)
            yield words[:first] + words[last:], words[first:last]


def lead_time(event: datetime, lead: int, zone: str) -> str:
    """The wall time ``lead`` seconds before ``event`` in ``zone``, as the reader takes it."""
    return f"{(event - timedelta(seconds=lead)).astimezone(ZoneInfo(zone)):%Y-%m-%d %H:%M}"
