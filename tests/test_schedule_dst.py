"""Next runs across DST: fixed times follow the wall clock once a day, intervals follow elapsed time."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.schedules import Cron, Interval, Once, next_after, parse_once, parse_recurring
from assistant.schedules.schedule import from_json, latest_due, to_json


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def runs(schedule, start: datetime, count: int) -> list[datetime]:
    found, after = [], start
    for _ in range(count):
        after = next_after(schedule, after)
        found.append(after)
    return found


@pytest.mark.parametrize(
    ("zone", "cron", "start", "expected"),
    [
        # New York, spring: 02:00 EST jumps to 03:00 EDT; 02:30 fires right after the gap.
        (
            "America/New_York",
            "30 2 * * *",
            "2026-03-07 00:00",
            ["2026-03-07 07:30", "2026-03-08 07:00", "2026-03-09 06:30"],
        ),
        # New York, autumn: 01:00-02:00 happens twice; 01:30 fires once, the first time.
        (
            "America/New_York",
            "30 1 * * *",
            "2026-10-31 00:00",
            ["2026-10-31 05:30", "2026-11-01 05:30", "2026-11-02 06:30"],
        ),
        # Berlin, spring: 02:00 CET jumps to 03:00 CEST.
        (
            "Europe/Berlin",
            "30 2 * * *",
            "2026-03-27 12:00",
            ["2026-03-28 01:30", "2026-03-29 01:00", "2026-03-30 00:30"],
        ),
        # Berlin, autumn: 02:00-03:00 happens twice.
        (
            "Europe/Berlin",
            "30 2 * * *",
            "2026-10-23 12:00",
            ["2026-10-24 00:30", "2026-10-25 00:30", "2026-10-26 01:30"],
        ),
        # Lord Howe, spring: 02:00 (+10:30) jumps to 02:30 (+11), a 30-minute gap.
        (
            "Australia/Lord_Howe",
            "15 2 * * *",
            "2026-10-02 00:00",
            ["2026-10-02 15:45", "2026-10-03 15:30", "2026-10-04 15:15"],
        ),
        # Lord Howe, autumn: 01:30-02:00 happens twice.
        (
            "Australia/Lord_Howe",
            "45 1 * * *",
            "2026-04-03 00:00",
            ["2026-04-03 14:45", "2026-04-04 14:45", "2026-04-05 15:15"],
        ),
        # A weekly time in the gap moves past it, on its own day.
        (
            "Europe/Berlin",
            "30 2 * * 0",
            "2026-03-22 12:00",
            ["2026-03-29 01:00", "2026-04-05 00:30"],
        ),
    ],
)
def test_fixed_times_across_dst(zone: str, cron: str, start: str, expected: list[str]) -> None:
    assert runs(Cron(cron, zone), utc(start), len(expected)) == [utc(e) for e in expected]


@pytest.mark.parametrize(
    ("zone", "seconds", "start"),
    [
        ("America/New_York", 3600, "2026-03-08 05:10"),
        ("America/New_York", 3600, "2026-11-01 04:10"),
        ("Europe/Berlin", 1800, "2026-03-29 00:05"),
        ("Europe/Berlin", 1800, "2026-10-25 00:05"),
        ("Australia/Lord_Howe", 900, "2026-10-03 15:00"),
        ("Australia/Lord_Howe", 900, "2026-04-04 14:50"),
    ],
)
def test_intervals_follow_elapsed_time_across_dst(zone: str, seconds: int, start: str) -> None:
    anchor = utc(start)
    schedule = Interval(seconds, anchor, zone)
    found = runs(schedule, anchor - timedelta(seconds=1), 8)
    assert found == [anchor + timedelta(seconds=seconds * i) for i in range(8)]


def test_wall_times_within_the_hour_after_a_gap_keep_their_order() -> None:
    # Every 15 minutes in Berlin on the spring day: 02:00-02:45 do not exist, 03:00 fires once.
    found = runs(Cron("*/15 * * * *", "Europe/Berlin"), utc("2026-03-29 00:40"), 4)
    assert found == [
        utc("2026-03-29 00:45"),
        utc("2026-03-29 01:00"),
        utc("2026-03-29 01:15"),
        utc("2026-03-29 01:30"),
    ]


def test_a_one_shot_in_the_gap_is_set_right_after_it() -> None:
    parsed = parse_once("2026-03-29 02:30", "Europe/Berlin", utc("2026-03-20 00:00"))
    assert parsed.first_run == utc("2026-03-29 01:00")  # 03:00 CEST


def test_a_one_shot_in_the_repeated_hour_is_its_first_occurrence() -> None:
    parsed = parse_once("2026-10-25 02:30", "Europe/Berlin", utc("2026-10-20 00:00"))
    assert parsed.first_run == utc("2026-10-25 00:30")  # 02:30 CEST, not CET


def test_missed_runs_coalesce_into_the_latest() -> None:
    daily = Cron("0 9 * * *", "UTC")
    slot, skipped = latest_due(daily, utc("2026-03-10 09:00"), utc("2026-03-14 10:00"))
    assert (slot, skipped) == (utc("2026-03-14 09:00"), 4)
    every = Interval(900, utc("2026-03-14 09:00"), "UTC")
    assert latest_due(every, utc("2026-03-14 09:00"), utc("2026-03-14 10:07")) == (
        utc("2026-03-14 10:00"),
        4,
    )
    once = Once(utc("2026-03-14 09:00"), "UTC")
    assert latest_due(once, once.at, utc("2026-03-15 00:00")) == (once.at, 0)


def test_a_dense_backlog_is_counted_up_to_a_cap_and_still_finds_the_latest() -> None:
    minutely = Cron("* * * * *", "UTC")
    slot, skipped = latest_due(minutely, utc("2026-01-01 00:00"), utc("2026-03-01 12:34:30"))
    assert slot == utc("2026-03-01 12:34")
    assert skipped == 1000


def test_schedules_survive_their_json() -> None:
    for schedule in (
        Once(utc("2026-03-14 09:00"), "Europe/Berlin"),
        Interval(900, utc("2026-03-14 09:00"), "UTC"),
        Cron("0 9 * * 1-5", "America/New_York"),
    ):
        assert from_json(to_json(schedule)) == schedule


ZONES = st.sampled_from(
    [
        "America/New_York",
        "Europe/Berlin",
        "Australia/Lord_Howe",
        "Asia/Kolkata",
        "America/St_Johns",
        "Pacific/Chatham",
        "UTC",
    ]
)
MOMENTS = st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2028, 12, 31)).map(
    lambda moment: moment.replace(tzinfo=UTC)
)


@settings(max_examples=150, deadline=None)
@given(
    zone=ZONES, hour=st.integers(0, 23), minute=st.sampled_from([0, 15, 30, 45, 59]), start=MOMENTS
)
def test_a_daily_time_fires_once_every_local_day(zone, hour, minute, start) -> None:
    found = runs(Cron(f"{minute} {hour} * * *", zone), start, 40)
    tz = ZoneInfo(zone)
    assert all(a < b for a, b in zip([start, *found], found, strict=False))
    dates = [moment.astimezone(tz).date() for moment in found]
    assert len(set(dates)) == len(dates)  # at most once per local date
    assert all((b - a).days == 1 for a, b in itertools.pairwise(dates))  # no day skipped


@settings(max_examples=150, deadline=None)
@given(
    zone=ZONES,
    expr=st.sampled_from(
        ["*/15 * * * *", "30 2 * * 0", "0 9 1 * *", "15 8 * * 1,4", "0 */3 * * *", "45 1 * * *"]
    ),
    start=MOMENTS,
)
def test_every_next_run_is_later_than_the_last(zone, expr, start) -> None:
    found = runs(Cron(expr, zone), start, 30)
    assert all(a < b for a, b in zip([start, *found], found, strict=False))


@settings(max_examples=200, deadline=None)
@given(seconds=st.integers(60, 86400 * 3), anchor=MOMENTS, after=MOMENTS)
def test_interval_next_run_is_on_the_grid_and_strictly_later(seconds, anchor, after) -> None:
    schedule = Interval(seconds, anchor, "UTC")
    following = next_after(schedule, after)
    assert following > after
    assert (following - anchor).total_seconds() % seconds == 0
    assert following - after <= timedelta(seconds=seconds) or following == anchor


@settings(max_examples=100, deadline=None)
@given(
    zone=ZONES,
    start=MOMENTS,
    text=st.sampled_from(
        ["daily 9am", "weekdays 6pm", "every monday 2:30", "1st of every month 9am", "every 15m"]
    ),
)
def test_a_parsed_first_run_is_the_next_run_after_now(zone, start, text) -> None:
    parsed = parse_recurring(text, zone, start)
    assert parsed.first_run > start
    if not isinstance(parsed.schedule, Interval):
        assert next_after(parsed.schedule, start) == parsed.first_run
