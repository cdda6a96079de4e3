"""No terminal can hurt the service: connections are capped, one that says nothing is closed,
output waits for a terminal that reads (one that does not is let go), a terminal that left is
not answered on, and nothing a connection does escapes its session."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from test_joining import command, config_beside
from test_telegram import eventually, served

from assistant.app import joining, serve, wire
from assistant.app.terminals import Door
from assistant.app.wire import PATH_LIMIT, Limits, socket_path
from assistant.db import open_database
from assistant.errors import AssistantError

HELLO = b'{"hello": 1}\n'


@pytest.fixture
def doors(monkeypatch):
    """The service's door made with small limits; the doors made, to look at their sessions."""
    made: list[Door] = []

    def limited(**limits) -> list[Door]:
        def door(*args, **kwargs) -> Door:
            made.append(Door(*args, limits=Limits(**limits), **kwargs))
            return made[-1]

        monkeypatch.setattr(serve, "Door", door)
        return made

    return limited


@pytest.fixture
def logs(caplog):
    """Every record from INFO up, whatever level an earlier test left the root logger at."""
    caplog.set_level(logging.INFO)
    return caplog


@pytest.fixture
def short_runtime(monkeypatch) -> Iterator[Path]:
    """A short $XDG_RUNTIME_DIR of this user's, as a login session has."""
    folder = Path(tempfile.mkdtemp(prefix="xdg-", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def connect(path: Path, hello: dict | None = None):
    """A raw terminal: connected, let in (its hello read), and its own hello said if given."""
    reader, writer = await asyncio.open_unix_connection(path)
    if hello is not None:
        writer.write(json.dumps({"hello": 1, **hello}).encode() + b"\n")
    return reader, writer


async def closed(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with suppress(ConnectionError):
        await writer.wait_closed()


async def to_the_end(reader: asyncio.StreamReader) -> bytes:
    try:
        async with asyncio.timeout(10):
            return await reader.read()
    except ConnectionResetError:
        return b""


def no_errors(logs) -> None:
    assert "Unhandled exception" not in logs.text
    assert not [r for r in logs.records if r.levelno >= logging.ERROR], logs.text


async def notes(folder: Path) -> int:
    db = await open_database(folder / "assistant.db")
    try:
        async with db.read() as session:
            rows = await session.fetchall("SELECT COUNT(*) FROM notes")
    finally:
        await db.close()
    return int(rows[0][0])


async def test_a_connection_over_the_cap_is_told_one_line_and_closed(
    tmp_path, clock, monkeypatch, doors, logs
):
    made = doors(terminals=2, hello_seconds=3600)  # held while a slow `ask` starts
    async with served(tmp_path, clock, monkeypatch):
        path = socket_path(tmp_path / "assistant.db")
        await eventually(path.exists)
        first, second = await connect(path), await connect(path)
        for reader, _writer in (first, second):
            assert await asyncio.wait_for(reader.readline(), 10) == HELLO
        third, writer = await connect(path)
        said = await to_the_end(third)
        await closed(writer)
        refused = await command(tmp_path, "ask", "/notes")
        await closed(first[1])
        await eventually(lambda: len(made[0].sessions) < 2)
        asked = await command(tmp_path, "ask", "/notes")
        await closed(second[1])
    assert said == b'{"end": "full", "most": 2}\n'  # one line, then closed at once
    assert refused[0] == 2 and "as many terminals joined as it takes" in refused[2]
    assert asked[0] == 0, asked
    no_errors(logs)


async def test_a_connection_that_says_nothing_is_closed_but_a_joined_chat_may_think(
    tmp_path, clock, monkeypatch, doors
):
    made = doors()
    async with served(tmp_path, clock, monkeypatch):
        path = socket_path(tmp_path / "assistant.db")
        await eventually(path.exists)
        chat, chatting = await connect(path, {"mode": "chat"})
        assert await asyncio.wait_for(chat.readline(), 10) == HELLO
        assert b"assistant: type a message" in await asyncio.wait_for(chat.readline(), 10)
        made[0].limits = Limits(hello_seconds=0.2)  # the chat said hello under the usual limit
        chatting.write(b'{"line": "/notes"}\n')  # its next read starts before the silent one
        first = await asyncio.wait_for(chat.readline(), 10)
        silent, quiet = await connect(path)
        asked, asking = await connect(path, {"mode": "ask"})  # a hello, and no request
        silence, unasked = await to_the_end(silent), await to_the_end(asked)
        chatting.write(b'{"line": "/notes"}\n')
        later = await asyncio.wait_for(chat.readline(), 10)
        for writer in (chatting, quiet, asking):
            await closed(writer)
    assert silence == HELLO and unasked == HELLO  # let in, then closed for saying nothing
    assert json.loads(later) == json.loads(first)  # the chat, idle longer, is still there


@pytest.mark.parametrize("ahead", [4, 100_000])  # bounded read-ahead, and none to speak of
async def test_a_terminal_that_sent_many_lines_and_left_is_not_answered_on(
    tmp_path, clock, monkeypatch, doors, logs, ahead
):
    made = doors(read_ahead=ahead)
    async with served(tmp_path, clock, monkeypatch):
        path = socket_path(tmp_path / "assistant.db")
        await eventually(path.exists)
        reader, writer = await connect(path, {"mode": "chat"})
        assert await asyncio.wait_for(reader.readline(), 10) == HELLO
        writer.write(b"".join(b'{"line": "/note line %d"}\n' % n for n in range(2000)))
        await writer.drain()
        await closed(writer)  # gone without reading a word
        await eventually(lambda: not made[0].sessions)
    assert await notes(tmp_path) <= 4 + 2  # not 2,000: once it is gone, nothing more
    no_errors(logs)


@pytest.mark.parametrize(
    ("limits", "why"),
    [
        ({"output": 4096}, "stopped reading what it was sent"),  # too much waits for it
        ({"output": 1 << 30, "drain_seconds": 0.1}, "took nothing for 0.1 s"),  # for too long
    ],
)
async def test_a_terminal_that_does_not_read_is_let_go(
    tmp_path, clock, monkeypatch, doors, logs, limits, why
):
    made = doors(**limits)
    async with served(tmp_path, clock, monkeypatch):
        path = socket_path(tmp_path / "assistant.db")
        await eventually(path.exists)
        reader, writer = await connect(path, {"mode": "chat"})
        assert await asyncio.wait_for(reader.readline(), 10) == HELLO
        writer.write(b'{"line": "/help"}\n' * 5000)  # ~10 MB of answers, none of them read
        await eventually(lambda: not made[0].sessions)
        received = await to_the_end(reader)
        await closed(writer)
    answers = received.count(b"/notes")
    assert 0 < answers < 5000  # what the socket held when it was let go, not every answer
    assert why in logs.text
    no_errors(logs)


async def test_a_terminal_that_vanishes_mid_request_is_no_unhandled_error(
    tmp_path, clock, monkeypatch, logs
):
    async with served(tmp_path, clock, monkeypatch):
        path = socket_path(tmp_path / "assistant.db")
        await eventually(path.exists)
        for mode in ("ask", "chat"):
            for _ in range(5):
                _reader, writer = await connect(path, {"mode": mode})
                writer.write(b'{"line": "/help"}\n')
                await closed(writer)
        asked = await command(tmp_path, "ask", "/notes")
    assert asked[0] == 0, asked
    no_errors(logs)


async def test_a_joined_chat_says_so_and_fails_when_the_assistant_stops(
    tmp_path, clock, monkeypatch
):
    async with served(tmp_path, clock, monkeypatch):
        await eventually(socket_path(tmp_path / "assistant.db").exists)
        process = await asyncio.create_subprocess_exec(
            *await _chat_command(tmp_path),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"},
        )  # fmt: skip
        assert process.stdout is not None and process.stderr is not None
        joined = await asyncio.wait_for(process.stdout.readline(), 60)
        greeting = await asyncio.wait_for(process.stdout.readline(), 60)
    async with asyncio.timeout(60):
        status = await process.wait()
    said = (await process.stderr.read()).decode()
    assert process.stdin is not None
    process.stdin.close()
    assert joined == b"(joined the running assistant)\n"
    assert greeting.startswith(b"assistant: type a message")
    assert status == 2 and "the assistant stopped" in said, said


async def _chat_command(folder: Path) -> list[str]:
    return [sys.executable, "-m", "assistant", "--config", config_beside(folder), "chat"]


def test_a_socket_path_too_long_for_unix_goes_to_a_short_private_folder(
    tmp_path, monkeypatch, short_runtime
):
    deep = tmp_path / ("folder-" * 16) / "assistant.db"
    assert len(os.fsencode(deep.parent / "assistant.sock")) > PATH_LIMIT
    here = socket_path(deep)
    assert here.parent.parent == short_runtime
    assert here.parent.name.startswith(f"assistant-{os.getuid()}-")
    assert socket_path(deep) == here  # the service and its terminals agree
    assert socket_path(tmp_path / "other" / ("x" * 100) / "assistant.db") != here
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert socket_path(deep).parent.parent == Path("/tmp")
    assert len(os.fsencode(socket_path(deep))) <= PATH_LIMIT
    short = tmp_path / "assistant.db"
    assert socket_path(short) == tmp_path / "assistant.sock"  # beside it, when it fits


async def test_a_deep_data_folder_is_joined_through_the_short_socket(
    tmp_path, clock, monkeypatch, short_runtime
):
    deep = tmp_path / ("folder-" * 16)
    deep.mkdir(mode=0o700)
    async with served(deep, clock, monkeypatch):
        path = socket_path(deep / "assistant.db")
        await eventually(path.exists)
        modes = stat.S_IMODE(path.parent.stat().st_mode), stat.S_IMODE(path.stat().st_mode)
        status, out, err = await command(deep, "chat", stdin=b"/note from deep down\n/notes\n")
    assert path.parent.parent == short_runtime and modes == (0o700, 0o600)
    assert status == 0, out + err
    assert "in use by another assistant" not in out + err
    assert out.startswith("(joined the running assistant)\n") and "from deep down" in out
    assert not path.exists()  # gone with the service


async def test_a_socket_folder_of_others_is_not_listened_in(tmp_path, logs):
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    door = Door(None, None, None, 0)  # listen refuses before it uses any of them
    await asyncio.wait_for(door.listen(folder / "assistant.sock"), 10)
    assert not (folder / "assistant.sock").exists()
    assert "is not this user's alone" in logs.text


async def test_a_socket_of_another_user_hears_nothing_from_the_terminal(tmp_path, monkeypatch):
    heard: list[bytes] = []

    async def impostor(reader, writer) -> None:
        heard.append(await reader.read())
        writer.close()

    server = await asyncio.start_unix_server(impostor, tmp_path / "assistant.sock")
    real = os.getuid()
    monkeypatch.setattr(wire.os, "getuid", lambda: real + 1)  # its owner is "someone else"
    async with server:
        with pytest.raises(AssistantError, match="is not this user's assistant"):
            await joining.ask(tmp_path / "assistant.sock", "my secrets", _Out())
        await eventually(lambda: bool(heard))
    assert heard == [b""]


class _Out:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
