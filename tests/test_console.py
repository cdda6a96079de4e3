"""The terminal channel end to end: commands, reminders printed when they fire, approvals y/n."""

from __future__ import annotations

import asyncio
import io
import os
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from fakehttp import Reply, fake_server
from llm_fixtures import call, chat_reply
from tasks_fixtures import until

from assistant.app import Setup
from assistant.app.runtime import compose
from assistant.app.serve import chat
from assistant.channels.console import Console, Style
from assistant.channels.stdin import stdin_lines
from assistant.config import parse_config


async def with_a_task(tmp_path, clock, command: str):
    """A running chat in which ``command`` made a task: the terminal, the session, the id."""
    terminal = Terminal()
    session = asyncio.ensure_future(chat(setup_for(tmp_path), clock, terminal.console))
    terminal.type(command)
    await until(lambda: "Reminder " in terminal.text())
    return terminal, session, terminal.text().split("Reminder ")[1].split(":")[0]


def setup_for(tmp_path, **sections) -> Setup:
    raw = {"assistant": {"data_dir": str(tmp_path), "timezone": "Europe/Berlin"}, **sections}
    return Setup(parse_config(raw), "test", tmp_path)


class Terminal:
    """A console whose output the test reads and whose input it types."""

    def __init__(self, exports: Path | None = None) -> None:
        self.out = io.StringIO()
        self.console = Console(self.out, user_id=5, exports=exports)

    def type(self, *lines: str) -> None:
        for line in lines:
            self.console.feed(line + "\n")

    def text(self) -> str:
        return self.out.getvalue()


