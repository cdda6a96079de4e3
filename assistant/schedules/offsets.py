"""Zones written as an offset from UTC ("UTC+3", "+03:00", "GMT-5") and the abbreviations
("EST", "MSK") that are not zones at all.

An offset in whole hours is IANA's fixed zone ``Etc/GMT-3`` (its sign is POSIX's, the other
way round): it never changes for daylight saving. No IANA zone is a fixed offset of a part of
an hour (+05:30), so one of those is read but has no zone: a city's names the real one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OFFSET = re.compile(
    r"(?:(?P<name>utc|gmt)\s*)?(?:(?P<sign>[+\-−])\s*(?P<hours>\d{1,2})(?::?(?P<minutes>\d{2}))?)?",
    re.IGNORECASE,
)
_EAST, _WEST = 14, 12  # the offsets IANA's Etc zones span: UTC-12 to UTC+14

# Said for a zone, and no zone: the tz database keeps some (EST, CET) as fixed or odd zones a
# person who writes them does not mean (EST is never daylight time), the rest it lacks.
ABBREVIATIONS = frozenset({
    "est", "edt", "cst", "cdt", "mst", "mdt", "pst", "pdt", "akst", "akdt", "hst", "ast", "adt",
    "nst", "ndt", "bst", "ist", "cet", "cest", "met", "mest", "wet", "west", "eet", "eest",
    "msk", "msd", "sast", "wat", "cat", "eat", "jst", "kst", "hkt", "sgt", "pht", "wib", "aest",
    "aedt", "acst", "acdt", "awst", "nzst", "nzdt", "est5edt", "cst6cdt", "mst7mdt", "pst8pdt",
})  # fmt: skip


@dataclass(frozen=True)
class Offset:
    """A fixed offset from UTC, in minutes east of it."""

    minutes: int

    @property
    def label(self) -> str:
        """As people write it: UTC+3, UTC-5, UTC+05:30, UTC."""
        if not self.minutes:
            return "UTC"
        sign, (hours, minutes) = "+-"[self.minutes < 0], divmod(abs(self.minutes), 60)
        return f"UTC{sign}{hours:02d}:{minutes:02d}" if minutes else f"UTC{sign}{hours}"

    @property
    def zone(self) -> str | None:
        """IANA's fixed zone for it (UTC+3 is Etc/GMT-3), or None: a part of an hour, or
        beyond the offsets any place keeps."""
        hours, minutes = divmod(self.minutes, 60)
        if minutes or not -_WEST <= hours <= _EAST:
            return None
        return "UTC" if not hours else f"Etc/GMT{-hours:+d}"


def offset_of(text: str) -> Offset | None:
    """The offset ``text`` writes ("UTC+3", "utc+3", "+3", "+03:00", "GMT-5", "UTC+5:30",
    "UTC"), or None when it writes none."""
    found = _OFFSET.fullmatch(text.strip())
    if found is None or not (found["name"] or found["sign"]):
        return None
    hours, minutes = int(found["hours"] or 0), int(found["minutes"] or 0)
    if minutes >= 60:
        return None
    total = hours * 60 + minutes
    return Offset(-total if found["sign"] in ("-", "−") else total)


def is_abbreviation(text: str) -> bool:
    """Whether ``text`` is a zone's abbreviation (EST, CET, MSK), which names no place."""
    return text.strip().casefold() in ABBREVIATIONS
