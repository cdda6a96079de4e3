"""Nothing lost on a restart: messages taken from Telegram are kept before they are
acknowledged, handled in order after a restart, told about when too old or cut, never twice."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import timedelta

from fakehttp import Reply
from llm_fixtures import chat_reply
from test_local_first import NOW
from test_telegram import ADA, eventually, last_words, served

from assistant.channels.telegram.backlog import told
from assistant.clock import FakeClock
from assistant.db import open_database
from assistant.memory.inbox import Inbox, Received


def states(tmp_path) -> list[tuple]:
    with sqlite3.connect(tmp_path / "assistant.db") as raw:
        return raw.execute("SELECT update_id, state FROM inbox ORDER BY update_id").fetchall()


async def test_queued_messages_are_answered_after_a_restart_in_order_and_a_cut_one_told(
    tmp_path, clock, monkeypatch
):
    never = asyncio.Event()
    options = {"scheduler": {"shutdown_grace_seconds": 0}}
    async with served(tmp_path, clock, monkeypatch, **options) as bot:
        bot.model.script(Reply(hold=never))  # the first turn waits on the model for good
        bot.telegram.message(ADA, "tell me a long story")
        await eventually(lambda: len(bot.model.requests) == 1)
        for n in range(1, 6):
            bot.telegram.message(ADA, f"question number {n}")
        await eventually(lambda: len(states(tmp_path)) == 6)
        bot.stop.set()
        await bot.task
    never.set()
    left = [state for _, state in states(tmp_path)]
    assert left == ["started", "taken", "taken", "taken", "taken", "taken"]

    async with served(tmp_path, clock, monkeypatch) as bot:
        bot.model.script(*(chat_reply(f"answer {n}") for n in range(1, 6)))
        await eventually(lambda: sum(t.startswith("answer ") for t in bot.telegram.texts()) == 5)
        asked = [last_words(r) for r in bot.model.requests]
        texts = bot.telegram.texts()
    assert asked == [f"question number {n}" for n in range(1, 6)]  # in order, once each
    assert sum("did not answer your message" in t for t in texts) == 1  # the cut one, told
    assert {state for _, state in states(tmp_path)} == {"answered"}


async def test_messages_older_than_the_limit_are_told_in_one_line_not_handled(tmp_path):
    clock = FakeClock(NOW)
    db = await open_database(tmp_path / "assistant.db")
    inbox = Inbox(db, clock)
    await inbox.keep([Received(n, ADA, ADA, "{}") for n in (1, 2, 3)])
    clock.advance(timedelta(hours=7))
    await inbox.keep([Received(4, ADA, ADA, '{"update_id": 4}')])
    backlog = await inbox.on_start(timedelta(hours=6))
    again = await inbox.on_start(timedelta(hours=6))
    await db.close()
    assert [r.update_id for r in backlog.missed] == [1, 2, 3]
    assert [r.update_id for r in backlog.replay] == [4]
    assert [r.update_id for r in again.replay] == [4] and again.missed == []  # still not begun
    line = told(backlog.missed, "en", "Europe/Berlin")
    assert line == (
        "I was restarted and did not answer 3 messages from 09:00; send again what still matters."
    )


async def test_a_message_is_taken_once_whichever_way_it_comes_again(tmp_path):
    clock = FakeClock(NOW)
    db = await open_database(tmp_path / "assistant.db")
    inbox = Inbox(db, clock)
    message = Received(7, ADA, ADA, '{"update_id": 7}')
    await inbox.keep([message])
    first, second = await inbox.take(message), await inbox.take(message)
    await inbox.keep([message])  # offered again by the Bot API: kept as it was
    third = await inbox.take(message)
    await inbox.mark(7, "answered")
    webhook = await inbox.take(Received(8, ADA, ADA, "{}"))  # never kept before: taken now
    await db.close()
    assert (first, second, third, webhook) == (True, False, False, True)


def test_the_updates_a_poll_brings_are_read_for_the_inbox():
    from assistant.channels.telegram.received import from_answer

    payload = b'{"ok": true, "result": [{"update_id": 5, "message": {"message_id": 1,'
    payload += b' "date": 0, "chat": {"id": 42, "type": "private"}, "from": {"id": 42,'
    payload += b' "is_bot": false, "first_name": "Ada"}, "text": "hi"}}]}'
    [received] = from_answer(payload)
    assert (received.update_id, received.chat_id, received.user_id) == (5, 42, 42)
    assert from_answer(b"not json") == [] and from_answer(b'{"ok": false}') == []


async def test_a_poll_whose_updates_cannot_be_kept_still_answers_them(monkeypatch, caplog):
    """A database that cannot be written (a full disk) keeps nothing; the updates are still
    answered (the person hears why) rather than offered again and again, unanswered."""
    import ssl

    from telegram.request import HTTPXRequest

    from assistant.channels.telegram.arrivals import PollRequest
    from assistant.errors import StorageError

    answer = b'{"ok": true, "result": [{"update_id": 9, "message": {}}]}'

    async def answered(self, *args, **kwargs):
        return 200, answer

    class Full:
        async def keep(self, received):
            raise StorageError("the disk is full")

    monkeypatch.setattr(HTTPXRequest, "do_request", answered)
    poll = PollRequest(ssl.create_default_context())
    poll.inbox = Full()  # type: ignore[assignment]
    assert await poll.do_request("https://example.invalid/getUpdates", "POST") == (200, answer)
    assert "without being kept" in caplog.text


async def test_an_update_no_handler_takes_is_done_with_not_told_about_later(
    tmp_path, clock, monkeypatch
):
    async with served(tmp_path, clock, monkeypatch) as bot:
        bot.telegram._push({"edited_message": {
            "message_id": 1, "date": 1_700_000_000, "edit_date": 1_700_000_100, "text": "typo",
            "chat": {"id": ADA, "type": "private"},
            "from": {"id": ADA, "is_bot": False, "first_name": "Ada"},
        }})  # fmt: skip
        bot.telegram.message(ADA, "/tasks")
        await eventually(
            lambda: len(states(tmp_path)) == 2 and all(s == "answered" for _, s in states(tmp_path))
        )
    clock.advance(timedelta(hours=7))
    async with served(tmp_path, clock, monkeypatch) as bot:
        bot.telegram.message(ADA, "/notes")  # answered after what the start told, if anything
        await eventually(lambda: any("note" in t for t in bot.telegram.texts()))
        said = bot.telegram.texts()
    assert not any("did not answer" in t for t in said)


async def test_a_strangers_old_message_is_never_told_about(tmp_path, clock, monkeypatch):
    db = await open_database(tmp_path / "assistant.db")
    await Inbox(db, clock).keep([Received(10**9, 999, 999, "{}")])  # stored, then killed
    await db.close()
    clock.advance(timedelta(hours=7))
    async with served(tmp_path, clock, monkeypatch) as bot:
        bot.telegram.message(ADA, "/tasks")
        await eventually(lambda: any("tasks" in t for t in bot.telegram.texts()))
        calls = [c.params.get("chat_id") for c in bot.telegram.calls if c.method == "sendMessage"]
    assert 999 not in calls and str(999) not in map(str, calls)
