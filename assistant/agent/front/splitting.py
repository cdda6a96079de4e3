"""Slash commands' text split into a schedule and the words after it ("/remind in 10m stretch
your legs"): the longest leading words that read as a schedule win; a refusal carries its
reason, and is said in the person's language where it is told."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from assistant.errors import ScheduleError
from assistant.schedules import Parsed
from assistant.schedules.parse import read_schedule

WHEN_WORDS = 7


@dataclass(frozen=True)
class Reading:
    """Where and when schedule text is read: the person's zone, now, the shortest interval."""

    zone: str
    now: datetime
    least: timedelta


def split(
    rest: str, reading: Reading, example: str, *, repeating: bool = False
) -> tuple[Parsed, str]:
    """The longest leading words that read as a schedule, and the words after them; else
    the schedule's own refusal (an ambiguous hour) or that the words are missing."""
    words, refused = rest.split(), list[ScheduleError]()
    for cut in range(min(len(words), WHEN_WORDS), 0, -1):
        try:
            parsed = read_schedule(
                " ".join(words[:cut]),
                reading.zone,
                reading.now,
                reading.least,
                repeating=repeating,
            )
        except ScheduleError as exc:
            refused += [] if _unread(exc) else [exc]
            continue
        if cut == len(words):
            raise ScheduleError(
                f"what should I remind you of {rest}? Say when and what, e.g. {example}",
                "no_words",
                rest,
                example,
            )
        return parsed, " ".join(words[cut:])
    if refused:  # the shortest reading refused for the reason the longest was
        raise next(e for e in reversed(refused) if _reason(e) == _reason(refused[0]))
    if len(words) >= 2:
        read_schedule(" ".join(words[:2]), reading.zone, reading.now)  # its own error
    raise ScheduleError(f"say when and what, e.g. {example}", "no_schedule", detail=example)


def _unread(error: ScheduleError) -> bool:
    """Whether the schedule was not read at all (as opposed to read and refused)."""
    return error.reason in ("unread", "unknown_word")


def _reason(error: ScheduleError) -> tuple[str, str]:
    return error.reason, error.detail
