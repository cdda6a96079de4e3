"""Questions that wait for their answer: the next message is read as the answer first, what
is not an answer is a new message, and the question survives a restart."""

from __future__ import annotations

import sqlite3

import pytest
from test_console import Terminal, setup_for

from assistant.app.serve import chat


def reminders(folder) -> list[tuple[str, str]]:
    with sqlite3.connect(folder / "assistant.db") as db:
        rows = db.execute("SELECT description, next_run FROM scheduled_tasks ORDER BY next_run")
        return [tuple(r) for r in rows]


@pytest.fixture(autouse=True)
def no_model(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


async def talk(tmp_path, clock, *lines: str) -> str:
    terminal = Terminal()
    terminal.type(*lines, "/quit")
    await chat(setup_for(tmp_path), clock, terminal.console)
    return terminal.text()


@pytest.mark.parametrize(
    ("request_", "answer", "what"),
    [
        ("remind me tomorrow to call mom", "at 7:30", "call mom"),
        ("remind me tomorrow to call mom", "7:30", "call mom"),
        ("remind me tomorrow to call mom", "tomorrow 7:30", "call mom"),
        ("напомни завтра позвонить маме", "в 7:30", "позвонить маме"),
    ],
)
async def test_at_what_time_is_answered_by_the_time(tmp_path, clock, request_, answer, what):
    said = await talk(tmp_path, clock, request_, answer)
    (task,) = reminders(tmp_path)
    assert task[0] == what
    assert task[1].startswith("2026-03-15T06:30")  # 07:30 in Berlin, the day after the clock's
    assert "language model" not in said.casefold() and "языков" not in said


async def test_a_reminder_with_no_words_asks_for_them(tmp_path, clock):
    said = await talk(tmp_path, clock, "remind me in 10 minutes", "stretch")
    assert "What should I remind you of (in 10 minutes)?" in said
    assert [t[0] for t in reminders(tmp_path)] == ["stretch"]


async def test_a_russian_reminder_with_no_words_asks_for_them(tmp_path, clock):
    said = await talk(tmp_path, clock, "напомни через 10 минут", "размяться")
    assert "О чём напомнить (через 10 минут)?" in said
    assert [t[0] for t in reminders(tmp_path)] == ["размяться"]


async def test_an_alarm_is_called_one(tmp_path, clock):
    await talk(tmp_path, clock, "set an alarm for 7am", "поставь будильник на 8 утра")
    assert [t[0] for t in reminders(tmp_path)] == ["⏰ alarm", "⏰ будильник"]


async def test_a_new_message_is_not_an_answer_and_the_question_stays(tmp_path, clock):
    said = await talk(
        tmp_path, clock, "remind me tomorrow to call mom", "what time is it?", "/notes", "9:15"
    )
    assert "It is 10:26" in said and "No notes yet" in said
    assert [t[0] for t in reminders(tmp_path)] == ["call mom"]
    assert reminders(tmp_path)[0][1].startswith("2026-03-15T08:15")


async def test_the_question_survives_a_restart(tmp_path, clock):
    await talk(tmp_path, clock, "remind me in 2 hours")
    assert reminders(tmp_path) == []
    said = await talk(tmp_path, clock, "water the plants")  # a new process, the same chat
    assert [t[0] for t in reminders(tmp_path)] == ["water the plants"]
    assert "Reminder" in said


async def test_an_answer_after_the_question_expired_is_a_new_message(tmp_path, clock):
    from datetime import timedelta

    await talk(tmp_path, clock, "remind me tomorrow to call mom")
    clock.advance(timedelta(minutes=31))
    said = await talk(tmp_path, clock, "8:00")
    assert reminders(tmp_path) == [] and "needs a language model" in said.casefold()


async def test_an_ambiguous_hour_is_asked_again(tmp_path, clock):
    said = await talk(tmp_path, clock, "remind me tomorrow to call mom", "at 3", "3pm")
    assert "Is 3 in the night or the day? Say 03:00 or 15:00." in said
    assert reminders(tmp_path)[0][1].startswith("2026-03-15T14:00")


async def test_in_telegram_the_answer_is_typed_or_pressed(tmp_path, clock, monkeypatch):
    from test_telegram import ADA, eventually, served

    async with served(tmp_path, clock, monkeypatch) as running:
        telegram = running.telegram
        telegram.message(ADA, "напомни завтра позвонить маме")
        await eventually(lambda: any("Во сколько" in t for t in telegram.texts()))
        telegram.message(ADA, "в 7:30")
        await eventually(
            lambda: any("позвонить маме" in t and "07:30" in t for t in telegram.texts())
        )
        telegram.message(ADA, "remind me in an hour")
        await eventually(lambda: any("What should I remind you of" in t for t in telegram.texts()))
        telegram.message(ADA, "to stretch")
        await eventually(lambda: len(reminders(tmp_path)) == 2)
    assert sorted(t[0] for t in reminders(tmp_path)) == ["stretch", "позвонить маме"]


async def test_slash_remind_goes_through_the_tool_with_its_audit_row(tmp_path, clock):
    said = await talk(tmp_path, clock, "/remind in 2h water the plants", "/every 30m drink water")
    with sqlite3.connect(tmp_path / "assistant.db") as db:
        rows = db.execute("SELECT tool, outcome, call_id FROM audit ORDER BY id").fetchall()
    assert [r[:2] for r in rows] == [("add_reminder", "ok"), ("add_recurring_task", "ok")]
    assert all(r[2].startswith("local-") for r in rows)
    assert "water the plants — once on Sat, Mar 14, 12:26 (Europe/Berlin)." in said
    assert "drink water — every 30 minutes; next" in said


async def test_buttons_fit_the_task_and_the_list_pages(tmp_path, clock):
    lines = [f"/every day at {h}:00 task number {h}" for h in range(8, 19)]
    said = await talk(tmp_path, clock, "/remind in 1h once only", *lines, "/tasks")
    once = said.split("once only")[1].split("\n✅ Reminder ")[0]
    assert "Cancel" in once and "Pause" not in once and "Run now" not in once
    assert said.count("/press task:open:") == 8 and "/press tasks:page:1" in said


async def test_a_forwarded_batch_of_a_hundred_is_handled_in_order(tmp_path, clock, monkeypatch):
    from test_telegram import ADA, BOB, eventually, served

    from assistant.channels.telegram.handlers import BUSY

    extra = {"telegram_extra": {"allowed_user_ids": [ADA, BOB]}}
    async with served(tmp_path, clock, monkeypatch, **extra) as running:
        telegram = running.telegram
        for i in range(100):
            telegram.message(ADA, f"note that batch item {i}")
        telegram.message(BOB, "show my notes")  # another chat is not held up behind the batch
        await eventually(lambda: sum(t.startswith("Saved note") for t in telegram.texts()) == 100)
        sent = telegram.sent()
        bob = next(i for i, p in enumerate(sent) if int(p["chat_id"]) == BOB)
        last = max(i for i, p in enumerate(sent) if str(p["text"]).startswith("Saved note"))
        assert bob < last
    with sqlite3.connect(tmp_path / "assistant.db") as db:
        notes = [r[0] for r in db.execute("SELECT content FROM notes ORDER BY id")]
    assert notes == [f"batch item {i}" for i in range(100)]
    assert BUSY not in telegram.texts()


@pytest.mark.parametrize(
    "fact",
    ["every morning at 7 the neighbours dog barks", "по средам в 18:00 у меня бассейн"],
)
async def test_a_fact_that_begins_with_a_schedule_makes_no_reminder(tmp_path, clock, fact):
    said = await talk(tmp_path, clock, fact)
    assert reminders(tmp_path) == [] and "Reminder " not in said


async def test_a_request_verb_after_the_schedule_stays_out_of_the_words(tmp_path, clock):
    await talk(tmp_path, clock, "каждую пятницу в 17:00 напоминай сдать отчёт")
    assert [t[0] for t in reminders(tmp_path)] == ["сдать отчёт"]


async def test_a_one_shot_not_yet_due_is_put_off_an_hour(tmp_path, clock):
    said = await talk(tmp_path, clock, "/remind tomorrow 9am call mom")
    task_id = said.split("Reminder ")[1].split(":")[0]
    assert f"/press snooze:later:{task_id}" in said
    later = await talk(tmp_path, clock, f"/press snooze:later:{task_id}")
    assert reminders(tmp_path)[0][1].startswith("2026-03-15T09:00")  # 10:00 in Berlin
    assert f"😴 Snoozed: {task_id}: call mom — once on Sun, Mar 15, 10:00 (Europe/Berlin)." in later
