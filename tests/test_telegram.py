"""The bot end to end: real python-telegram-bot and openai clients against fakes on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta

import pytest
from fake_telegram import TOKEN, FakeTelegram
from fakehttp import FakeServer, Reply, fake_server
from llm_fixtures import call, chat_reply

from assistant.app import Setup
from assistant.app.serve import serve_telegram
from assistant.channels.telegram.handlers import BUSY
from assistant.config import parse_config
from assistant.db import open_database
from assistant.schedules.oneshot import parse_once
from assistant.tasks import NewTask, Owner, TaskStore

ADA = 42
QUEUE_LIMIT = 8  # a small queue, to reach its end
BOB = 77


async def eventually(condition, seconds: float = 10.0) -> None:
    """Wait for the bot's network round trips (not for a timer) until ``condition`` holds."""
    async with asyncio.timeout(seconds):
        while not condition():  # noqa: ASYNC110 (fed by many round trips; no single event)
            await asyncio.sleep(0.005)


@dataclass
class Served:
    """A bot serving in the background, with the fakes it talks to and its stop switch."""

    telegram: FakeTelegram
    model: FakeServer
    stop: asyncio.Event
    task: asyncio.Future[None]


@asynccontextmanager
async def served(
    tmp_path,
    clock,
    monkeypatch,
    net=None,
    telegram_extra=None,
    scheduler=None,
    speech=None,
    images=None,
    budgets=None,
    **llm,
):
    monkeypatch.setenv("TEST_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("TEST_LLM_KEY", "k")
    async with fake_server() as telegram_server, fake_server() as model:
        telegram = FakeTelegram(telegram_server)
        telegram_server.default = telegram.handle
        raw = {
            "assistant": {"data_dir": str(tmp_path), "timezone": "Europe/Berlin"},
            "telegram": {
                "token_env": "TEST_BOT_TOKEN",
                "base_url": telegram.base_url,
                "allowed_user_ids": [ADA],
                **(telegram_extra or {}),
            },
            "llm": {
                "base_url": f"{model.url}/v1",
                "api_key_env": "TEST_LLM_KEY",
                "stream": False,
                **llm,
            },
            "net": net or {},
            "scheduler": scheduler or {},
            "speech": speech or {},
            "budgets": budgets or {},
            "images": images or {},
        }
        stop = asyncio.Event()
        serving = asyncio.ensure_future(
            serve_telegram(Setup(parse_config(raw), "test", tmp_path), clock, stop)
        )
        await eventually(lambda: any(c.method == "setMyCommands" for c in telegram.calls))
        try:
            yield Served(telegram, model, stop, serving)
        finally:
            stop.set()
            await serving


@asynccontextmanager
async def bot(tmp_path, clock, monkeypatch, **options):
    async with served(tmp_path, clock, monkeypatch, **options) as running:
        yield running.telegram, running.model


def buttons_of(params: dict) -> list[str]:
    markup = params.get("reply_markup") or {}
    if isinstance(markup, str):
        markup = json.loads(markup)
    return [b["callback_data"] for row in markup.get("inline_keyboard", []) for b in row]


async def test_a_reminder_set_in_plain_words_arrives_with_its_buttons_and_snoozes(
    tmp_path, clock, monkeypatch
):
    async with bot(tmp_path, clock, monkeypatch) as (telegram, model):
        telegram.message(ADA, "remind me in 2 minutes to call mom")  # understood locally
        await eventually(lambda: any("Reminder " in t for t in telegram.texts()))
        made = next(p for p in telegram.sent() if str(p["text"]).startswith("✅ Reminder"))
        assert "call mom — once on" in str(made["text"]) and model.requests == []
        assert buttons_of(made)[0].startswith("task:cancel:")  # a misread is one press away
        commands = next(c for c in telegram.calls if c.method == "setMyCommands").params["commands"]
        assert {"tasks", "cancel", "remind", "tz", "stop"} <= {c["command"] for c in commands}
        clock.advance(timedelta(minutes=2))
        await eventually(lambda: any("⏰ call mom" in t for t in telegram.texts()))
        fired = next(p for p in telegram.sent() if "⏰ call mom" in str(p["text"]))
        task_id = str(fired["text"]).rsplit("task ", 1)[1].strip()
        assert buttons_of(fired) == [
            f"snooze:10m:{task_id}",
            f"snooze:1h:{task_id}",
            f"snooze:tomorrow:{task_id}",
            f"done:{task_id}",
        ]
        telegram.press(ADA, f"snooze:10m:{task_id}")
        await eventually(lambda: any("Snoozed" in t for t in telegram.texts()))
        assert any(c.method == "answerCallbackQuery" for c in telegram.calls)


async def test_tasks_lists_with_buttons_and_cancel_works(tmp_path, clock, monkeypatch):
    async with bot(tmp_path, clock, monkeypatch) as (telegram, _):
        telegram.message(ADA, "/remind in 1h water the plants")
        await eventually(lambda: any("water the plants" in t for t in telegram.texts()))
        telegram.message(ADA, "/tasks")
        await eventually(lambda: any(t.startswith("1 task:\n• ") for t in telegram.texts()))
        listing = next(p for p in telegram.sent() if str(p["text"]).startswith("1 task:"))
        (opening,) = buttons_of(listing)  # one button a task: it opens the task's own
        telegram.press(ADA, opening)
        await eventually(lambda: sum("water the plants" in t for t in telegram.texts()) >= 3)
        shown = [p for p in telegram.sent() if "task:cancel:" in str(p.get("reply_markup"))]
        cancel = next(b for b in buttons_of(shown[-1]) if b.startswith("task:cancel:"))
        telegram.press(ADA, cancel)
        await eventually(lambda: any(t.startswith("Cancelled") for t in telegram.texts()))
        telegram.message(ADA, "/tasks")
        await eventually(lambda: any("You have no tasks" in t for t in telegram.texts()))


async def test_a_stranger_gets_no_answer_and_no_typing(tmp_path, clock, monkeypatch):
    async with bot(tmp_path, clock, monkeypatch) as (telegram, model):
        telegram.message(7, "hello, who are you?")
        telegram.message(7, "/tasks")
        telegram.press(7, "task:cancel:abcdef")
        telegram.message(ADA, "/help")
        await eventually(lambda: any("/remind" in t for t in telegram.texts()))
        chats = {int(c.params.get("chat_id", 0)) for c in telegram.calls if "chat_id" in c.params}
        assert chats == {ADA} and model.requests == []
        assert not any(c.method == "answerCallbackQuery" for c in telegram.calls)


async def test_a_group_chat_is_ignored_by_default(tmp_path, clock, monkeypatch):
    async with bot(tmp_path, clock, monkeypatch) as (telegram, _):
        telegram.message(ADA, "/help", chat=-1001, chat_type="supergroup")
        telegram.message(ADA, "/tz Asia/Tokyo")
        await eventually(lambda: any("Asia/Tokyo" in t for t in telegram.texts()))
        assert not any(int(p.get("chat_id", 0)) == -1001 for p in telegram.sent())


async def test_an_overdue_reminder_arrives_late_after_a_restart(tmp_path, clock, monkeypatch):
    async with bot(tmp_path, clock, monkeypatch) as (telegram, _):
        telegram.message(ADA, "/remind in 5m take the pizza out")
        await eventually(lambda: any("pizza" in t for t in telegram.texts()))
    clock.advance(timedelta(minutes=30))
    async with bot(tmp_path, clock, monkeypatch) as (telegram, _):
        await eventually(lambda: any("⏰ take the pizza out" in t for t in telegram.texts()))
        fired = next(t for t in telegram.texts() if "⏰ take the pizza out" in t)
        assert "late: was due" in fired


async def test_an_approval_pressed_runs_the_call_and_an_expired_one_does_not(
    tmp_path, clock, monkeypatch
):
    async with fake_server() as home:
        home.script(Reply(raw=b"off", headers={"content-type": "text/plain"}))
        target = f"http://127.0.0.1:{home.url.rsplit(':', 1)[1]}/lights"
        net = {"allow_networks": ["127.0.0.0/8"]}
        async with bot(tmp_path, clock, monkeypatch, net=net) as (telegram, model):
            model.script(
                chat_reply(None, (call("c1", "api_call", {"url": target, "method": "POST"}),)),
                chat_reply("Hello again."),
            )
            telegram.message(ADA, "turn the lights off")
            await eventually(lambda: any("Approval needed" in t for t in telegram.texts()))
            asked = next(p for p in telegram.sent() if "Approval needed" in str(p["text"]))
            assert f"POST {target}" in str(asked["text"])
            # The chat is not held while the approval waits: the next message is answered.
            telegram.message(ADA, "hello?")
            await eventually(lambda: any("Hello again." in t for t in telegram.texts()))
            approve = next(b for b in buttons_of(asked) if b.startswith("approve:"))
            telegram.press(7, approve)  # a stranger's press passes no gate
            telegram.press(ADA, approve)
            await eventually(lambda: any("Approved and done" in t for t in telegram.texts()))
            assert [r.method for r in home.requests] == ["POST"]
            edited = telegram.sent("editMessageText")[-1]
            assert "reply_markup" not in edited or not buttons_of(edited)

            model.script(
                chat_reply(None, (call("c2", "api_call", {"url": target, "method": "DELETE"}),))
            )
            telegram.message(ADA, "delete the lights")
            await eventually(lambda: sum("Approval needed" in t for t in telegram.texts()) == 2)
            clock.advance(timedelta(minutes=10))
            await eventually(lambda: any("request expired" in t for t in telegram.texts()))
            late = [
                b
                for p in telegram.sent()
                if "Approval needed" in str(p["text"])
                for b in buttons_of(p)
            ][-2]
            telegram.press(ADA, late)
            await eventually(
                lambda: any(
                    "no longer open" in str(c.params.get("text", ""))
                    for c in telegram.calls
                    if c.method == "answerCallbackQuery"
                )
            )
            assert [r.method for r in home.requests] == ["POST"]


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def test_a_long_answer_is_split_and_refused_formatting_falls_back_to_plain_text(
    tmp_path, clock, monkeypatch
):
    code = "\n".join(f"value_{n} = {n} ** 2" for n in range(500))
    long = "Here you go:\n\n" + "text " * 200 + f"\n\n```python\n{code}\n```\n\nThat is all."
    async with bot(tmp_path, clock, monkeypatch) as (telegram, model):
        model.script(chat_reply(long))
        telegram.message(ADA, "show me the squares")
        await eventually(lambda: any("That is all." in t for t in telegram.texts()))
        pieces = [p for p in telegram.sent() if "value_" in str(p["text"])]
        assert len(pieces) >= 3 and all(units(str(p["text"])) <= 4096 for p in pieces)
        assert all(p["entities"][0]["type"] == "pre" for p in pieces)
        assert all(p.get("link_preview_options") and "parse_mode" not in p for p in pieces)
        assert telegram.refused == []
        telegram.fail_next("sendMessage", 400, "Bad Request: can't parse entities: odd")
        model.script(chat_reply("**bold** and <odd> markup"))
        telegram.message(ADA, "say something odd")
        await eventually(
            lambda: any(
                p["text"] == "bold and <odd> markup" and not p.get("entities")
                for p in telegram.sent()
            )
        )


async def test_an_emoji_heavy_answer_arrives_whole(tmp_path, clock, monkeypatch):
    # Cut by Python's length, every piece was refused as too long and the answer was lost.
    answer = "🎉 **Great** news! " * 600  # 10,800 characters, 12,600 UTF-16 units
    async with bot(tmp_path, clock, monkeypatch) as (telegram, model):
        model.script(chat_reply(answer))
        telegram.message(ADA, "celebrate")
        await eventually(lambda: sum(t.count("🎉") for t in telegram.texts()) == 600)
        assert telegram.refused == []
        assert all(units(str(p["text"])) <= 4096 for p in telegram.sent())
        assert sum(len(p["entities"]) for p in telegram.sent()) == 600  # every bold kept


def task_states(tmp_path) -> list[tuple]:
    with sqlite3.connect(tmp_path / "assistant.db") as raw:
        return raw.execute("SELECT status, paused_by FROM scheduled_tasks").fetchall()


async def test_a_user_who_blocked_the_bot_has_their_tasks_paused_until_they_write(
    tmp_path, clock, monkeypatch
):
    async with bot(tmp_path, clock, monkeypatch) as (telegram, _):
        telegram.message(ADA, "/every daily 9am stretch")
        await eventually(lambda: any("stretch" in t for t in telegram.texts()))
        telegram.fail_next("sendMessage", 403, "Forbidden: bot was blocked by the user")
        clock.advance(timedelta(days=1))
        await eventually(lambda: task_states(tmp_path) == [("paused", "blocked")])
        sent = len(telegram.sent())
        telegram.message(ADA, "/tasks")
        await eventually(lambda: any("Welcome back" in t for t in telegram.texts()))
        assert task_states(tmp_path) == [("active", None)]
        assert "[paused]" not in str(telegram.sent()[sent:])


async def test_a_permanent_bad_request_is_not_retried_as_a_network_error(
    tmp_path, clock, monkeypatch
):
    async with bot(tmp_path, clock, monkeypatch) as (telegram, _):
        telegram.message(ADA, "/remind in 5m stretch")
        await eventually(lambda: any("stretch" in t for t in telegram.texts()))
        for _ in range(2):  # refused formatted, then as plain text: final
            telegram.fail_next("sendMessage", 400, "Bad Request: chat not found")
        clock.advance(timedelta(minutes=5))
        with sqlite3.connect(tmp_path / "assistant.db") as raw:
            await eventually(
                lambda: raw.execute("SELECT status FROM task_runs").fetchall() == [("error",)]
            )
            (error,) = raw.execute("SELECT error FROM task_runs").fetchone()
        assert "refused the message" in error and "could not be reached" not in error


async def test_webhook_mode_takes_only_updates_that_carry_the_secret(tmp_path, clock, monkeypatch):
    import socket

    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    secret = "s3cret-token-of-some-length"
    monkeypatch.setenv("TEST_WEBHOOK_SECRET", secret)
    extra = {
        "mode": "webhook",
        "webhook_url": "https://bot.example/hook/abc",
        "webhook_port": port,
        "webhook_secret_env": "TEST_WEBHOOK_SECRET",
    }
    async with bot(tmp_path, clock, monkeypatch, telegram_extra=extra) as (telegram, _):
        await eventually(lambda: bool(telegram.sent("setWebhook")))
        hook = telegram.sent("setWebhook")[0]
        assert hook["url"] == "https://bot.example/hook/abc" and hook["secret_token"] == secret
        update = {
            "update_id": 5,
            "message": {
                "message_id": 9,
                "date": 1_700_000_000,
                "text": "/help",
                "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
                "chat": {"id": ADA, "type": "private"},
                "from": {"id": ADA, "is_bot": False, "first_name": "Ada"},
            },
        }
        async with httpx.AsyncClient() as client:
            url = f"http://127.0.0.1:{port}/hook/abc"
            forged = None
            async with asyncio.timeout(10):  # setWebhook may come before the server listens
                while forged is None:
                    try:
                        forged = await client.post(
                            url, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "wrong"}
                        )
                    except httpx.ConnectError:
                        await asyncio.sleep(0.01)
            missing = await client.post(url, json=update)
            assert forged.status_code == 403 and missing.status_code == 403
            assert not telegram.sent()
            genuine = await client.post(
                url, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": secret}
            )
            assert genuine.status_code == 200
        await eventually(lambda: any("/remind" in t for t in telegram.texts()))


