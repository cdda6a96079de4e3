"""assistant doctor and the operator's task commands."""

from __future__ import annotations

import io
import sys

from fake_telegram import TOKEN, FakeTelegram
from fakehttp import fake_server
from llm_fixtures import call, chat_reply, error_reply

from assistant.app import Setup
from assistant.app.doctor import _model as _model_line
from assistant.app.doctor import _sandbox, doctor
from assistant.cli import main
from assistant.config import parse_config
from assistant.db import open_database
from assistant.llm.modes import StoredModes
from assistant.tools.sandbox import Jail


def setup_for(tmp_path, llm_url: str, telegram_url: str, **llm) -> Setup:
    raw = {
        "assistant": {"data_dir": str(tmp_path)},
        "llm": {"base_url": llm_url, "api_key_env": "TEST_KEY", **llm},
        "telegram": {"token_env": "TEST_TOKEN", "base_url": telegram_url, "allowed_user_ids": [42]},
    }
    return Setup(parse_config(raw), "test.toml", tmp_path)


async def test_a_healthy_installation_passes_every_check(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_KEY", "k")
    monkeypatch.setenv("TEST_TOKEN", TOKEN)
    async with fake_server() as model, fake_server() as telegram_server:
        telegram_server.default = FakeTelegram(telegram_server).handle
        model.script_probe(chat_reply(None, (call("p1", "ping", {"word": "hello"}),)))
        out = io.StringIO()
        ok = await doctor(setup_for(tmp_path, f"{model.url}/v1", f"{telegram_server.url}/bot"), out)
        assert model.probes[0].json()["tools"][0]["function"]["name"] == "ping"
    assert ok, out.getvalue()
    assert "✓ model: gpt-4o-mini" in out.getvalue()
    assert "tool calls work in native mode (it returned a real tool call)" in out.getvalue()
    assert "context window 8,192 tokens (a default of 8,192: the server did not say)" in (
        out.getvalue()
    )
    assert "✓ telegram: @test_assistant_bot" in out.getvalue()
    assert "✓ code: off (tools.execute_code = false)" in out.getvalue()


async def test_problems_are_named_with_what_to_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_KEY", "k")
    monkeypatch.setenv("TEST_TOKEN", "1:bad")
    async with fake_server() as model, fake_server() as telegram_server:
        telegram = FakeTelegram(telegram_server)
        telegram_server.default = telegram.handle
        telegram.fail_next("getMe", 401, "Unauthorized")
        model.script_probe(
            error_reply(400, "model does not support tools"),
            chat_reply('{"tool": "ping", "arguments": {"word": "hello"}}'),
        )
        out = io.StringIO()
        ok = await doctor(
            setup_for(
                tmp_path, f"{model.url}/v1", f"{telegram_server.url}/bot", tool_mode="native"
            ),
            out,
        )
    text = out.getvalue()
    assert not ok
    assert (
        "tool calls work in grammar mode (it refuses native tools but honours a JSON schema)"
        in text
    )
    assert "set llm.tool_mode = 'grammar' (it is 'native')" in text
    assert "✗ telegram: the token was rejected" in text


def test_the_operator_lists_and_cancels_any_users_task(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    import asyncio

    from assistant.clock import SystemClock
    from assistant.db import open_database
    from assistant.schedules.parse import read_schedule
    from assistant.tasks import NewTask, Owner, TaskStore

    async def seed() -> str:
        conn = await open_database(tmp_path / "data" / "assistant.db")
        store = TaskStore(conn, SystemClock())
        parsed = read_schedule("daily 9am", "UTC", SystemClock().now())
        task = await store.add(NewTask(Owner(7, 7), "reminder", "water", parsed, {"text": "water"}))
        await conn.close()
        return task.id

    task_id = asyncio.run(seed())
    assert main(["tasks", "list"]) == 0
    assert f"{task_id}  user 7" in capsys.readouterr().out
    assert main(["tasks", "cancel", task_id]) == 0
    assert f"cancelled {task_id} (user 7)" in capsys.readouterr().out
    assert main(["tasks", "cancel", "nope42"]) == 2
    assert "no task 'nope42'" in capsys.readouterr().err


async def test_doctor_says_why_code_cannot_run_isolated(tmp_path, monkeypatch):
    monkeypatch.setattr(Jail, "here", classmethod(lambda cls: Jail(("true",), sys.executable)))
    setup = Setup(parse_config({"tools": {"execute_code": True}}), "test", tmp_path)
    check = await _sandbox(setup)
    assert not check.ok
    assert check.detail.startswith("switched off: the sandbox could not be set up")
    assert "user namespaces" in check.detail


async def test_a_server_that_silently_drops_tools_is_noticed(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_KEY", "k")
    async with fake_server() as model:
        model.script_probe(chat_reply("Hello! How can I help?"), chat_reply("hello to you too"))
        check = await _model_line(setup_for(tmp_path, f"{model.url}/v1", "http://127.0.0.1:9/bot"))
    assert "tool calls work in native mode (it accepts tools but answered the check in prose" in (
        check.detail
    )
    assert "text mode to fall back to (it does not keep to a JSON schema)" in check.detail


async def test_doctors_check_becomes_the_remembered_mode_and_it_says_the_change(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("TEST_KEY", "k")
    async with fake_server() as model:
        setup = setup_for(tmp_path, f"{model.url}/v1", "http://127.0.0.1:9/bot")
        # a first check while the server was misconfigured: tools refused, prose to the schema
        model.script_probe(error_reply(400, "tools are not supported"), chat_reply("hi"))
        first = await _model_line(setup)
        assert "tool calls work in text mode" in first.detail
        second = await _model_line(setup)  # fixed now: the default probe reply is a real call
    assert "tool calls work in native mode" in second.detail
    assert "it was in text mode since" in second.detail and "now native" in second.detail
    db = await open_database(setup.database_path())
    try:
        known = await StoredModes(db).recall(f"openai:gpt-4o-mini@{model.url}/v1")
    finally:
        await db.close()
    assert known is not None and (known.mode, known.learned) == ("native", "doctor")
