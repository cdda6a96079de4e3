"""`assistant ask`: one turn through the configured model, streamed to the terminal."""

from __future__ import annotations

import io

import pytest
from fakehttp import fake_server
from llm_fixtures import call, chat_reply, chat_stream

from assistant import app
from assistant.app import serve
from assistant.cli import main
from assistant.config import parse_config
from assistant.errors import ConfigError

OWNER = 4242


def setup_for(tmp_path, url: str, **llm) -> app.Setup:
    raw = {
        "assistant": {"data_dir": str(tmp_path), "timezone": "Asia/Tokyo"},
        "telegram": {"allowed_user_ids": [OWNER]},
        "llm": {"base_url": url, "api_key_env": "TEST_LLM_KEY", **llm},
    }
    return app.Setup(parse_config(raw), "test", tmp_path)


async def test_ask_streams_the_answer_after_a_tool_call(tmp_path, monkeypatch, clock):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-local")
    async with fake_server() as server:
        server.script(
            chat_stream((), (call("c1", "get_current_time", {}),)),
            chat_stream(
                ("It is ", "18:26 in Tokyo."),
            ),
        )
        out = io.StringIO()
        answer = await serve.ask(
            setup_for(tmp_path, f"{server.url}/v1"), "what time is it, roughly?", clock, out
        )
    assert answer.ending == "answered"
    assert out.getvalue() == "  ⚙ get_current_time…\nIt is 18:26 in Tokyo.\n"
    assert server.requests[0].headers["authorization"] == "Bearer sk-local"
    assert "Asia/Tokyo" in server.requests[0].json()["messages"][0]["content"]


async def test_ask_without_streaming_prints_the_whole_answer(tmp_path, monkeypatch, clock):
    monkeypatch.setenv("TEST_LLM_KEY", "k")
    async with fake_server() as server:
        server.script(chat_reply("Hello."))
        out = io.StringIO()
        await serve.ask(setup_for(tmp_path, f"{server.url}/v1", stream=False), "hi", clock, out)
    assert out.getvalue() == "Hello.\n"


