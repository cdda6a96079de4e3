"""A task told to its owner in their language and zone: its rule, its next run, its line.

The rule is said from the stored schedule, not from the English it was read from, so a task
made in English reads in Russian once its owner switches. A cron shape this does not know is
shown as it was written.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time

from babel.dates import format_date, format_skeleton

from assistant.locales import ntr, tr
from assistant.locales.dates import clock, listed, moment
from assistant.schedules.schedule import Cron, Interval, Once, Schedule
from assistant.tasks.task import Task

_WEEKDAYS = frozenset({"1,2,3,4,5", "1-5"})
_WEEKENDS = frozenset({"0,6", "6,0", "6,7", "6-7", "sat,sun"})
_NTH = re.compile(r"(L)([0-7])|([0-7])#([1-5])")
_ANY_DAY = date(2024, 1, 1)  # a Monday; a leap year, so 29 February can be told


def rule(task: Task, language: str) -> str:
    """How often the task runs: ``on weekdays at 08:00``, ``каждые 2 часа``."""
    schedule: Schedule = task.schedule
    if isinstance(schedule, Interval):
        return _interval(schedule.seconds, language)
    if isinstance(schedule, Cron):
        said = _cron(schedule, language)
        return said if said is not None else task.schedule_text
    return tr(language, "once")


def when(task: Task, zone: str, language: str) -> str:
    """When it runs, each thing once: a one-shot's moment and zone; a rule and its next run."""
    year = task.next_run.year != task.created_at.year
    at = moment(task.next_run, task.timezone, language, year=year)
    if isinstance(task.schedule, Once):
        if task.timezone == zone:
            return tr(language, "once on {moment} ({zone})", moment=at, zone=zone)
        mine = moment(task.next_run, zone, language, year=year)
        return tr(
            language,
            "once on {moment} ({zone}; {mine} for you)",
            moment=at,
            zone=task.timezone,
            mine=mine,
        )
    nxt = moment(task.next_run, zone, language, year=year)
    said = rule(task, language)
    if (until := task.schedule.until) is not None:  # how it ends: until June 1, or its 5th run
        late = until.year != task.created_at.year
        said = tr(
            language,
            "{rule} until {moment}",
            rule=said,
            moment=moment(until, zone, language, year=late),
        )
    return tr(language, "{rule}; next {moment} ({zone})", rule=said, moment=nxt, zone=zone)


def line(task: Task, zone: str, language: str) -> str:
    """A task in one line: id, words, when, and its state when not active."""
    said = tr(
        language,
        "{id}: {what} — {when}",
        id=task.id,
        what=what(task, language),
        when=when(task, zone, language),
    )
    if task.status == "paused":
        return tr(language, "{line} [paused]", line=said)
    return said


def made(task: Task, zone: str, language: str) -> str:
    """The confirmation of a task just made."""
    said = line(task, zone, language)
    if task.kind == "reminder":
        return tr(language, "✅ Reminder {line}.", line=said)
    return tr(language, "✅ Scheduled {line}.", line=said)


def what(task: Task, language: str) -> str:
    """The task's words, after its kind when it is not a reminder."""
    kinds = {
        "api_call": tr(language, "API call"),
        "web_search": tr(language, "web search"),
        "agent_task": tr(language, "agent task"),
    }
    kind = kinds.get(task.kind)
    return f"{kind}: {task.description}" if kind else task.description


def _interval(seconds: int, language: str) -> str:
    if seconds % 86400 == 0:
        n = seconds // 86400
        return ntr(language, "every day", "every {n} days", n)
    if seconds % 3600 == 0:
        n = seconds // 3600
        return ntr(language, "every hour", "every {n} hours", n)
    if seconds % 60 == 0:
        n = seconds // 60
        return ntr(language, "every minute", "every {n} minutes", n)
    return ntr(language, "every second", "every {n} seconds", seconds)


