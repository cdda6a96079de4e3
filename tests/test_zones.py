"""Time that follows the person: a zone set by a place's name in either language, and every
task moved with it at the same wall-clock time."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from test_local_first import USER, running

from assistant.schedules.moving import moved
from assistant.schedules.schedule import Cron, Interval, Once, next_after


def local(moment: datetime, zone: str) -> str:
    return f"{moment.astimezone(ZoneInfo(zone)):%a %H:%M}"


@pytest.mark.parametrize(
    ("said", "zone"),
    [
        ("/tz Moscow", "Europe/Moscow"),
        ("/tz Europe/Moscow", "Europe/Moscow"),
        ("my timezone is Berlin", "Europe/Berlin"),
        ("set my time zone to Tokyo", "Asia/Tokyo"),
        ("я в Москве", "Europe/Moscow"),
        ("мой часовой пояс — Екатеринбург", "Asia/Yekaterinburg"),
    ],
)
async def test_a_zone_is_set_by_a_place_in_either_language(tmp_path, said, zone):
    async with running(tmp_path) as (runtime, _, person):
        reply = await runtime.answer(person, said)
        profile = await runtime.people.get(USER)
    assert profile.timezone == zone and zone in reply.text


async def test_changing_the_zone_keeps_each_tasks_wall_clock_time(tmp_path):
    async with running(tmp_path) as (runtime, _, person):  # Europe/Berlin, Fri 27 Nov 09:00
        await runtime.answer(person, "/every weekdays 8am stand-up")
        await runtime.answer(person, "/remind tomorrow 9am call mom")
        await runtime.answer(person, "/every 30m drink water")
        before = {t.description: t for t in await runtime.tasks.list_tasks(USER)}
        reply = await runtime.answer(person, "/tz Europe/Moscow")
        after = {t.description: t for t in await runtime.tasks.list_tasks(USER)}
        moved_person = await runtime.person(USER, USER)
        listing = await runtime.answer(moved_person, "/tasks")
    assert "3" in reply.text and "same time of day" in reply.text
    assert local(after["stand-up"].next_run, "Europe/Moscow") == "Mon 08:00"
    assert local(after["call mom"].next_run, "Europe/Moscow") == "Sat 09:00"
    assert after["drink water"].next_run == before["drink water"].next_run  # elapsed time
    assert all(t.timezone == "Europe/Moscow" for t in after.values())
    assert "on weekdays at 08:00; next Mon, Nov 30, 08:00 (Europe/Moscow)" in listing.text


async def test_a_place_nobody_knows_changes_nothing(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "/every weekdays 8am stand-up")
        before = await runtime.tasks.list_tasks(USER)
        reply = await runtime.answer(person, "/tz Atlantis")
        after = await runtime.tasks.list_tasks(USER)
        profile = await runtime.people.get(USER)
    assert "not a timezone I know" in reply.text
    assert profile.timezone is None and before == after


def test_a_moved_schedule_reads_the_same_on_the_new_wall_clock():
    now = datetime(2026, 3, 27, 12, 0, tzinfo=UTC)  # Berlin changes to summer time on the 29th
    cron = moved(Cron("0 8 * * 1-5", "UTC"), "Europe/Berlin")
    assert local(next_after(cron, now), "Europe/Berlin") == "Mon 08:00"
    once = moved(Once(datetime(2026, 3, 30, 9, 0, tzinfo=UTC), "UTC"), "Europe/Berlin")
    assert local(once.at, "Europe/Berlin") == "Mon 09:00"  # across the change, still 9 on the wall
    interval = Interval(1800, now, "UTC")
    assert moved(interval, "Asia/Tokyo") == Interval(1800, now, "Asia/Tokyo")
    assert moved(once, "Europe/Berlin") == once


async def test_the_terminal_takes_the_machines_zone_once_when_none_is_set(
    tmp_path, clock, monkeypatch
):
    import tzlocal
    from test_console import Terminal

    from assistant.app import Setup
    from assistant.app.serve import chat, console_user
    from assistant.channels.console import Console
    from assistant.config import parse_config

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(tzlocal, "get_localzone_name", lambda: "Asia/Tokyo")
    unset = Setup(parse_config({"assistant": {"data_dir": str(tmp_path)}}), "test", tmp_path)
    terminal = Terminal()
    terminal.console = Console(terminal.out, user_id=console_user(unset))
    terminal.type("what time is it?", "/quit")
    await chat(unset, clock, terminal.console)
    assert "(Asia/Tokyo)" in terminal.text()

    chosen = {"assistant": {"data_dir": str(tmp_path / "b"), "timezone": "Europe/Berlin"}}
    (tmp_path / "b").mkdir()
    terminal = Terminal()
    terminal.console = Console(terminal.out, user_id=0)
    terminal.type("what time is it?", "/quit")
    await chat(Setup(parse_config(chosen), "test", tmp_path), clock, terminal.console)
    assert "(Europe/Berlin)" in terminal.text()  # the config said: the machine is not asked


def test_status_shows_the_persons_zone(tmp_path, monkeypatch, capsys):
    from assistant.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["status"]) == 0
    assert "timezone: UTC (the config's; /tz sets yours)" in capsys.readouterr().out
    import sqlite3

    with sqlite3.connect(tmp_path / "data" / "assistant.db") as db:
        db.execute(
            "INSERT INTO people (user_id, timezone, updated_at) VALUES (0, 'Europe/Moscow', 'x')"
        )
    assert main(["status"]) == 0
    assert "timezone: Europe/Moscow (yours)" in capsys.readouterr().out


async def test_in_telegram_start_offers_zones_and_a_location_sets_one(tmp_path, clock, monkeypatch):
    import sqlite3

    from test_telegram import ADA, buttons_of, eventually, served

    async with served(tmp_path, clock, monkeypatch) as running:
        telegram = running.telegram
        telegram.message(ADA, "/start")
        await eventually(lambda: any("Which time zone" in t for t in telegram.texts()))
        hello = next(p for p in telegram.sent() if "Which time zone" in str(p["text"]))
        assert "tz:Europe/Berlin" in buttons_of(hello)  # the config's zone first
        telegram.press(ADA, "tz:Asia/Tokyo")
        await eventually(lambda: any("Timezone set to Asia/Tokyo" in t for t in telegram.texts()))
        telegram.location(ADA, 55.7558, 37.6173)  # Moscow
        await eventually(lambda: any("Europe/Moscow" in t for t in telegram.texts()))

    def zone() -> str:
        with sqlite3.connect(tmp_path / "assistant.db") as db:
            return db.execute("SELECT timezone FROM people WHERE user_id = ?", (ADA,)).fetchone()[0]

    assert zone() == "Europe/Moscow"


# ---- offsets, abbreviations and names that are files but no zones ---------------------------


@pytest.mark.parametrize(
    ("said", "zone", "label"),
    [
        ("UTC+3", "Etc/GMT-3", "UTC+3"),
        ("utc+3", "Etc/GMT-3", "UTC+3"),
        ("+3", "Etc/GMT-3", "UTC+3"),
        ("+03:00", "Etc/GMT-3", "UTC+3"),
        ("GMT-5", "Etc/GMT+5", "UTC-5"),
        ("UTC−12", "Etc/GMT+12", "UTC-12"),
        ("UTC+14", "Etc/GMT-14", "UTC+14"),
    ],
)
async def test_an_offset_is_a_fixed_zone_said_to_have_no_daylight_saving(
    tmp_path, said, zone, label
):
    async with running(tmp_path) as (runtime, _, person):  # Fri 27 Nov, 08:00 UTC
        reply = await runtime.answer(person, f"/tz {said}")
        profile = await runtime.people.get(USER)
    assert profile.timezone == zone
    assert reply.text.startswith(f"Timezone set to {label}, a fixed offset with no daylight")
    local = datetime(2026, 11, 27, 8, 0, tzinfo=UTC).astimezone(ZoneInfo(zone))
    assert f"it is {local:%H:%M} there now" in reply.text


async def test_utc_itself_is_set_as_utc(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        reply = await runtime.answer(person, "/tz utc")
        profile = await runtime.people.get(USER)
    assert profile.timezone == "UTC" and reply.text.startswith("Timezone set to UTC;")


@pytest.mark.parametrize(
    ("said", "words"),
    [
        ("UTC+5:30", "UTC+05:30 is not a whole number of hours"),
        ("+05:45", "e.g. /tz Kathmandu"),
        ("UTC+15", "No place is UTC+15: offsets run from UTC-12 to UTC+14."),
        ("EST", "EST is an abbreviation, not a time zone; tell me your city, e.g. /tz New York."),
        ("PST", "PST is an abbreviation"),
        ("CET", "CET is an abbreviation"),
        ("MSK", "MSK is an abbreviation"),
        ("localtime", "“localtime” is not a timezone I know"),
        ("posixrules", "“posixrules” is not a timezone I know"),
        ("right/UTC", "“right/UTC” is not a timezone I know"),
        ("posix/Europe/Moscow", "is not a timezone I know"),
        ("Factory", "“Factory” is not a timezone I know"),
        ("../../etc/passwd", "is not a timezone I know"),
        ("Europe//Moscow", "is not a timezone I know"),
        ("x" * 300, "“" + "x" * 39 + "…” is not a timezone I know"),
    ],
)
async def test_what_is_no_zone_is_refused_and_changes_nothing(tmp_path, said, words):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "/every weekdays 8am stand-up")
        before = await runtime.tasks.list_tasks(USER)
        reply = await runtime.answer(person, f"/tz {said}")
        after = await runtime.tasks.list_tasks(USER)
        profile = await runtime.people.get(USER)
    assert words in reply.text and "\n" not in reply.text
    assert profile.timezone is None and before == after


async def test_a_refusal_is_in_the_persons_language(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        russian = replace(person, language="ru")
        abbreviation = await runtime.answer(russian, "/tz EST")
        fixed = await runtime.answer(russian, "/tz utc+3")
    assert abbreviation.text.startswith("EST — это сокращение, а не часовой пояс")
    assert "/tz Москва" in abbreviation.text
    assert fixed.text.startswith("Часовой пояс: UTC+3, постоянное смещение без перехода")


async def test_cities_and_iana_names_stay_what_they_were(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        named = await runtime.answer(person, "/tz america/new_york")
        city = await runtime.answer(person, "/tz Tokyo")
        profile = await runtime.people.get(USER)
    assert named.text.startswith("Timezone set to America/New_York;")
    assert city.text.startswith("Timezone set to Asia/Tokyo;") and profile.timezone == "Asia/Tokyo"


def test_names_that_are_files_but_no_zones_are_none_anywhere():
    from assistant.clock import zone_or_none
    from assistant.intents import zone_of

    for name in ("localtime", "posixrules", "Factory", "right/UTC", "posix/Europe/Berlin"):
        assert zone_or_none(name) is None and zone_of(name) is None
    assert zone_or_none("Europe/Berlin") is not None and zone_or_none("Etc/GMT-3") is not None


async def test_a_zone_said_in_words_goes_through_the_same_checks(tmp_path):
    """What reaches the zone in plain words is read as /tz reads it: a name that is no zone
    sets none, an offset sets a fixed one, an abbreviation asks for the city."""
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "my timezone is posix/Europe/Moscow")
        untouched = (await runtime.people.get(USER)).timezone
        asked = await runtime.answer(person, "set my time zone to PST")
        after_abbreviation = (await runtime.people.get(USER)).timezone
        await runtime.answer(person, "my tz is utc+3")
        east = (await runtime.people.get(USER)).timezone
        await runtime.answer(person, "мой пояс utc-5")
        west = (await runtime.people.get(USER)).timezone
        there = await runtime.answer(person, "what time is it in UTC+5")
    assert untouched is None and after_abbreviation is None
    assert "PST is an abbreviation" in asked.text
    assert (east, west) == ("Etc/GMT-3", "Etc/GMT+5")
    assert "(Etc/GMT-5)" in there.text
