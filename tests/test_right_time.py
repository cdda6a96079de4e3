"""Never a wrong time: a span from now keeps its instant through a zone change, a clock time
its wall clock, a task the scheduler holds moves too, and old tasks are marked by their text."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from conftest import fetch
from hypothesis import given, settings
from hypothesis import strategies as st
from test_local_first import USER, running

from assistant.agent.front.before import event_time
from assistant.db import open_database
from assistant.errors import ScheduleError
from assistant.intents import understand
from assistant.migrations import MIGRATIONS
from assistant.scheduler.queue import _restored
from assistant.schedules.moving import moved
from assistant.schedules.parse import read_schedule
from assistant.schedules.schedule import Cron, Once, from_json, to_json


def wall(moment: datetime, zone: str) -> str:
    return f"{moment.astimezone(ZoneInfo(zone)):%a %H:%M}"


async def test_a_span_from_now_keeps_its_instant_and_a_clock_time_its_wall_clock(tmp_path):
    async with running(tmp_path) as (runtime, _, person):  # Berlin, Fri 27 Nov 09:00
        await runtime.answer(person, "remind me in 3 hours to check the oven")
        await runtime.answer(person, "remind me at 6pm to call mom")
        before = {t.description: t for t in await runtime.tasks.list_tasks(USER)}
        reply = await runtime.answer(person, "/tz Tokyo")
        after = {t.description: t for t in await runtime.tasks.list_tasks(USER)}
    assert "2" in reply.text
    assert after["check the oven"].next_run == before["check the oven"].next_run  # 12:00 Berlin
    assert after["check the oven"].timezone == "Asia/Tokyo"
    assert wall(after["call mom"].next_run, "Asia/Tokyo") == "Fri 18:00"


async def test_west_a_span_is_not_delayed(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "напомни через 2 часа проверить духовку")
        [before] = await runtime.tasks.list_tasks(USER)
        await runtime.answer(person, "/tz America/New_York")
        [after] = await runtime.tasks.list_tasks(USER)
    assert after.next_run == before.next_run and after.timezone == "America/New_York"


def test_a_span_survives_storage_and_a_move():
    at = datetime(2026, 11, 27, 11, 0, tzinfo=UTC)
    span = Once(at, "Europe/Berlin", from_now=True)
    assert from_json(to_json(span)) == span
    assert moved(span, "Asia/Tokyo").at == at
    assert from_json(to_json(Once(at, "UTC"))) == Once(at, "UTC")  # old rows read as clock times


async def test_a_task_the_scheduler_holds_moves_too(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "/every day 9:00 stretch")
        [task] = await runtime.tasks.list_tasks(USER)
        async with runtime.db.write() as session:
            await session.execute(
                "UPDATE scheduled_tasks SET lease_owner = 'other' WHERE id = ?", (task.id,)
            )
        reply = await runtime.answer(person, "/tz Asia/Tokyo")
        [row] = await fetch(
            runtime.db,
            "SELECT timezone, schedule_data FROM scheduled_tasks WHERE id = ?",
            (task.id,),
        )
    assert "1" in reply.text and row[0] == "Asia/Tokyo"
    with sqlite3.connect(tmp_path / "assistant.db") as db:
        [fresh] = _restored(db, [task])  # the run that held it ends: its next run, moved
    assert fresh.schedule == from_json(row[1]) and fresh.schedule.zone == "Asia/Tokyo"


async def test_old_one_shots_off_the_minute_are_marked_spans(tmp_path):
    path = tmp_path / "old.db"
    db = await open_database(path, MIGRATIONS[:15])  # a database from before migration 16
    await db.close()
    ats = {
        "in 3 hours": datetime(2026, 11, 27, 11, 26, 53, tzinfo=UTC),
        "tomorrow 9am": datetime(2026, 11, 28, 8, 0, tzinfo=UTC),
        "at 18:30": datetime(2026, 11, 27, 17, 30, tzinfo=UTC),
    }
    with sqlite3.connect(path) as raw:
        for n, (text, at) in enumerate(ats.items()):
            raw.execute(
                "INSERT INTO scheduled_tasks (id, user_id, chat_id, task_type, description,"
                " schedule_type, schedule_data, schedule_text, timezone, execution_data,"
                " created_at, next_run, due_at) VALUES (?, 1, 1, 'reminder', ?, 'once', ?, ?,"
                " 'UTC', '{}', ?, ?, ?)",
                (f"t{n}", text, to_json(Once(at, "UTC")), text, *[at.isoformat()] * 3),
            )
    db = await open_database(path)
    rows = await fetch(db, "SELECT description, schedule_data FROM scheduled_tasks")
    await db.close()
    marked = {text: from_json(data).from_now for text, data in rows}  # type: ignore[union-attr]
    assert marked == {"in 3 hours": True, "tomorrow 9am": False, "at 18:30": False}


async def test_a_confirmation_says_how_a_bare_time_was_read_and_how_a_repeat_ends(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        afternoon = await runtime.answer(person, "remind me at 3:30 to call mom")
        morning = await runtime.answer(person, "remind me at 10:30 to call dad")
        until = await runtime.answer(person, "remind me every day at 9am until june 1 to stretch")
        times = await runtime.answer(person, "/every day 9am for 3 times drink water")
    assert "3:30 is read as 15:30." in afternoon.text
    assert "read as" not in morning.text
    assert "until Tue, Jun 1, 2027" in until.text
    assert "until Mon, Nov 30, 09:00" in times.text


# ---- a schedule language that composes: a day and a time in every combination -------------

NOW = datetime(2026, 11, 27, 8, 0, tzinfo=UTC)  # Friday 09:00 in Berlin
COMPOSED = [
    ("in 3 days at 7pm", "2026-11-30 19:00"),
    ("in two weeks at 10am", "2026-12-11 10:00"),
    ("in a week at 10am", "2026-12-04 10:00"),
    ("the day after tomorrow at 1pm", "2026-11-29 13:00"),
    ("day after tmrw at noon", "2026-11-29 12:00"),
    ("on the 7th at 9am", "2026-12-07 09:00"),
    ("on the 27th at 8am", "2026-12-27 08:00"),
    ("on the 31st at 9am", "2026-12-31 09:00"),
    ("at six fifteen pm", "2026-11-27 18:15"),
    ("at six thirty p m", "2026-11-27 18:30"),
    ("at six thirty", "2026-11-27 18:30"),
    ("half past six", "2026-11-27 18:30"),
    ("quarter to 8", "2026-11-27 19:45"),
    ("noon", "2026-11-27 12:00"),
    ("midnight", "2026-11-28 00:00"),
    ("tonight at 10", "2026-11-27 22:00"),
    ("next friday evening", "2026-12-04 19:00"),
    ("tmrw at 10am", "2026-11-28 10:00"),
    ("2moro at 8:15am", "2026-11-28 08:15"),
    ("tommorow at 5pm", "2026-11-28 17:00"),
    ("in like 40 mins", "2026-11-27 09:40"),
    ("через 2 дня в 20:00", "2026-11-29 20:00"),
    ("послезавтра в полдень", "2026-11-29 12:00"),
    ("5-го в 10 утра", "2026-12-05 10:00"),
    ("в полседьмого", "2026-11-27 18:30"),
    ("в пол пятого дня", "2026-11-27 16:30"),
    ("без четверти восемь", "2026-11-27 19:45"),
    ("без десяти восемь вечера", "2026-11-27 19:50"),
    ("в обед", "2026-11-27 13:00"),
    ("в 3 часа дня", "2026-11-27 15:00"),
    ("завтро в 9 утра", "2026-11-28 09:00"),
    ("в 7:45", "2026-11-28 07:45"),  # a time written in Russian is on the 24-hour clock
    ("at 7:45", "2026-11-27 19:45"),  # in English, the next 7:45 to come (and the reply says so)
    ("в 3:30", "2026-11-27 15:30"),  # the small hours: the next to come in every language
    ("завтра на 9 утра", "2026-11-28 09:00"),
    ("на 6 вечера", "2026-11-27 18:00"),
    ("в 16.00", "2026-11-27 16:00"),  # no month is 00: a clock time
    ("в 9.45", "2026-11-27 09:45"),
    ("10.12 в 9:00", "2026-12-10 09:00"),  # a day and a month stay a date
    ("через 1.25 часа", "2026-11-27 10:15"),  # a span, not 1:25
    ("в следующий вторник в 9:00", "2026-12-01 09:00"),
    ("на воскресенье на 6 утра", "2026-11-29 06:00"),
]
REPEATING = [
    ("twice a week, tue and fri at 6pm", "0 18 * * 2,5"),
    ("по вт и пт в 18", "0 18 * * 2,5"),
    ("два раза в неделю по вт и пт в 18:00", "0 18 * * 2,5"),
    ("каждое 1-е число в 9 утра", "0 9 1 * *"),
]


@pytest.mark.parametrize(("said", "wanted"), COMPOSED)
def test_a_day_and_a_time_compose(said, wanted):
    parsed = read_schedule(said, "Europe/Berlin", NOW)
    assert f"{parsed.first_run.astimezone(ZoneInfo('Europe/Berlin')):%Y-%m-%d %H:%M}" == wanted


@pytest.mark.parametrize(("said", "cron"), REPEATING)
def test_days_listed_with_a_time_repeat(said, cron):
    schedule = read_schedule(said, "Europe/Berlin", NOW).schedule
    assert isinstance(schedule, Cron) and schedule.expr == cron


@pytest.mark.parametrize(
    "said", ["twice a week at 6pm", "tomorrow at 3", "в пятницу в 3", "on the 21st"]
)
def test_what_cannot_be_certain_is_not_guessed(said):
    with pytest.raises(ScheduleError) as caught:
        read_schedule(said, "Europe/Berlin", NOW)
    assert caught.value.reason in ("ambiguous_hour", "no_time", "unknown_word", "unread")


def test_a_reminder_before_an_event_takes_the_events_day():
    found = understand(
        "remind me an hour before my 9am train tomorrow to pack",
        "Europe/Berlin",
        NOW,
        timedelta(minutes=1),
    )
    assert found is not None and found.intent == "remind_before"
    at = event_time(found.slots["event"], lambda w: read_schedule(w, "Europe/Berlin", NOW))
    assert at is not None and wall(at, "Europe/Berlin") == "Sat 09:00"


# ---- the local step: a day anywhere belongs to the schedule; a bare hour with a day is asked --

SET_RIGHT = [
    ("remind me to call Bob tomorrow at 3pm", "call Bob", "Sat 15:00"),
    ("remind me tomorrow to call Bob at 5pm", "call Bob", "Sat 17:00"),
    ("remind me in 3 days at 7pm to water the plants", "water the plants", "Mon 19:00"),
    ("remind me in a week at 10am to renew", "renew", "Fri 10:00"),
    ("remind me at six thirty p m to cook", "cook", "Fri 18:30"),
    ("remind me tmrw at 10am to call the dentist", "call the dentist", "Sat 10:00"),
    ("2moro at 8:15am remind me to pack lunch", "pack lunch", "Sat 08:15"),
    ("remnid me in 20 minutes to stretch", "stretch", "Fri 09:20"),
    ("yo remind me in like 40 mins to check the oven", "check the oven", "Fri 09:40"),
    ("can u remind me at 3pm to get milk thx", "get milk", "Fri 15:00"),
    ("remind me to stretch in 15 minutes pls", "stretch", "Fri 09:15"),
    ("remind me on the 7th at 9am to pay rent", "pay rent", "Mon 09:00"),
    ("remind me the day after tmrw at noon to call grandma", "call grandma", "Sun 12:00"),
    ("wake me up tmrw at 6:30", "⏰ alarm", "Sat 06:30"),
    ("напомни через 2 дня в 20:00 полить цветы", "полить цветы", "Sun 20:00"),
    ("напомин завтро в 9 утра купить хлеб", "купить хлеб", "Sat 09:00"),
    # an event told first, its reminder after
    (
        "my flight is tomorrow at 2pm, remind me 3 hours before to order a taxi",
        "order a taxi",
        "Sat 11:00",
    ),
    ("у меня завтра рейс в 14:00, напомни за 3 часа вызвать такси", "вызвать такси", "Sat 11:00"),
    (
        "стоматолог в понедельник в 10 утра, напомни за 2 часа выпить таблетку",
        "выпить таблетку",
        "Mon 08:00",
    ),
]


@pytest.mark.parametrize(("said", "words", "at"), SET_RIGHT)
async def test_set_at_the_right_time_with_the_right_words(tmp_path, said, words, at):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, said)
        tasks = await runtime.tasks.list_tasks(USER)
    assert [(t.description, wall(t.next_run, "Europe/Berlin")) for t in tasks] == [(words, at)]


@pytest.mark.parametrize(
    ("said", "answer", "words", "at"),
    [
        ("remind me to call Bob tomorrow at 3", "15:00", "call Bob", "Sat 15:00"),
        ("remind me to call Bob on monday at 3", "3pm", "call Bob", "Mon 15:00"),
        ("напомни позвонить врачу в пятницу в 3", "15:00", "позвонить врачу", "Fri 15:00"),
    ],
)
async def test_a_bare_hour_with_a_day_is_asked_and_the_answer_sets_it(
    tmp_path, said, answer, words, at
):
    async with running(tmp_path) as (runtime, _, person):
        asked = await runtime.answer(person, said)
        nothing = await runtime.tasks.list_tasks(USER)
        await runtime.answer(person, answer)
        tasks = await runtime.tasks.list_tasks(USER)
    assert nothing == [] and "15:00" in asked.text and "03:00" in asked.text
    assert [b.text for row in asked.buttons for b in row] == ["03:00", "15:00"]
    assert [(t.description, wall(t.next_run, "Europe/Berlin")) for t in tasks] == [(words, at)]


# ---- property: every day and time, in every order and both languages, east and west --------

DAYS_EN = {"today": 0, "tomorrow": 1, "the day after tomorrow": 2, "in 3 days": 3, "in 2 days": 2}
DAYS_RU = {"сегодня": 0, "завтра": 1, "послезавтра": 2, "через 3 дня": 3, "через 2 дня": 2}
ZONES = ["Europe/Berlin", "Asia/Tokyo", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Auckland"]


def _clock_en(hour: int, minute: int, style: int) -> str:
    if style == 0:
        return f"at {hour:02d}:{minute:02d}"
    twelve, half = hour % 12 or 12, "am" if hour < 12 else "pm"
    return f"at {twelve}:{minute:02d}{half}" if minute else f"at {twelve}{half}"


def _clock_ru(hour: int, minute: int, style: int) -> str:
    if style == 0 or not 5 <= hour <= 22:
        return f"в {hour:02d}:{minute:02d}"
    twelve = hour % 12 or 12
    part = "утра" if hour < 12 else ("дня" if hour < 17 else "вечера")
    return f"в {twelve}:{minute:02d} {part}" if minute else f"в {twelve} {part}"


@settings(max_examples=300, deadline=None)
@given(
    russian=st.booleans(),
    day=st.integers(0, 4),
    hour=st.integers(0, 23),
    minute=st.sampled_from([0, 5, 15, 30, 45]),
    style=st.integers(0, 1),
    order=st.integers(0, 2),
    zone=st.sampled_from(ZONES),
)
def test_an_acted_on_request_runs_when_an_independent_reckoning_says(
    russian, day, hour, minute, style, order, zone
):
    days = DAYS_RU if russian else DAYS_EN
    said_day, ahead = list(days.items())[day]
    clock = (_clock_ru if russian else _clock_en)(hour, minute, style)
    when = f"{said_day} {clock}"
    what = "купить хлеб" if russian else "buy bread"
    verb = "напомни" if russian else "remind me"
    to = "" if russian else "to "
    text = [f"{verb} {when} {to}{what}", f"{when} {verb} {to}{what}", f"{verb} {to}{what} {when}"][
        order
    ]
    local_now = NOW.astimezone(ZoneInfo(zone))
    wanted = datetime.combine(
        local_now.date() + timedelta(days=ahead),
        datetime.min.time().replace(hour=hour, minute=minute),
    )
    found = understand(text, zone, NOW, timedelta(minutes=1))
    if wanted <= local_now.replace(tzinfo=None):
        assume_nothing_set = found is None or _first(found, zone) is None
        assert assume_nothing_set, (text, found)  # a past time is refused, never moved
        return
    assert found is not None and found.intent == "remind", text
    assert found.slots["what"] == what, (text, found.slots)
    assert _first(found, zone) == wanted, text


def _first(found, zone: str) -> datetime | None:
    try:
        parsed = read_schedule(found.slots["when"], zone, NOW)
    except ScheduleError:
        return None
    return parsed.first_run.astimezone(ZoneInfo(zone)).replace(tzinfo=None)


@settings(max_examples=100, deadline=None)
@given(
    minutes=st.integers(1, 60 * 24 * 30),
    start=st.sampled_from(ZONES),
    end=st.sampled_from(ZONES),
    from_now=st.booleans(),
)
def test_a_zone_change_keeps_a_spans_instant_and_a_clock_times_wall(minutes, start, end, from_now):
    at = NOW + timedelta(minutes=minutes)
    once = moved(Once(at, start, from_now=from_now), end)
    if from_now:
        assert once.at == at
    else:
        before = at.astimezone(ZoneInfo(start)).replace(tzinfo=None)
        after = once.at.astimezone(ZoneInfo(end)).replace(tzinfo=None)
        assert after == before or (end != start and _in_a_gap(before, end))


def _in_a_gap(wall: datetime, zone: str) -> bool:
    """A wall time a zone skips (its spring gap) cannot be kept."""
    there = wall.replace(tzinfo=ZoneInfo(zone))
    return there.astimezone(UTC).astimezone(ZoneInfo(zone)).replace(tzinfo=None) != wall


async def test_an_edit_to_a_time_alone_keeps_the_tasks_day(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "/remind in 3 days at 9am call mom")
        [task] = await runtime.tasks.list_tasks(USER)
        await runtime.answer(person, f"/edit {task.id} 8:15")
        moved_task = await runtime.tasks.get(USER, task.id)
        asked = await runtime.answer(person, f"/edit {task.id} 3")
        kept = await runtime.tasks.get(USER, task.id)
        await runtime.answer(person, f"/edit {task.id} tomorrow 10am")
        tomorrow = await runtime.tasks.get(USER, task.id)
    assert wall(moved_task.next_run, "Europe/Berlin") == "Mon 08:15"
    assert "15:00" in asked.text and kept.next_run == moved_task.next_run
    assert wall(tomorrow.next_run, "Europe/Berlin") == "Sat 10:00"


@pytest.mark.parametrize(
    ("said", "when", "words"),
    [
        ("remind me tomorrow at 12:15am to buy bread", "tomorrow at 12:15am", "buy bread"),
        ("напомни 25.12 в 9:00 поздравить брата", "25.12 в 9:00", "поздравить брата"),
        ("remind me at 9 a.m. to stretch", "at 9 a.m", "stretch"),
    ],
)
def test_no_slot_ends_inside_a_time_the_text_writes_as_one(said, when, words):
    found = understand(said, "Europe/Berlin", NOW, timedelta(minutes=1))
    assert found is not None and (found.slots["when"], found.slots["what"]) == (when, words)


def test_a_weekday_said_with_a_date_must_be_the_dates():
    parsed = read_schedule("friday dec 4 at 8pm", "Europe/Berlin", NOW)
    assert wall(parsed.first_run, "Europe/Berlin") == "Fri 20:00"
    with pytest.raises(ScheduleError):
        read_schedule("thursday dec 4 at 8pm", "Europe/Berlin", NOW)  # Dec 4 is a Friday


@pytest.mark.parametrize(
    ("said", "words"),
    [
        ("напомни про день рождения мамы 12-го в 10 утра", "день рождения мамы"),  # a unit
        ("my timezone is Europe/London", None),
    ],
)
def test_a_unit_of_time_in_the_words_and_an_iana_name_are_read(said, words):
    found = understand(said, "Europe/Berlin", NOW, timedelta(minutes=1))
    assert found is not None
    assert found.slots.get("what") == words or found.slots.get("place") == "Europe/London"


def test_a_time_inside_the_words_is_a_misread_left_alone():
    assert understand("remind me tomorrow at 9 and at 10 to call", "Europe/Berlin", NOW,
                      timedelta(minutes=1)) is None  # fmt: skip


async def test_a_held_task_given_back_unrun_takes_its_next_run_from_the_moved_schedule(tmp_path):
    from assistant.scheduler.queue import _release

    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "/every day 9:00 stretch")
        [held] = await runtime.tasks.list_tasks(USER)  # Sat 09:00 Berlin
        async with runtime.db.write() as session:
            await session.execute(
                "UPDATE scheduled_tasks SET lease_owner = 'other' WHERE id = ?", (held.id,)
            )
        await runtime.answer(person, "/tz Asia/Tokyo")
    with sqlite3.connect(tmp_path / "assistant.db") as db:
        _release(db, [held])
        [(stamped, owner)] = db.execute("SELECT next_run, lease_owner FROM scheduled_tasks")
    assert owner is None
    assert wall(datetime.fromisoformat(stamped), "Asia/Tokyo") == "Sun 09:00"


@pytest.mark.parametrize(
    ("event", "at", "name"),
    [
        ("monday's 9am meeting", "Mon 09:00", "meeting"),
        ("dentist tmrw at 3pm", "Sat 15:00", "dentist"),
        ("у меня завтра рейс в 14:00", "Sat 14:00", "у меня рейс"),  # its day in the middle
        ("9am train tomorrow", "Sat 09:00", "train"),
    ],
)
def test_an_events_day_anywhere_in_its_words_is_its_day(event, at, name):
    from assistant.agent.front.before import event_when

    found = event_when(event, lambda w: read_schedule(w, "Europe/Berlin", NOW))
    assert found is not None and (wall(found[0], "Europe/Berlin"), found[1]) == (at, name)


def test_a_number_in_an_events_name_is_no_time():
    from assistant.agent.front.before import event_when

    found = event_when("room 5 meeting at 3pm", lambda w: read_schedule(w, "Europe/Berlin", NOW))
    assert found is not None and (wall(found[0], "Europe/Berlin"), found[1]) == (
        "Fri 15:00",
        "room 5 meeting",
    )
