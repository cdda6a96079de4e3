"""Schedule text of either kind: a one-shot when it reads as one, else a recurring schedule."""

from __future__ import annotations

from datetime import datetime, timedelta

from assistant.errors import ScheduleError
from assistant.tasks.oneshot import parse_once
from assistant.tasks.reading import MIN_INTERVAL, Parsed
from assistant.tasks.recurring import parse_recurring


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
    if repeating:
        try:
            return parse_recurring(text, zone, now, min_interval)
        except ScheduleError:
            pass
    try:
        return parse_once(text, zone, now)
    except ScheduleError as once_error:
        try:
            return parse_recurring(text, zone, now, min_interval)
        except ScheduleError as recurring_error:
            recurring = "recurring schedule" in str(once_error)
            raise (recurring_error if recurring else once_error) from None
