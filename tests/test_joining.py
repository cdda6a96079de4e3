"""`chat` and `ask` join the running service over its owner-only socket."""

from __future__ import annotations

import asyncio
import os
import stat
import sys

from llm_fixtures import chat_reply
from test_telegram import ADA, eventually, served

from assistant.app.terminals import socket_path
from assistant.db import open_database


def config_beside(tmp_path) -> str:
    """A config naming the same data folder: all a joining terminal needs."""
    path = tmp_path / "terminal.toml"
    path.write_text(
        f'[assistant]\ndata_dir = "{tmp_path}"\n[telegram]\nallowed_user_ids = [{ADA}]\n'
    )
    return str(path)


async def command(tmp_path, *argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assistant", "--config", config_beside(tmp_path), *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(stdin), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_two_terminals_at_once_talk_to_the_running_bot(tmp_path, clock, monkeypatch):
    async with served(tmp_path, clock, monkeypatch) as running:
        socket = socket_path(tmp_path / "assistant.db")
        await eventually(socket.exists)
        assert stat.S_IMODE(socket.stat().st_mode) == 0o600
        first, second = await asyncio.gather(
            command(tmp_path, "chat", stdin=b"/note from the first terminal\n/notes\n"),
            command(tmp_path, "chat", stdin=b"/note from the second terminal\n"),
        )
        asked = await command(tmp_path, "ask", "/notes")
        running.model.script(chat_reply("Hello from the model."))
        words = await command(tmp_path, "ask", "tell me something nice")
    for status, out, err in (first, second, asked, words):
        assert status == 0, out + err
        assert "in use by another assistant" not in out + err
        assert err == ""
    assert "assistant: type a message" in first[1] and "Saved note" in first[1]
    assert "from the first terminal" in asked[1] and "from the second terminal" in asked[1]
    assert words[1] == "Hello from the model.\n"
    db = await open_database(tmp_path / "assistant.db")
    try:
        async with db.read() as session:
            rows = await session.fetchall("SELECT user_id, content FROM notes ORDER BY 2")
    finally:
        await db.close()
    assert [tuple(r) for r in rows] == [
        (ADA, "from the first terminal"),
        (ADA, "from the second terminal"),
    ]
    assert not socket.exists()  # gone with the service


async def test_without_a_running_service_chat_reads_piped_lines_itself(tmp_path):
    status, out, err = await command(tmp_path, "chat", stdin=b"/note piped\n/notes\n")
    assert status == 0, err
    assert "1. piped" in out
    assert "Fatal Python error" not in err and " INFO " not in err


async def test_a_peer_of_another_user_is_refused(tmp_path, clock, monkeypatch):
    """The socket is the owner's alone (0600); should another uid reach it, it gets nothing."""
    from assistant.app import terminals

    async with served(tmp_path, clock, monkeypatch):
        socket = socket_path(tmp_path / "assistant.db")
        await eventually(socket.exists)
        real = os.getuid()
        monkeypatch.setattr(terminals.os, "getuid", lambda: real + 1)  # we are "someone else"
        reader, writer = await asyncio.open_unix_connection(socket)
        writer.write(b'{"hello": 1, "mode": "ask"}\n{"line": "/notes"}\n')
        await writer.drain()
        try:
            said = await asyncio.wait_for(reader.read(), 10)
        except ConnectionResetError:  # closed before it read what was sent
            said = b""
        writer.close()
    assert said == b""  # closed at once, not a word said
