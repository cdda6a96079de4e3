"""The schedule language: schedule text as people write it, read into one-shot, interval and
cron schedules in the user's timezone, and their next runs across DST. Pure: no I/O."""

from assistant.schedules.oneshot import parse_once
from assistant.schedules.parse import read_schedule
from assistant.schedules.parsed import Parsed
from assistant.schedules.recurring import parse_recurring
from assistant.schedules.schedule import Cron, Interval, Once, Schedule, next_after

__all__ = [
    "Cron",
    "Interval",
    "Once",
    "Parsed",
    "Schedule",
    "next_after",
    "parse_once",
    "parse_recurring",
    "read_schedule",
]