def test_ask_without_a_key_says_how_to_configure_a_model(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.toml").write_text(f"[telegram]\nallowed_user_ids = [{OWNER}]\n")
    assert main(["ask", "hi"]) == 2
    error = capsys.readouterr().err
    assert "$OPENAI_API_KEY is empty" in error and "Ollama" in error


def test_ask_without_a_model_does_everyday_requests_and_says_what_works(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.toml").write_text(f"[telegram]\nallowed_user_ids = [{OWNER}]\n")
    assert main(["ask", "remind me in 10 minutes to stretch"]) == 0
    assert "stretch — once on" in capsys.readouterr().out
    assert main(["ask", "what are my reminders?"]) == 0
    assert "stretch" in capsys.readouterr().out
    assert main(["ask", "cancel the reminder to stretch"]) == 0  # nobody here to confirm
    assert "could not ask you to confirm, so nothing was changed" in capsys.readouterr().out
    assert main(["ask", "what are my reminders?"]) == 0
    assert "stretch" in capsys.readouterr().out  # still there
    assert main(["ask", "привет, как дела?"]) == 2
    error = capsys.readouterr().err
    assert "Языковой модели нет" in error and "$OPENAI_API_KEY is empty" in error


async def test_anthropic_gets_its_own_url_and_key_variable(tmp_path, monkeypatch, clock):
    from assistant.llm.provider import endpoint

    config = parse_config({"llm": {"provider": "anthropic", "model": "claude-x"}})
    where = endpoint(config.llm)
    assert (where.base_url, where.key_env) == ("https://api.anthropic.com", "ANTHROPIC_API_KEY")


def test_a_missing_anthropic_extra_is_a_config_error(tmp_path, monkeypatch):
    import sys

    from assistant.llm.provider import build_model

    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setitem(sys.modules, "assistant.llm.anthropic", None)
    config = parse_config({"llm": {"provider": "anthropic"}})
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[anthropic\]'"):
        build_model(config, None)  # type: ignore[arg-type]


def test_ask_with_nothing_set_up_first_says_the_model_is_missing(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["ask", "hi"]) == 2
    error = capsys.readouterr().err
    assert "$OPENAI_API_KEY is empty" in error and "allowed_user_ids" not in error


async def test_ask_without_an_owner_acts_as_the_local_user(tmp_path, monkeypatch, clock):
    monkeypatch.setenv("TEST_LLM_KEY", "k")
    async with fake_server() as server:
        server.script(chat_reply("Hello."))
        raw = {
            "assistant": {"data_dir": str(tmp_path)},
            "llm": {"base_url": f"{server.url}/v1", "api_key_env": "TEST_LLM_KEY", "stream": False},
        }
        out = io.StringIO()
        await serve.ask(app.Setup(parse_config(raw), "test", tmp_path), "hi", clock, out)
    assert "Hello." in out.getvalue()


async def test_ask_acts_as_the_owner_so_its_reminder_can_be_delivered(tmp_path, monkeypatch, clock):
    monkeypatch.setenv("TEST_LLM_KEY", "k")
    async with fake_server() as server:
        server.script(
            chat_reply(None, (call("c1", "add_reminder", {"when": "in 5m", "message": "tea"}),)),
            chat_reply("Set."),
        )
        setup = setup_for(tmp_path, f"{server.url}/v1", stream=False)
        await serve.ask(setup, "remind me in 5m: tea", clock, io.StringIO())
    from assistant.db import open_database
    from tests.conftest import fetch

    db = await open_database(setup.database_path())
    rows = await fetch(db, "SELECT user_id, chat_id FROM scheduled_tasks")
    history = await fetch(db, "SELECT DISTINCT chat_id FROM messages")
    await db.close()
    assert rows == [(OWNER, OWNER)] and history == [(OWNER,)]


NOTHING_FIRES = (
    "It will fire while the assistant runs (assistant run, or assistant chat); none runs now."
)


def test_ask_that_makes_a_task_says_once_that_nothing_runs_to_fire_it(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["ask", "remind me in 10 minutes to stretch"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(f"\n{NOTHING_FIRES}\n") and out.count("none runs now") == 1
    assert main(["ask", "what are my reminders?"]) == 0  # nothing made or moved
    assert "none runs now" not in capsys.readouterr().out
    assert main(["ask", "напомни через 10 минут размяться"]) == 0
    assert capsys.readouterr().out.endswith(
        "Сработает, только пока ассистент запущен (assistant run или assistant chat); сейчас он "
        "не запущен.\n"
    )


async def test_ask_says_nothing_more_while_an_assistant_runs(tmp_path, monkeypatch, clock):
    from assistant.app import datadir

    monkeypatch.delenv("TEST_LLM_KEY", raising=False)
    setup = setup_for(tmp_path, "https://api.openai.com/v1")
    held = datadir.own(setup.database_path())  # as `assistant run` holds it
    try:
        out = io.StringIO()
        await serve.ask(setup, "remind me in 10 minutes to stretch", clock, out)
    finally:
        held.close()
    assert "stretch" in out.getvalue() and "none runs now" not in out.getvalue()


async def test_a_write_that_fails_is_the_commands_error_not_an_answer(tmp_path):
    from test_local_first import running

    from assistant.errors import WriteError

    async with running(tmp_path) as (runtime, _, person):
        async with runtime.db.read() as session:
            await session.execute("PRAGMA query_only = ON")  # as a read-only file refuses
        try:
            reply = await runtime.local.understood(person, "note that the locker code is 4312")
            with pytest.raises(WriteError, match="read-only"):
                await serve._answered(runtime, person, "/note the locker code", io.StringIO())
        finally:
            async with runtime.db.read() as session:
                await session.execute("PRAGMA query_only = OFF")
    assert isinstance(reply.failure, WriteError) and "read-only" in str(reply.failure)