async def test_a_streamed_answer_grows_in_one_message_with_a_progress_line(
    tmp_path, clock, monkeypatch
):
    from llm_fixtures import chat_stream

    async with bot(tmp_path, clock, monkeypatch, stream=True) as (telegram, model):
        model.script(
            chat_stream(("Let me check",), (call("c1", "get_current_time", {}),)),
            chat_stream(
                ("It is ", "**10:26** in Berlin."),
            ),
        )
        telegram.message(ADA, "what time is it, and is it late?")
        await eventually(
            lambda: any("Berlin." in str(p.get("text")) for p in telegram.sent("editMessageText"))
        )
        first = telegram.sent()[0]
        edits = telegram.sent("editMessageText")
        assert first["text"] == "Let me check"
        assert any("⚙ get_current_time" in str(e["text"]) for e in edits)
        final = edits[-1]
        assert final["message_id"] and final["text"] == "It is 10:26 in Berlin."
        assert final["entities"] == [{"type": "bold", "offset": 6, "length": 5}]
        assert len(telegram.sent()) == 1  # one message, edited as it grew


@pytest.mark.parametrize(
    ("telegram", "env", "words"),
    [
        ({}, {}, "no Telegram token"),
        ({"mode": "webhook"}, {"TEST_BOT_TOKEN": TOKEN}, "needs telegram.webhook_url"),
        (
            {"mode": "webhook", "webhook_url": "https://x.example/h"},
            {"TEST_BOT_TOKEN": TOKEN, "TEST_SECRET": "short"},
            "16+",
        ),
    ],
)
async def test_a_bot_that_cannot_start_says_why_and_stores_nothing(
    tmp_path, clock, monkeypatch, telegram, env, words
):
    from assistant.errors import ConfigError

    monkeypatch.delenv("TEST_BOT_TOKEN", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    raw = {
        "assistant": {"data_dir": str(tmp_path)},
        "telegram": {
            "token_env": "TEST_BOT_TOKEN",
            "webhook_secret_env": "TEST_SECRET",
            **telegram,
        },
    }
    with pytest.raises(ConfigError, match=words):
        await serve_telegram(Setup(parse_config(raw), "test", tmp_path), clock, asyncio.Event())
    assert not (tmp_path / "assistant.db").exists()


async def test_shutdown_with_an_approval_a_turn_and_a_run_in_flight_ends_within_the_grace(
    tmp_path, clock, monkeypatch
):
    never = asyncio.Event()  # the home server and the model hold their answers for good
    grace = timedelta(seconds=2)
    async with fake_server() as home:
        home.script(Reply(raw=b"on", headers={"content-type": "text/plain"}, hold=never))
        target = f"http://127.0.0.1:{home.url.rsplit(':', 1)[1]}/lights"
        db = await open_database(tmp_path / "assistant.db")
        poll = NewTask(
            Owner(ADA, ADA),
            "api_call",
            "poll",
            parse_once("in 1m", "UTC", clock.now()),
            {"url": target},
        )
        task = await TaskStore(db, clock).add(poll)
        await db.close()
        options = {
            "net": {"allow_networks": ["127.0.0.0/8"]},
            "scheduler": {"shutdown_grace_seconds": 2},
        }
        async with served(tmp_path, clock, monkeypatch, **options) as bot:
            telegram, model = bot.telegram, bot.model
            model.script(
                chat_reply(None, (call("c1", "api_call", {"url": target, "method": "POST"}),)),
                Reply(hold=never),
            )
            telegram.message(ADA, "turn the lights off")
            await eventually(lambda: any("Approval needed" in t for t in telegram.texts()))
            telegram.message(ADA, "and the heating?")  # a turn that waits on the model
            await eventually(lambda: len(model.requests) == 2)
            clock.advance(timedelta(minutes=1))  # the scheduled GET starts and hangs
            await eventually(lambda: len(home.requests) == 1)

            bot.stop.set()
            limit = clock.now() + grace + timedelta(seconds=1)
            # Both the turn and the run wait on one grace, at once, not one after the other.
            await eventually(lambda: clock.sleepers(until=limit) >= 2)
            clock.advance(grace)
            async with asyncio.timeout(5):
                await bot.task
            assert clock.now() <= limit
        never.set()
    with sqlite3.connect(tmp_path / "assistant.db") as raw:
        assert raw.execute("SELECT status FROM approvals").fetchall() == [("pending",)]
        lease = raw.execute("SELECT lease_owner FROM scheduled_tasks WHERE id = ?", (task.id,))
        assert lease.fetchall() == [(None,)]  # released: the next start repeats the GET
        audited = raw.execute("SELECT outcome FROM audit WHERE task_id = ?", (task.id,))
        assert audited.fetchall() == [("cancelled",)]


def last_words(request) -> str:
    content = request.json()["messages"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


async def test_a_long_turn_holds_neither_its_chats_buttons_and_commands_nor_another_chat(
    tmp_path, clock, monkeypatch
):
    release = asyncio.Event()
    async with fake_server() as home:
        home.script(Reply(raw=b"off", headers={"content-type": "text/plain"}))
        target = f"http://127.0.0.1:{home.url.rsplit(':', 1)[1]}/lights"

        async def answer(request):
            words = last_words(request).rsplit("\n", 1)[-1]
            if words == "lights off":
                return chat_reply(
                    None, (call("c1", "api_call", {"url": target, "method": "POST"}),)
                )
            if words == "a slow question":
                await release.wait()
            return chat_reply(f"re: {words}")

        options = {
            "telegram_extra": {"allowed_user_ids": [ADA, BOB], "queue_per_chat": QUEUE_LIMIT},
            "net": {"allow_networks": ["127.0.0.0/8"]},
        }
        async with bot(tmp_path, clock, monkeypatch, **options) as (telegram, model):
            model.default = answer
            telegram.message(ADA, "lights off")
            await eventually(lambda: any("Approval needed" in t for t in telegram.texts()))
            asked = next(p for p in telegram.sent() if "Approval needed" in str(p["text"]))
            telegram.message(ADA, "a slow question")
            await eventually(lambda: len(model.requests) == 2)
            for i in range(QUEUE_LIMIT):
                telegram.message(ADA, f"queued {i}")
            telegram.message(ADA, "one too many")
            telegram.message(ADA, "and another")  # the same batch: "busy" is not said again
            await eventually(lambda: BUSY in telegram.texts())
            # While Ada's turn runs: her button, her commands and Bob's chat are all answered.
            telegram.press(ADA, next(b for b in buttons_of(asked) if b.startswith("approve:")))
            await eventually(lambda: any("Approved and done" in t for t in telegram.texts()))
            assert [r.method for r in home.requests] == ["POST"]
            telegram.message(ADA, "/tasks")
            await eventually(lambda: any("You have no tasks" in t for t in telegram.texts()))
            telegram.message(BOB, "hello from bob")
            await eventually(lambda: "re: hello from bob" in telegram.texts())
            assert len(model.requests) == 3  # Ada's queue waits behind her running turn

            telegram.message(ADA, "/stop")
            await eventually(lambda: "Stopping." in telegram.texts())
            answered = [f"re: queued {i}" for i in range(QUEUE_LIMIT)]
            await eventually(lambda: all(a in telegram.texts() for a in answered))
            assert [t for t in telegram.texts() if t.startswith("re: queued")] == answered
            assert telegram.texts().count(BUSY) == 1
            assert "one too many" not in str([r.body for r in model.requests])
            release.set()


async def test_a_long_call_is_shown_whole_as_a_file_and_exactly_that_runs(
    tmp_path, clock, monkeypatch
):
    body = "".join(f"line {n}: token=abc{n} ```\n" for n in range(200))  # 5,000+ characters
    async with fake_server() as home:
        home.script(Reply(raw=b"stored", headers={"content-type": "text/plain"}))
        target = f"http://127.0.0.1:{home.url.rsplit(':', 1)[1]}/notes"
        net = {"allow_networks": ["127.0.0.0/8"]}
        async with bot(tmp_path, clock, monkeypatch, net=net) as (telegram, model):
            arguments = {"url": target, "method": "PUT", "body": body}
            model.script(chat_reply(None, (call("c1", "api_call", arguments),)))
            telegram.message(ADA, "store my notes")
            await eventually(lambda: any("Approval needed" in t for t in telegram.texts()))
            (document,) = telegram.sent("sendDocument")
            shown = document["document"].decode()
            assert document["document_filename"].startswith("approval-")
            assert f"PUT {target}" in shown and shown.endswith(body)  # whole, unmasked
            asked = next(p for p in telegram.sent() if "Approval needed" in str(p["text"]))
            assert "is in the file above" in str(asked["text"]) and len(str(asked["text"])) < 500
            approve = next(b for b in buttons_of(asked) if b.startswith("approve:"))
            telegram.press(ADA, approve)
            await eventually(lambda: any("Approved and done" in t for t in telegram.texts()))
        assert [(r.method, r.body.decode()) for r in home.requests] == [("PUT", body)]


async def test_export_sends_the_owners_data_as_files_in_private_only(tmp_path, clock, monkeypatch):
    async with bot(tmp_path, clock, monkeypatch, telegram_extra={"private_only": False}) as (
        telegram,
        _,
    ):
        telegram.message(ADA, "/note the wifi password is on the fridge")
        telegram.message(ADA, "/remind in 1h water the plants")
        await eventually(lambda: any("water the plants" in t for t in telegram.texts()))
        telegram.message(ADA, "/export", chat=-1001, chat_type="group")
        await eventually(lambda: any("only in our private chat" in t for t in telegram.texts()))
        assert telegram.sent("sendDocument") == []
        telegram.message(ADA, "/export")
        await eventually(lambda: len(telegram.sent("sendDocument")) == 2)
    documents = {d["document_filename"]: d["document"] for d in telegram.sent("sendDocument")}
    assert {int(d["chat_id"]) for d in telegram.sent("sendDocument")} == {ADA}
    data = json.loads(documents[f"assistant-export-{ADA}.json"])
    assert [n["content"] for n in data["notes"]] == ["the wifi password is on the fridge"]
    assert [t["description"] for t in data["tasks"]] == ["water the plants"]
    assert "the wifi password" in documents[f"assistant-export-{ADA}-notes.md"].decode()


def test_both_bot_api_connections_share_one_tls_context(monkeypatch):
    import ssl

    from assistant.channels.telegram.bot import TelegramChannel

    made, default = [], ssl.create_default_context

    def counted(*args, **kwargs):
        made.append(default(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(ssl, "create_default_context", counted)
    TelegramChannel(TOKEN, "https://api.telegram.org/bot", [1])
    assert len(made) == 1  # its certificate authorities are loaded once, not once each
