"""A terminal that joins the running service: ``chat`` and ``ask`` relayed over its socket.

Lines go in as they are typed (at a prompt, or from a pipe); what the service writes comes out
as it comes. Ctrl-C is sent on as an interrupt, so the service's console stops the answer (and
leaves on a second one), exactly as a standalone chat does. A chat says that it joined; the
service stopping under it, or having no room for it, is the command's error (exit 2).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from assistant.app import datadir
from assistant.app.wire import LINE_LIMIT, encode, messages, peer_is_us, socket_path
from assistant.channels.console import Output
from assistant.channels.stdin import INTERRUPT
from assistant.errors import AssistantError

log = logging.getLogger(__name__)

JOINED = "(joined the running assistant)"
LET_IN_SECONDS = 30.0  # for the service to let this terminal in (it does so at once)
FULL = (
    "the running assistant has as many terminals joined as it takes; leave one of them (or "
    "wait for one to end) and try again."
)
Messages = AsyncIterator[dict[str, Any]]


def running_service(database: Path) -> Path | None:
    """The socket of the service that holds the database, when one runs and listens."""
    path = socket_path(database)
    if datadir.holder(database) is None or not path.is_socket():
        return None
    return path


async def ask(path: Path, text: str, out: Output) -> str:
    """One request to the running service; returns how it ended."""
    incoming, writer = await _connect(path, {"mode": "ask", "color": False})
    try:
        writer.write(encode({"line": text}))
        ending = await _print(incoming, out)
    finally:
        writer.close()
    if failure := _failure(ending, "the assistant stopped before it answered."):
        raise failure
    return ending


async def chat(
    path: Path, lines: AsyncIterator[str], out: Output, *, color: bool, terminal: bool = False
) -> None:
    """Relay ``lines`` to the running service and its output back, until it ends the chat."""
    hello = {"mode": "chat", "color": color, "terminal": terminal}
    incoming, writer = await _connect(path, hello)
    out.write(JOINED + "\n")
    out.flush()
    try:
        async with asyncio.TaskGroup() as group:
            sending = group.create_task(_send(lines, writer))
            ending = await _print(incoming, out)
            sending.cancel()
    finally:
        writer.close()
    if failure := _failure(ending, "the assistant stopped, and this chat with it."):
        raise failure


def _failure(ending: str, stopped: str) -> AssistantError | None:
    """The command's error when the service stopped (``stopped`` says so) or refused it."""
    if ending == "full":
        return AssistantError(FULL)
    return AssistantError(stopped) if ending == "gone" else None


async def _connect(path: Path, hello: dict[str, Any]) -> tuple[Messages, asyncio.StreamWriter]:
    """Wait to be let in, then say hello: nothing is sent to a service that refused (a write
    to its closed socket would lose the line that says why)."""
    reader, writer = await asyncio.open_unix_connection(path, limit=LINE_LIMIT)
    if not peer_is_us(writer):  # a socket put there by someone else hears nothing from us
        writer.close()
        raise AssistantError(f"{path}: is not this user's assistant, so it was not joined.")
    incoming = messages(reader)
    try:
        async with asyncio.timeout(LET_IN_SECONDS):
            first = await anext(incoming, None)
    except TimeoutError:
        first = None
    if first is None or first.get("hello") != 1:
        writer.close()
        full = first is not None and first.get("end") == "full"
        raise AssistantError(FULL if full else "the running assistant did not let it in.")
    writer.write(encode({"hello": 1, **hello}))
    return incoming, writer


async def _send(lines: AsyncIterator[str], writer: asyncio.StreamWriter) -> None:
    """Each line to the service; when it has gone, what it said last (or not) tells."""
    try:
        async for line in lines:
            writer.write(encode({"interrupt": True} if line == INTERRUPT else {"line": line}))
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except ConnectionError:
        log.debug("the service closed the socket while lines were sent")


async def _print(incoming: Messages, out: Output) -> str:
    """Write what the service sends until it ends; returns how it ended ("gone" when it
    closed without saying)."""
    async for message in incoming:
        if isinstance(text := message.get("out"), str):
            out.write(text)
            out.flush()
        elif isinstance(ending := message.get("end"), str):
            return ending
    return "gone"
