"""Never a wrong time: a span from now keeps its instant through a zone change, a clock time
its wall clock, a task the scheduler holds moves too, and old tasks are marked by their text."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from conftest import fetch
from test_local_first import USER, running

from assistant.db import open_database
from assistant.migrations import MIGRATIONS
from assistant.scheduler.queue import _restored
from assistant.schedules.moving import moved
from assistant.schedules.schedule import Once, from_json, to_json


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


async def test_old_one_shots_are_marked_by_the_text_they_were_given_as(tmp_path):
    path = tmp_path / "old.db"
    db = await open_database(path)
    await db.close()
    at = datetime(2026, 11, 27, 11, 0, tzinfo=UTC)
    texts = ["in 3 hours", "через час", "90m", "2 hours from now", "tomorrow 9am",
             "in 3 days at 7pm", "in the evening", "в 18:00"]  # fmt: skip
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
        for n, text in enumerate(texts):
            raw.execute(
                "INSERT INTO scheduled_tasks (id, user_id, chat_id, task_type, description,"
                " schedule_type, schedule_data, schedule_text, timezone, execution_data,"
                " created_at, next_run, due_at) VALUES (?, 1, 1, 'reminder', 'x', 'once', ?, ?,"
                " 'UTC', '{}', ?, ?, ?)",
                (f"t{n}", to_json(Once(at, "UTC")), text, *[at.isoformat()] * 3),
            )
    db = await open_database(path)
    rows = await fetch(db, "SELECT schedule_text, schedule_data FROM scheduled_tasks ORDER BY id")
    await db.close()
    marked = {text: from_json(data).from_now for text, data in rows}  # type: ignore[union-attr]
    assert [t for t in texts if marked[t]] == ["in 3 hours", "через час", "90m", "2 hours from now"]
