"""Dates, times and spans as a person reads them, in their locale and zone (Babel's CLDR data:
"Sat, Nov 28, 09:00", "сб, 28 нояб., 09:00")."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from babel.dates import format_date, format_skeleton, format_timedelta
from babel.lists import format_list

from assistant.locales.speech import tr


def clock(moment: datetime | time, language: str) -> str:
    """``09:00``: a time of day, on the 24-hour clock every reader understands."""
    return f"{moment.hour:02d}:{moment.minute:02d}"


def moment(at: datetime, zone: str, language: str, *, year: bool = False) -> str:
    """A moment in ``zone``: ``Sat, Nov 28, 09:00`` / ``сб, 28 нояб., 09:00``."""
    local = at.astimezone(ZoneInfo(zone))
    day = format_skeleton("yMMMEd" if year else "MMMEd", local, locale=language)
    return f"{day}, {clock(local, language)}"


def day(at: date, language: str) -> str:
    """``Saturday, November 28`` / ``суббота, 28 ноября``."""
    weekday = format_date(at, "EEEE", locale=language)
    return f"{weekday}, {format_skeleton('MMMMd', at, locale=language)}"


def span(length: timedelta, language: str) -> str:
    """``3 hours``, ``90 minutes``, ``3 часа``."""
    return format_timedelta(length, threshold=2, locale=language)


def listed(items: Sequence[str], language: str) -> str:
    """``Mon, Wed and Fri`` / ``пн, ср и пт``."""
    return format_list(list(items), locale=language) if items else ""


def offset(minutes: int, language: str) -> str:
    """How far a zone is from the person's: ``3 hours ahead of you``, ``на 5 ч 30 мин позади``."""
    if minutes == 0:
        return tr(language, "the same time as yours")
    hours, rest = divmod(abs(minutes), 60)
    length = (
        tr(language, "{hours} h {minutes} min", hours=hours, minutes=rest)
        if rest
        else span(timedelta(hours=hours), language)
    )
    if minutes > 0:
        return tr(language, "{span} ahead of you", span=length)
    return tr(language, "{span} behind you", span=length)