async def test_commands_work_without_a_model_and_plain_words_say_one_is_needed(
    tmp_path, clock, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal = Terminal()
    terminal.type("/tz Asia/Tokyo", "/note buy milk", "/notes", "hello there", "/quit")
    await chat(setup_for(tmp_path), clock, terminal.console)
    text = terminal.text()
    assert "Timezone set to Asia/Tokyo; it is 18:26 there now." in text
    assert "Saved note 1." in text and "1. buy milk" in text
    assert "That needs a language model, and none is set up here." in text  # 5 is no owner
    assert "OPENAI_API_KEY" not in text and "Ollama" not in text


async def test_export_writes_the_files_and_says_where(tmp_path, clock, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal = Terminal(exports=tmp_path / "exports")
    terminal.type("/note the locker code is 4312", "/export", "/quit")
    await chat(setup_for(tmp_path), clock, terminal.console)
    saved = [
        line.split("saved ", 1)[1] for line in terminal.text().splitlines() if "saved " in line
    ]
    assert saved, terminal.text()
    paths = [Path(p) for p in saved]
    assert all(
        p.parent.parent == tmp_path / "exports" and p.stat().st_mode & 0o077 == 0 for p in paths
    )
    assert any(b"the locker code is 4312" in p.read_bytes() for p in paths)


async def test_a_reminder_prints_when_it_fires_and_can_be_snoozed(tmp_path, clock, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal, session, task_id = await with_a_task(tmp_path, clock, "/remind in 2 minutes call mom")
    clock.advance(timedelta(minutes=2))
    await until(lambda: "🔔 ⏰ call mom" in terminal.text())
    assert f"/press snooze:10m:{task_id}" in terminal.text()
    await until(lambda: settled(tmp_path, task_id))  # the run is written back
    terminal.type(f"/press snooze:10m:{task_id}", "/tasks", "/quit")
    await session
    text = terminal.text()
    assert "😴 Snoozed" in text and f"{task_id}: call mom — once on" in text.split("/tasks")[-1]


def settled(folder, task_id: str) -> bool:
    with sqlite3.connect(folder / "assistant.db") as db:
        row = db.execute("SELECT lease_owner FROM scheduled_tasks WHERE id = ?", (task_id,))
        return row.fetchone() == (None,)


async def lights_off(tmp_path, clock, monkeypatch, *typed: str):
    """A model that asks to POST to a home server, and what the terminal showed."""
    monkeypatch.setenv("TEST_KEY", "k")
    async with fake_server() as llm, fake_server() as home:
        home.script(Reply(raw=b"ok", headers={"content-type": "text/plain"}))
        target = f"http://localhost:{home.url.rsplit(':', 1)[1]}/lights/off"
        llm.script(chat_reply(None, (call("c1", "api_call", {"url": target, "method": "POST"}),)))
        setup = setup_for(
            tmp_path,
            llm={"base_url": f"{llm.url}/v1", "api_key_env": "TEST_KEY", "stream": False},
            net={"allow_hosts": ["localhost"]},
        )
        terminal = Terminal()
        terminal.type("turn off the lights", *typed, "/quit")
        await chat(setup, clock, terminal.console)
    return terminal.text(), target, home, llm


async def test_an_approval_is_asked_and_answered_at_the_prompt(tmp_path, clock, monkeypatch):
    text, target, home, llm = await lights_off(tmp_path, clock, monkeypatch, "y")
    assert f"POST {target}" in text and "Approve? [y/n]" in text
    assert "I need your approval to run api_call" in text  # the turn ended with the prompt
    assert text.count("Approved and done: api_call") == 1  # said once
    assert home.requests[0].method == "POST" and len(llm.requests) == 1


@pytest.mark.parametrize("answer", ["n", "no", "нет"])
async def test_a_no_refuses(tmp_path, clock, monkeypatch, answer):
    monkeypatch.setenv("TEST_KEY", "k")
    async with fake_server() as llm, fake_server() as home:
        target = f"http://localhost:{home.url.rsplit(':', 1)[1]}/x"
        llm.script(
            chat_reply(None, (call("c1", "api_call", {"url": target, "method": "DELETE"}),)),
            chat_reply("Not done."),
        )
        setup = setup_for(
            tmp_path,
            llm={"base_url": f"{llm.url}/v1", "api_key_env": "TEST_KEY", "stream": False},
            net={"allow_hosts": ["localhost"]},
        )
        terminal = Terminal()
        terminal.type("delete it", answer, "/quit")
        await chat(setup, clock, terminal.console)
    text = terminal.text()
    assert home.requests == [] and text.count("the user declined it") == 1
    assert "still waits" not in text


async def test_words_typed_while_an_approval_waits_are_a_new_message_not_a_no(
    tmp_path, clock, monkeypatch
):
    typed = ("/note the lights are on a timer", "yes")
    text, _, home, _ = await lights_off(tmp_path, clock, monkeypatch, *typed)
    assert "Saved note 1." in text  # the words were handled, not taken as "no"
    assert "(the approval above still waits: y or n)" in text
    assert "Declined" not in text and "Approved and done: api_call" in text
    assert home.requests[0].method == "POST"


async def test_a_second_assistant_on_the_same_database_is_refused(tmp_path, clock, monkeypatch):
    from assistant.errors import StorageError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    first = Terminal()
    running = asyncio.ensure_future(chat(setup_for(tmp_path), clock, first.console))
    await until(lambda: "/help for commands" in first.text())
    second = Terminal()
    with pytest.raises(StorageError, match="another assistant"):
        await chat(setup_for(tmp_path), clock, second.console)
    first.type("/quit")
    await running


async def test_a_full_disk_is_one_line_nothing_is_saved_and_the_chat_goes_on(
    tmp_path, clock, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal = Terminal()
    terminal.type("/note the first note", "/note " + "x" * 9_000, "/notes", "/quit")
    async with compose(setup_for(tmp_path), clock, terminal.console, terminal.console) as runtime:
        async with runtime.db.read() as session:  # the disk fills up after the first note
            (pages,) = await session.fetchone("PRAGMA page_count") or (0,)
            await session.execute(f"PRAGMA max_page_count = {pages + 2}")
        await terminal.console.run(runtime)
    text = terminal.text()
    assert "Saved note 1." in text and "storage is full; nothing was saved" in text
    assert "1. the first note" in text and "2." not in text.split("storage is full")[1]


async def test_bytes_that_are_not_utf8_on_standard_input_do_not_end_the_chat(
    tmp_path, clock, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal = Terminal()
    stream = io.BytesIO(b"/note caf\xe9 \xff\xfe\n/notes\n/quit\n")
    async with asyncio.TaskGroup() as group:
        group.create_task(terminal.console.read_lines(stdin_lines(stream)))
        await chat(setup_for(tmp_path), clock, terminal.console)
    assert "1. caf\ufffd \ufffd\ufffd" in terminal.text()


async def test_standard_input_from_a_pipe_is_read_line_by_line_without_a_thread():
    read, write = os.pipe()

    def writer() -> None:
        with os.fdopen(write, "wb") as pipe:
            pipe.write(b"first\n" + b"x" * 3_000_000 + b"\nlast")

    with os.fdopen(read, "rb") as stream:
        writing = asyncio.ensure_future(asyncio.to_thread(writer))
        lines = [line async for line in stdin_lines(stream)]
        await writing
    assert lines[0] == "first\n" and lines[-1] == "last"
    assert "".join(lines[1:-1]) == "x" * 3_000_000 + "\n"


async def test_every_always_repeats_and_says_so_when_the_text_is_a_one_shot(
    tmp_path, clock, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal = Terminal()
    terminal.type("/every 30m drink water", "/every tomorrow 9am call mom", "/tasks", "/quit")
    await chat(setup_for(tmp_path), clock, terminal.console)
    text = terminal.text()
    assert "drink water — every 30 minutes" in text
    assert "happens once, and /every repeats" in text
    listed = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(listed) == 1 and "drink water" in listed[0]  # nothing stored for the refusal


async def test_a_task_is_changed_by_edit_keeping_its_id(tmp_path, clock, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal, session, task_id = await with_a_task(tmp_path, clock, "/remind in 1h call mom")
    assert f"/press task:edit:{task_id}" in terminal.text()  # the ✏️ Edit button
    terminal.type(
        f"/edit {task_id} tomorrow 9am",
        f"/edit {task_id} call dad",
        f"/edit {task_id} in 2h call grandma",
        "/edit nosuch in 5m",
        f"/press task:edit:{task_id}",
        "/tasks",
        "/quit",
    )
    await session
    text = terminal.text()
    assert f"✏️ Changed {task_id}: call mom — once on Sun, Mar 15, 09:00" in text
    assert "; it was due Sat, Mar 14, 11:26" in text
    assert f"✏️ Changed {task_id}: call dad — once on Sun, Mar 15, 09:00" in text
    assert f"✏️ Changed {task_id}: call grandma — once on Sat, Mar 14, 12:26" in text
    assert "no task nosuch" in text.lower() or "nosuch" in text
    assert f"Send /edit {task_id} and the new time" in text
    listed = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(listed) == 1 and f"{task_id}: call grandma" in listed[0]


def talking(tmp_path, llm) -> Setup:
    return setup_for(
        tmp_path, llm={"base_url": f"{llm.url}/v1", "api_key_env": "TEST_KEY", "stream": False}
    )


async def writing(tmp_path, clock, llm, answer: str):
    """A chat whose model is writing ``answer`` and holds it until released."""
    release = asyncio.Event()
    llm.script(Reply(json=chat_reply(answer).json, hold=release))
    terminal = Terminal()
    session = asyncio.ensure_future(chat(talking(tmp_path, llm), clock, terminal.console))
    terminal.type("tell me a story")
    await until(lambda: len(llm.requests) == 1)  # the model is writing
    return terminal, session, release


async def test_stop_is_read_while_an_answer_is_being_written(tmp_path, clock, monkeypatch):
    monkeypatch.setenv("TEST_KEY", "k")
    async with fake_server() as llm:
        terminal, session, release = await writing(tmp_path, clock, llm, "a very long story")
        terminal.type("/stop")
        await until(lambda: "Stopped." in terminal.text())
        release.set()
        terminal.type("/notes", "/quit")
        await session
    assert "a very long story" not in terminal.text() and "no notes" in terminal.text().lower()


async def test_ctrl_c_stops_the_answer_and_a_second_within_two_seconds_leaves(
    tmp_path, clock, monkeypatch
):
    monkeypatch.setenv("TEST_KEY", "k")
    async with fake_server() as llm:
        terminal, session, release = await writing(tmp_path, clock, llm, "never shown")
        terminal.console.interrupt(now=100.0)
        await until(lambda: "Stopped." in terminal.text())
        assert "Ctrl-C again within 2 s leaves" in terminal.text()
        terminal.console.interrupt(now=103.0)  # too late to leave: only the hint again
        terminal.type("/note still here")
        await until(lambda: "Saved note 1." in terminal.text())
        terminal.type("another story")  # queued behind nothing: goes to the model
        terminal.console.interrupt(now=104.0)  # the second within 2 s: leave at once
        await session
        release.set()
    assert "never shown" not in terminal.text()


async def test_the_buttons_under_a_notice_are_pressed_by_number(tmp_path, clock, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal, session, task_id = await with_a_task(tmp_path, clock, "/remind in 2 minutes call mom")
    clock.advance(timedelta(minutes=2))
    await until(lambda: "🔔 ⏰ call mom" in terminal.text())
    assert "  1. " in terminal.text() and f"(/press snooze:10m:{task_id})" in terminal.text()
    await until(lambda: settled(tmp_path, task_id))
    terminal.type("1", "/quit")
    await session
    assert "😴 Snoozed" in terminal.text()


def test_colors_only_on_a_terminal_that_wants_them(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert not Style.for_output(io.StringIO()).on
    assert Style.for_output(Tty()).dim("x") == "\x1b[2mx\x1b[0m"
    monkeypatch.setenv("NO_COLOR", "1")
    assert Style.for_output(Tty()).dim("x") == "x"


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("/remind tomorrow at 3 dentist", "Is 3 in the night or the day? Say 03:00 or 15:00."),
        ("/remind in 10 minutes", "What should I remind you of (in 10 minutes)?"),
        ("/remind завтра в 3 зубной", "3 — ночью или днём? Скажите 03:00 или 15:00."),
        ("/remind через 10 минут", "О чём напомнить (через 10 минут)? Напишите время и текст"),
        ("/remind tomorrow at 3", "Is 3 in the night or the day? Say 03:00 or 15:00."),
        ("/remind 2020-01-01 10:00 старое", "Это время уже прошло"),
        ("/remind размяться", "Напишите время и текст, например: /remind через 10 минут"),
    ],
)
async def test_remind_says_what_is_wrong_in_the_users_words(
    tmp_path, clock, monkeypatch, command, said
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal = Terminal()
    terminal.type(command, "/tasks", "/quit")
    await chat(setup_for(tmp_path), clock, terminal.console)
    assert said in terminal.text(), terminal.text().splitlines()[2:-1]
    assert "You have no tasks" in terminal.text()  # nothing was stored
