"""Schedule text of either kind: a one-shot when it reads as one, else a recurring schedule."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from assistant.errors import ScheduleError
from assistant.schedules import bounds, vocabulary
from assistant.schedules.oneshot import ONCE_FORMS, parse_once
from assistant.schedules.parsed import MIN_INTERVAL, Parsed, Reading, check_length, zone_named
from assistant.schedules.recurring import RECURRING_FORMS, parse_recurring
from assistant.schedules.rewriting import Rewritten, rewrite


def read_schedule(
    text: str,
    zone: str,
    now: datetime,
    min_interval: timedelta = MIN_INTERVAL,
    *,
    repeating: bool = False,
) -> Parsed:
    """Read ``text`` as a one-shot, else as a recurring schedule; the clearer error wins.
    ``repeating`` (``/every``) tries the recurring reading first: ``30m`` is every 30 minutes."""
    check_length(text)
    zone_named(zone)
    canonical = rewrite(text, zone, now)
    if canonical.problem:
        raise Reading(text, zone, now, ONCE_FORMS).fail(
            canonical.problem, "ambiguous_hour", canonical.hour
        )
    main, limits = bounds.split(canonical.text)
    if limits:
        return _bounded(
            text, zone, now, min_interval, rewritten=replace(canonical, text=main), limits=limits
        )
    if repeating:
        try:
            return parse_recurring(text, zone, now, min_interval, canonical)
        except ScheduleError:
            pass
    try:
        return parse_once(text, zone, now, canonical)
    except ScheduleError as once_error:
        try:
            return parse_recurring(text, zone, now, min_interval, canonical)
        except ScheduleError as recurring_error:
            raise _clearer(once_error, recurring_error) from None


def read_span(text: str, zone: str, now: datetime) -> int | None:
    """How long ``text`` says ("30 minutes", "an hour", "час"), in seconds; None if it says
    no span of time."""
    words = rewrite(text, zone, now).text
    seconds = vocabulary.duration(words) or vocabulary.duration(f"1 {words}")
    return seconds if seconds and seconds > 0 else None


def _bounded(
    text: str,
    zone: str,
    now: datetime,
    min_interval: timedelta,
    *,
    rewritten: Rewritten,
    limits: bounds.Bounds,
) -> Parsed:
    """A repeating schedule with a start, an end or a number of times."""
    reading = Reading.of(text, zone, now, RECURRING_FORMS, rewritten)
    try:
        parsed = parse_recurring(text, zone, now, min_interval, rewritten)
    except ScheduleError:
        try:
            parse_once(text, zone, now, rewritten)
        except ScheduleError:
            raise
        raise reading.fail(bounds.ONLY_REPEATING) from None
    return bounds.bounded(reading, parsed, limits)


def _clearer(once: ScheduleError, recurring: ScheduleError) -> ScheduleError:
    """The one-shot reader's error, unless the text is recurring or only the recurring reader
    could say something more specific than "unknown"."""
    if once.reason == "recurring":
        return recurring
    generic = ("unknown_word", "unread")
    if once.reason in generic and recurring.reason not in generic:
        return recurring
    return once
