"""The schedule language: every accepted form, and a clear error for every bad input."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from assistant.errors import ScheduleError
from assistant.schedules import Cron, Interval, Once, parse_once, parse_recurring

ZONE = "Europe/Berlin"
NOW = datetime(2026, 3, 14, 9, 26, 53, tzinfo=UTC)  # Saturday, 10:26:53 in Berlin


@pytest.mark.parametrize(
    ("text", "first_utc", "description"),
    [
        ("in 5m", "2026-03-14 09:31:53", "once on Sat 14 Mar 2026 at 10:31:53, Europe/Berlin"),
        ("in 2h30m", "2026-03-14 11:56:53", None),
        ("in 1 hour and 30 minutes", "2026-03-14 10:56:53", None),
        ("in an hour", "2026-03-14 10:26:53", None),
        ("30s", "2026-03-14 09:27:23", None),
        ("5m", "2026-03-14 09:31:53", None),
        ("2h", "2026-03-14 11:26:53", None),
        ("1d", "2026-03-15 09:26:53", None),
        ("at 18:30", "2026-03-14 17:30:00", "once on Sat 14 Mar 2026 at 18:30, Europe/Berlin"),
        ("tomorrow 9am", "2026-03-15 08:00:00", "once on Sun 15 Mar 2026 at 09:00, Europe/Berlin"),
        ("9am tomorrow", "2026-03-15 08:00:00", None),
        ("tomorrow at 6:15 p.m.", "2026-03-15 17:15:00", None),
        ("monday 10am", "2026-03-16 09:00:00", None),
        ("saturday 9am", "2026-03-21 08:00:00", None),  # today's 9am has passed
        ("saturday 11am", "2026-03-14 10:00:00", None),  # today's 11am has not
        ("next saturday 11am", "2026-03-21 10:00:00", None),
        ("2026-12-24 18:00", "2026-12-24 17:00:00", None),
        ("dec 24 6pm", "2026-12-24 17:00:00", None),
        ("24th of december at noon", "2026-12-24 11:00:00", None),
        ("Today 11PM", "2026-03-14 22:00:00", None),
    ],
)
def test_one_shot_forms(text: str, first_utc: str, description: str | None) -> None:
    parsed = parse_once(text, ZONE, NOW)
    assert isinstance(parsed.schedule, Once)
    assert parsed.first_run == datetime.fromisoformat(first_utc).replace(tzinfo=UTC)
    assert parsed.schedule.at == parsed.first_run
    assert parsed.source == text
    if description:
        assert parsed.description == description


def test_a_time_that_has_passed_today_is_tomorrow_and_says_so() -> None:
    parsed = parse_once("at 8:00", ZONE, NOW)
    assert parsed.first_run == datetime(2026, 3, 15, 7, 0, tzinfo=UTC)
    assert parsed.note == "08:00 has passed today, so tomorrow"
    assert parse_once("at 18:30", ZONE, NOW).note == ""


@pytest.mark.parametrize(
    ("text", "expected", "description"),
    [
        ("daily 9am", "0 9 * * *", "every day at 09:00, Europe/Berlin"),
        ("every day at 9:30", "30 9 * * *", "every day at 09:30, Europe/Berlin"),
        ("weekdays 6pm", "0 18 * * 1-5", "every weekday at 18:00, Europe/Berlin"),
        ("weekends 10am", "0 10 * * 0,6", "every Saturday and Sunday at 10:00, Europe/Berlin"),
        ("monday 10am", "0 10 * * 1", "every Monday at 10:00, Europe/Berlin"),
        ("every monday 10am", "0 10 * * 1", "every Monday at 10:00, Europe/Berlin"),
        (
            "mondays and thursdays 8:15",
            "15 8 * * 1,4",
            "every Monday and Thursday at 08:15, Europe/Berlin",
        ),
        ("mon, wed, fri 7:00", "0 7 * * 1,3,5", None),
        (
            "1st of every month 9am",
            "0 9 1 * *",
            "on the 1st of every month at 09:00, Europe/Berlin",
        ),
        ("every month on the 15th at 9am", "0 9 15 * *", None),
        ("every year on dec 24 18:00", "0 18 24 12 *", None),
        ("*/15 * * * *", "*/15 * * * *", "cron '*/15 * * * *', Europe/Berlin"),
        ("@hourly", "0 * * * *", "every hour, on the hour (@hourly), Europe/Berlin"),
        ("@daily", "0 0 * * *", None),
    ],
)
def test_recurring_calendar_forms(text: str, expected: str, description: str | None) -> None:
    parsed = parse_recurring(text, ZONE, NOW)
    assert parsed.schedule == Cron(expected, ZONE)
    assert parsed.first_run > NOW
    if description:
        assert parsed.description == description


@pytest.mark.parametrize(
    ("text", "seconds", "description"),
    [
        ("every 15m", 900, "every 15 minutes, Europe/Berlin"),
        ("every 2h", 7200, "every 2 hours, Europe/Berlin"),
        ("every hour", 3600, "every hour, Europe/Berlin"),
        ("every 1h 30m", 5400, "every 1 hour 30 minutes, Europe/Berlin"),
    ],
)
def test_recurring_intervals(text: str, seconds: int, description: str) -> None:
    parsed = parse_recurring(text, ZONE, NOW)
    assert isinstance(parsed.schedule, Interval)
    assert parsed.schedule.seconds == seconds
    assert parsed.first_run == NOW + timedelta(seconds=seconds)
    assert parsed.description == description


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("blah", "unknown word 'blah'"),
        ("in 5 fortnights", "unknown word 'fortnights'"),
        ("2020-01-01 10:00", "is in the past"),
        ("today 8am", "is in the past"),
        ("25:00", "25:00 is not a time of day: hours go 0–23"),
        ("at 9:75", "minutes go 0–59"),
        ("13pm", "'13pm' is not a time of day"),
        ("2027-02-30 9:00", "February 2027 has no day 30"),
        ("february 30th 9am", "February has no day 30"),
        ("tomorrow", "it names a day but no time of day"),
        ("in 0m", "the delay must be more than zero"),
        ("in 99999d", "more than ten years ahead"),
        ("9am and 5pm", "it names 2 times of day"),
        ("every 5m", "that is a recurring schedule"),
        ("", "it is empty"),
    ],
)
def test_bad_one_shots_are_explained(text: str, reason: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_once(text, ZONE, NOW)
    message = str(caught.value)
    assert f"cannot read the schedule {text!r}" in message
    assert reason in message
    assert "Accepted forms, for example: in 5m" in message


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("every blorp", "unknown word 'blorp'"),
        ("every 0m", "it must be more than zero"),
        ("every 30s", "more often than the minimum of 1 minute"),
        ("* * * * * *", "exactly five fields"),
        ("0 9 * * * 2026", "this one has 6"),
        ("61 * * * *", "not a valid cron expression"),
        ("0 9 30 2 *", "never happens"),
        ("every year on february 30th 9am", "February has no day 30"),
        ("32nd of every month 9am", "a month has no day 32"),
        ("weekdays 25:00", "hours go 0–23"),
        ("daily", "not at what time"),
        ("every 400 days at 9am", "every n days goes from 1 to 366 days"),
        ("@reboot", "it is not one of @yearly"),
        ("9am", "it gives a time but not which days"),
    ],
)
def test_bad_recurring_schedules_are_explained(text: str, reason: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_recurring(text, ZONE, NOW)
    message = str(caught.value)
    assert f"cannot read the schedule {text!r}" in message
    assert reason in message
    assert "every 15m, daily 9am" in message


def test_the_minimum_interval_is_configurable() -> None:
    five = timedelta(minutes=5)
    assert parse_recurring("every 5m", ZONE, NOW, five).schedule.kind == "interval"
    with pytest.raises(ScheduleError, match="more often than the minimum of 5 minutes"):
        parse_recurring("every 4m", ZONE, NOW, five)
    with pytest.raises(ScheduleError, match="more often than the minimum interval of 5 minutes"):
        parse_recurring("*/2 * * * *", ZONE, NOW, five)
    with pytest.raises(ScheduleError, match="minimum interval"):
        parse_recurring("0,1 9 * * *", ZONE, NOW, five)
    assert parse_recurring("*/5 * * * *", ZONE, NOW, five).schedule == Cron("*/5 * * * *", ZONE)


@pytest.mark.parametrize("parse", [parse_once, parse_recurring])
def test_an_unknown_timezone_is_a_clear_error(parse) -> None:
    with pytest.raises(ScheduleError, match="unknown timezone 'Mars/Base'; expected an IANA name"):
        parse("in 5m", "Mars/Base", NOW)
