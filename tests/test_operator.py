"""The operator's side: provider bugs named, doctor's whole list, commands that say it once."""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys

from fakehttp import fake_server
from llm_fixtures import anthropic_reply

from assistant.cli import main


def write_config(tmp_path, llm: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[assistant]\ndata_dir = "{tmp_path / "data"}"\nlocal_first = false\n'
        f"[telegram]\nallowed_user_ids = [42]\ntoken_env = 'TEST_NO_TOKEN'\n[llm]\n{llm}\n"
    )
    return str(path)


async def test_a_bug_inside_a_provider_names_the_provider_and_the_cause(
    tmp_path, monkeypatch, capsys
):
    from assistant.llm import anthropic as adapter

    monkeypatch.setenv("TEST_ANT_KEY", "k")
    monkeypatch.setattr(adapter, "sdk_arguments", lambda body: {**body, "temprature": 1})
    async with fake_server() as server:
        server.script(anthropic_reply("never read"))
        llm = f'provider = "anthropic"\nbase_url = "{server.url}"\napi_key_env = "TEST_ANT_KEY"'
        config = write_config(tmp_path, llm)
        status = await asyncio.to_thread(main, ["--config", config, "ask", "hello there"])
    said = capsys.readouterr()
    assert status == 1
    assert said.out == (
        "The anthropic provider failed on a bug of the assistant's: TypeError in "
        "assistant.llm.anthropic._stream(), calling into anthropic "
        f"{importlib.metadata.version('anthropic')}. Please report it; --debug shows the traceback.\n"
    )
    assert said.err == ""  # said once: no log line beside it
    assert server.requests == []


def test_doctor_lists_every_check_when_one_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TEST_ANT_KEY", "k")
    monkeypatch.setitem(sys.modules, "assistant.llm.anthropic", None)
    config = write_config(tmp_path, 'provider = "anthropic"\napi_key_env = "TEST_ANT_KEY"')
    assert main(["--config", config, "doctor"]) == 1
    said = capsys.readouterr()
    lines = said.out.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "✓ config",
        "✓ database",
        "✗ model",
        "✗ telegram",
        "✓ code",
        "✓ understood locally",
    ]
    assert "pip install -e '.[anthropic]'" in said.out
    assert said.err == ""  # no log lines mixed into the list
