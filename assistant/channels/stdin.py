"""What is typed at this terminal, as lines: at a prompt with line editing and history, or
from a pipe or a file, read on the event loop (no thread that could hold the stream at exit)."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import BinaryIO

LINE_LIMIT = 1 << 20  # a longer line is taken in pieces
INTERRUPT = "\x03"  # what a line source yields for Ctrl-C


async def prompt_lines(history: Path, prompt: str) -> AsyncIterator[str]:
    """Lines typed at a prompt with line editing and history; Ctrl-C is ``INTERRUPT``."""
    from prompt_toolkit import PromptSession  # a terminal only: not imported otherwise
    from prompt_toolkit.history import FileHistory

    session: PromptSession[str] = PromptSession(history=FileHistory(str(history)))
    while True:
        try:
            yield await session.prompt_async(prompt) + "\n"
        except KeyboardInterrupt:
            yield INTERRUPT
        except EOFError:
            return


async def stdin_lines(stream: BinaryIO | None = None) -> AsyncIterator[str]:
    """Lines of standard input (a pipe or a file) as they come, without a thread that could
    hold the stream at exit; bytes that are not UTF-8 become U+FFFD instead of ending the chat."""
    source = stream if stream is not None else sys.stdin.buffer
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    if not _streams(source):  # a file, /dev/null, a buffer: it has an end, read it whole
        data = await asyncio.to_thread(source.read)
        for raw in data.splitlines(keepends=True):
            yield raw.decode("utf-8", "replace")
        return
    transport, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), source
    )
    try:
        while raw := await _line(reader):
            yield raw.decode("utf-8", "replace")
    finally:
        transport.close()


def _streams(source: BinaryIO) -> bool:
    """Whether ``source`` is a pipe or a socket, which the event loop can wait on."""
    try:
        mode = os.fstat(source.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _line(reader: asyncio.StreamReader) -> bytes:
    """One line, or a piece of a line longer than the limit (never an error)."""
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as end:
        return end.partial
    except asyncio.LimitOverrunError as long:
        return await reader.readexactly(long.consumed)
