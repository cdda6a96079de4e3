"""`assistant chat` in a real pseudo-terminal, read off the rendered screen as a person sees it."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import struct
import sys
import termios
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pyte
import pytest
from fakehttp import FakeServer, fake_server
from llm_fixtures import chat_stream

from assistant.channels.console import WholeLines

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pseudo-terminal")

COLUMNS, ROWS = 90, 60
WORDS = [f"word{n}" for n in range(1, 241)]
# Two paragraphs, each far wider than the terminal, streamed a few characters at a time.
ANSWER = " ".join(WORDS[:120]) + "\n\n" + " ".join(WORDS[120:])


class _Terminal(pyte.Screen):
    """A screen that answers the program's questions (where is the cursor?) as a terminal does."""

    def __init__(self, master: int) -> None:
        super().__init__(COLUMNS, ROWS)
        self._master = master

    def write_process_input(self, data: str) -> None:
        os.write(self._master, data.encode())


class Screen:
    """What a terminal shows, drawn from the bytes a program wrote to it."""

    def __init__(self, master: int) -> None:
        self._screen = _Terminal(master)
        self._stream = pyte.ByteStream(self._screen)
        self._master = master
        self._changed = asyncio.Event()
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self._master, 65536)
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self._master)
        self._stream.feed(data)
        self._changed.set()

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self._screen.display]

    async def wait(self, condition: Callable[[list[str]], bool], seconds: float = 30) -> None:
        async with asyncio.timeout(seconds):
            while not condition(self.lines()):
                self._changed.clear()
                await self._changed.wait()


@asynccontextmanager
async def chat_in_a_terminal(tmp_path: Path, server: FakeServer) -> AsyncIterator[Screen]:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[assistant]\ndata_dir = "{tmp_path / "data"}"\n'
        f'[llm]\nbase_url = "{server.url}/v1"\napi_key_env = "TEST_LLM_KEY"\n'
        'model = "m"\ntool_mode = "native"\n'
    )
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1", "TEST_LLM_KEY": "k"}
    env.pop("ASSISTANT_CONFIG", None)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assistant", "chat", "--config", str(config),
        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=tmp_path,
    )  # fmt: skip
    os.close(slave)
    screen = Screen(master)
    try:
        yield screen
    finally:
        os.write(master, b"\x04")  # Ctrl-D leaves
        try:
            async with asyncio.timeout(15):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()
        asyncio.get_running_loop().remove_reader(master)
        os.close(master)


def _prompt_line(lines: list[str]) -> str:
    shown = [line for line in lines if line]
    return shown[-1] if shown else ""


async def test_a_streamed_answer_stays_on_screen_whole_above_a_usable_prompt(tmp_path) -> None:
    async with fake_server() as server:
        pieces = tuple(ANSWER[i : i + 7] for i in range(0, len(ANSWER), 7))
        server.script(_paced(pieces))
        async with chat_in_a_terminal(tmp_path, server) as screen:
            await screen.wait(lambda lines: _prompt_line(lines).startswith("›"))
            os.write(screen._master, b"tell me a long story\r")
            await screen.wait(lambda lines: any("word60" in line for line in lines))
            os.write(screen._master, b"draft")  # typed while the answer streams
            await screen.wait(lambda lines: any("word240" in line for line in lines))
            await screen.wait(lambda lines: _prompt_line(lines) == "› draft")
            lines = screen.lines()
    shown = " ".join(" ".join(lines).split())
    assert " ".join(WORDS) in shown, "\n".join(lines)
    assert not any("WARNING" in line for line in lines)
    assert _prompt_line(lines) == "› draft"
    greeting = next(i for i, line in enumerate(lines) if line.startswith("assistant: type"))
    assert lines.index("› tell me a long story") > greeting  # the prompt came after the greeting


def _paced(pieces: tuple[str, ...]):
    reply = chat_stream(pieces)
    reply.gap = 0.004
    return reply


def test_whole_lines_hold_an_open_line_and_cut_a_wide_one_at_a_space() -> None:
    written: list[str] = []

    class Out:
        def write(self, text: str) -> int:
            written.append(text)
            return len(text)

        def flush(self) -> None:
            pass

    out = WholeLines(Out(), lambda: 20)
    out.write("hello ")
    out.write("there")
    assert written == []
    out.write(" and a line the terminal wraps itself\nnext")
    assert "".join(written) == "hello there and a line the terminal wraps itself\n"
    written.clear()
    out.write(" and an open line that goes past the edge")
    assert "".join(written) == "next and an open\nline that goes past\n"
    out.write("\n")
    assert "".join(written).endswith("past\nthe edge\n")


async def test_the_terminal_shows_it_is_working_and_clears_it_when_words_come(tmp_path) -> None:
    release = asyncio.Event()

    async def slow(request):
        await release.wait()
        return chat_stream(("The answer ", "is here."))

    async with fake_server() as server:
        server.script(slow)
        async with chat_in_a_terminal(tmp_path, server) as screen:
            await screen.wait(lambda lines: _prompt_line(lines).startswith("›"))
            os.write(screen._master, b"tell me something\r")
            await screen.wait(lambda lines: any(line.strip() == "…" for line in lines))
            release.set()
            await screen.wait(lambda lines: any("The answer is here." in line for line in lines))
            lines = screen.lines()
    assert not any(line.strip() == "…" for line in lines), "\n".join(lines)
