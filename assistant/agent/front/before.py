"""A reminder set before an event: "30 minutes before the 3pm call", "за час до встречи".

The event's own time is found among its words ("3pm call", "встречи в 15:00"); the reminder is
that time less the lead. An event without a time is asked about, never read as "in 30 minutes".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from assistant.errors import ScheduleError
from assistant.schedules import Parsed
from assistant.schedules.schedule import is_recurring


def event_time(event: str, read: Callable[[str], Parsed]) -> datetime | None:
    """When the event is (UTC), from the most of its first and last words that read as one
    time, the name between them left out ("3pm call", "the meeting tomorrow at 10", "my 9am
    train tomorrow"); None when its words give none."""
    found = event_when(event, read)
    return found[0] if found else None


def event_when(event: str, read: Callable[[str], Parsed]) -> tuple[datetime, str] | None:
    """The event's time (UTC) and its name, the words its time leaves ("the vet appointment"
    of "the vet appointment tomorrow at 4pm"); None when its words give no time."""
    words = event.split()
    for part, name in _ends(words):
        try:
            parsed = read(" ".join(part))
        except ScheduleError:
            continue
        if not is_recurring(parsed.schedule):
            return parsed.first_run, " ".join(name)
    return None


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