def _cron(schedule: Cron, language: str) -> str | None:
    fields = schedule.expr.split()
    times = _times(fields[0], fields[1])
    if len(fields) != 5 or times is None:
        return None
    days = _days(fields[2], fields[3], fields[4], language)
    if days is None:
        return None
    if schedule.every_days > 1 and fields[2:] == ["*", "*", "*"]:
        days = ntr(language, "every day", "every {n} days", schedule.every_days)
        schedule = Cron(schedule.expr, schedule.zone)
    said = tr(language, "{days} at {times}", days=days, times=listed(times, language))
    return _period(schedule, said, language)


def _times(minutes: str, hours: str) -> list[str] | None:
    if not (minutes.isdecimal() and all(h.isdecimal() for h in hours.split(","))):
        return None
    return [clock(time(int(h) % 24, int(minutes) % 60), "") for h in hours.split(",")]


def _days(dom: str, month: str, dow: str, language: str) -> str | None:
    if dom == "*" and (nth := _NTH.fullmatch(dow)):
        return _nth(nth, month, language)
    if dom == "*" and month == "*":
        return _weekly(dow, language)
    if dow != "*" or not all(d.isdecimal() and 1 <= int(d) <= 31 for d in dom.split(",")):
        return None
    numbers = listed(dom.split(","), language)
    if month == "*":
        return tr(language, "on day {days} of every month", days=numbers)
    if month.isdecimal() and dom.isdecimal() and 1 <= int(month) <= 12:
        day = _ANY_DAY.replace(month=int(month), day=int(dom))
        return tr(language, "every year on {date}", date=_date(day, language))
    return None


def _nth(found: re.Match[str], month: str, language: str) -> str | None:
    """``1#1`` (the first Monday), ``L0`` (the last Sunday), of every month or of one."""
    which, day = (-1, found[2]) if found[1] else (int(found[4]), found[3])
    ordinals = [tr(language, "first"), tr(language, "second"), tr(language, "third"),
                tr(language, "fourth"), tr(language, "fifth"), tr(language, "last")]  # fmt: skip
    values = {
        "nth": ordinals[which - 1 if which > 0 else 5],
        "weekday": _weekday(int(day) % 7, language),
    }
    if month == "*":
        return tr(language, "on the {nth} {weekday} of every month", **values)
    if month.isdecimal() and 1 <= int(month) <= 12:
        name = format_date(_ANY_DAY.replace(month=int(month)), "MMMM", locale=language)
        return tr(language, "every year on the {nth} {weekday} of {month}", month=name, **values)
    return None


def _weekly(dow: str, language: str) -> str | None:
    if dow == "*":
        return ntr(language, "every day", "every {n} days", 1)
    if dow in _WEEKDAYS:
        return tr(language, "on weekdays")
    if dow in _WEEKENDS:
        return tr(language, "on weekends")
    numbers = dow.split(",")
    if not all(d.isdecimal() and int(d) <= 7 for d in numbers):
        return None
    names = [_weekday(int(d) % 7, language) for d in numbers]
    return tr(language, "every {days}", days=listed(names, language))


def _weekday(cron_day: int, language: str) -> str:
    monday = _ANY_DAY  # cron counts from Sunday = 0
    day = monday.replace(day=1 + (cron_day - 1) % 7)
    return format_date(day, "EEE", locale=language)


def _date(day: date, language: str) -> str:
    return format_skeleton("MMMMd", datetime(day.year, day.month, day.day), locale=language)


def _period(schedule: Cron, said: str, language: str) -> str:
    if schedule.every_weeks > 1:
        return ntr(
            language,
            "{rule}, every week",
            "{rule}, every {n} weeks",
            schedule.every_weeks,
            rule=said,
        )
    if schedule.every_days > 1:
        return ntr(
            language, "{rule}, every day", "{rule}, every {n} days", schedule.every_days, rule=said
        )
    if schedule.every_months > 1:
        return ntr(
            language,
            "{rule}, every month",
            "{rule}, every {n} months",
            schedule.every_months,
            rule=said,
        )
    return said
