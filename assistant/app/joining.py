"""A terminal that joins the running service: ``chat`` and ``ask`` relayed over its socket.

Lines go in as they are typed (at a prompt, or from a pipe); what the service writes comes out
as it comes. Ctrl-C is sent on as an interrupt, so the service's console stops the answer (and
leaves on a second one), exactly as a standalone chat does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from assistant.app import datadir
from assistant.app.terminals import LINE_LIMIT, encode, messages, socket_path
from assistant.channels.console import Output
from assistant.channels.stdin import INTERRUPT

log = logging.getLogger(__name__)


def running_service(database: Path) -> Path | None:
    """The socket of the service that holds the database, when one runs and listens."""
    path = socket_path(database)
    if datadir.holder(database) is None or not path.is_socket():
        return None
    return path


async def ask(path: Path, text: str, out: Output) -> str:
    """One request to the running service; returns how it ended."""
    reader, writer = await _connect(path, {"mode": "ask", "color": False})
    writer.write(encode({"line": text}))
    await writer.drain()
    try:
        return await _print(reader, out)
    finally:
        writer.close()


async def chat(
    path: Path, lines: AsyncIterator[str], out: Output, *, color: bool, terminal: bool = False
) -> None:
    """Relay ``lines`` to the running service and its output back, until it ends the chat."""
    reader, writer = await _connect(path, {"mode": "chat", "color": color, "terminal": terminal})
    try:
        async with asyncio.TaskGroup() as group:
            sending = group.create_task(_send(lines, writer))
            await _print(reader, out)
            sending.cancel()
    finally:
        writer.close()


async def _connect(
    path: Path, hello: dict[str, Any]
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_unix_connection(path, limit=LINE_LIMIT)
    writer.write(encode({"hello": 1, **hello}))
    return reader, writer


async def _send(lines: AsyncIterator[str], writer: asyncio.StreamWriter) -> None:
    async for line in lines:
        writer.write(encode({"interrupt": True} if line == INTERRUPT else {"line": line}))
        await writer.drain()
    if writer.can_write_eof():
        writer.write_eof()


async def _print(reader: asyncio.StreamReader, out: Output) -> str:
    """Write what the service sends until it ends; returns how it ended."""
    async for message in messages(reader):
        if isinstance(text := message.get("out"), str):
            out.write(text)
            out.flush()
        elif isinstance(ending := message.get("end"), str):
            return ending
    return "gone"
