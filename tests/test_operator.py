"""The operator's side: provider bugs named, doctor's whole list, commands that say it once."""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import stat
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
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


@pytest.fixture
def loose_umask():
    """The umask most machines have (022): what the assistant writes must be private anyway."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_everything_written_is_the_owners_alone_under_umask_022(
    tmp_path, monkeypatch, capsys, loose_umask
):
    monkeypatch.chdir(tmp_path)
    assert main(["status"]) == 0
    os.umask(0o022)  # as a library, too: not only because the command line set it
    data = tmp_path / "data"
    assert mode(data) == 0o700
    assert mode(data / "assistant.db") == 0o600
    assert main(["backup", "copy.db"]) == 0
    assert mode(tmp_path / "copy.db") == 0o600
    assert main(["backup", "copy.db"]) == 2  # never overwritten
    assert "already exists" in capsys.readouterr().err

    async def daily_and_lock() -> None:
        from assistant.app import backups, datadir
        from assistant.db import open_database

        os.umask(0o022)
        db = await open_database(data / "assistant.db")
        try:
            copy = await backups.take_daily(db, data / "backups", 3, datetime(2026, 11, 27, 9))
        finally:
            await db.close()
        assert copy is not None and mode(copy) == 0o600 and mode(data / "backups") == 0o700
        datadir.own(data / "assistant.db").close()
        assert mode(data / "assistant.db.lock") == 0o600

    asyncio.run(daily_and_lock())
    for path in data.rglob("*"):
        assert mode(path) & 0o077 == 0, path


def test_an_older_installs_readable_files_are_made_private(
    tmp_path, monkeypatch, capsys, loose_umask
):
    monkeypatch.chdir(tmp_path)
    assert main(["status"]) == 0
    data = tmp_path / "data"
    data.chmod(0o755)
    (data / "assistant.db").chmod(0o644)
    (data / "backups").mkdir(mode=0o755)
    (data / "backups" / "assistant-2026-01-01.db").write_bytes(b"")
    (data / "backups" / "assistant-2026-01-01.db").chmod(0o644)
    (data / "mine.txt").write_text("the owner's own file, not ours")
    (data / "mine.txt").chmod(0o644)
    assert main(["status"]) == 0
    assert mode(data) == 0o700 and mode(data / "assistant.db") == 0o600
    assert mode(data / "backups") == 0o700
    assert mode(data / "backups" / "assistant-2026-01-01.db") == 0o600
    assert mode(data / "mine.txt") == 0o644  # not ours to change


def test_an_export_never_overwrites_an_earlier_one(tmp_path, monkeypatch, capsys, loose_umask):
    from assistant.memory import export

    out = tmp_path / "out"
    first = export.write(
        out, {"assistant-export-7.json": b"1", "assistant-export-7-notes.md": b"1"}
    )
    second = export.write(
        out, {"assistant-export-7.json": b"2", "assistant-export-7-notes.md": b"2"}
    )
    assert [p.name for p in second] == [
        "assistant-export-7-2.json",
        "assistant-export-7-notes-2.md",
    ]
    assert [p.read_bytes() for p in first] == [b"1", b"1"]
    assert [p.read_bytes() for p in second] == [b"2", b"2"]
    assert mode(out) == 0o700 and all(mode(p) == 0o600 for p in first + second)


def run_with_stdout(tmp_path, stdout, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assistant", *argv],
        check=False, stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=60,
        env={k: v for k, v in os.environ.items() if k != "ASSISTANT_CONFIG"},
    )  # fmt: skip


def test_a_closed_pipe_ends_a_command_quietly(tmp_path):
    read, write = os.pipe()
    os.close(read)  # as `| head -1` does once it has its line
    try:
        done = run_with_stdout(tmp_path, write, "tools", "--format", "openai")
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")


def test_a_full_output_device_is_one_plain_line(tmp_path):
    with open("/dev/full", "w") as full:
        done = run_with_stdout(tmp_path, full, "status")
    assert done.returncode == 2
    assert done.stderr == (
        "assistant: no space left on the device it writes to (its output, or the data "
        "folder): free some space and run it again.\n"
    )


def test_status_lists_the_folders_and_the_servers_tools(tmp_path, monkeypatch, capsys):
    import shutil

    from mcp_fixtures import SERVER

    root = Path(__file__).resolve().parents[1]
    shutil.copytree(root / "docs" / "tools.d", tmp_path / "tools.d")
    (tmp_path / "config.toml").write_text(
        '[tools]\nfolder = "tools.d"\n'
        f'[mcp.servers.test]\ncommand = ["{sys.executable}", "{SERVER}", "stdio"]\n'
        '[mcp.servers.gone]\ncommand = ["/nonexistent/server"]\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    tools = next(line for line in out.splitlines() if line.startswith("tools:"))
    assert "get_current_time" in tools and "roll_dice" in tools and "test__add" in tools
    assert "server gone: " in out and "gone__" not in out
