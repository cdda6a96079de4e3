"""The running service's door for terminals on its own machine.

The service listens on a Unix socket in the data folder, its owner's alone (0600 in a 0700
folder, and the peer's uid checked). Each connection is a terminal: ``chat`` (a console
session on the same runtime, as the owner) or ``ask`` (one request). One database owner, as
ever: the terminal only relays lines in and text out.

The wire is JSON lines. The terminal says ``{"hello": 1, "mode": "chat"|"ask", "color": b,
"terminal": b}``,
then ``{"line": text}`` or ``{"interrupt": true}``, and closes its side at the end of input;
the service sends ``{"out": text}`` and, last, ``{"end": how}``.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import os
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from assistant.agent import Pending, Person, Prompts
from assistant.agent.dialog.events import EventSink
from assistant.agent.front.chats import ChatQueues
from assistant.agent.front.response import Response
from assistant.app.runtime import Runtime
from assistant.channels.console import Console, Printer, Style
from assistant.llm.types import Attachment
from assistant.scheduler import Notice
from assistant.scheduler.delivery import Outbox

log = logging.getLogger(__name__)
_T = TypeVar("_T")

SOCKET_NAME = "assistant.sock"
LINE_LIMIT = 1 << 20
BUSY = "I am still busy with your earlier messages; try again in a moment."
_HERE: contextvars.ContextVar[Console | None] = contextvars.ContextVar("terminal", default=None)


def socket_path(database: Path) -> Path:
    """Where the service listens, beside its database."""
    return database.parent / SOCKET_NAME


def encode(message: dict[str, Any]) -> bytes:
    """One message of the wire."""
    return json.dumps(message, ensure_ascii=False).encode() + b"\n"


async def messages(reader: asyncio.StreamReader) -> AsyncIterator[dict[str, Any]]:
    """The messages of the wire until it closes; a line that is not one ends it."""
    while True:
        try:
            raw = await reader.readline()
        except (ValueError, ConnectionError):  # a line over the limit, a reset
            return
        if not raw:
            return
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):
            return
        if not isinstance(message, dict):
            return
        yield message


class Wire:
    """A console's output, sent to the terminal that joined."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, text: str, /) -> int:
        """Send text (dropped once the terminal is gone)."""
        if not self._writer.is_closing():
            self._writer.write(encode({"out": text}))
        return len(text)

    def flush(self) -> None:
        """Sent as written."""


class Channel(Outbox, Prompts, Protocol):
    """What the switchboard stands in front of: a channel's outbox and approval prompts."""


class Switchboard:
    """The service's outbox and approval prompts: Telegram, and the terminal a turn came from.

    An approval asked by a terminal's turn is asked at that terminal (as a standalone chat
    does); everything else goes to the channel. Notices also print at the owner's terminals.
    """

    def __init__(self, channel: Channel) -> None:
        self._channel = channel
        self._consoles: dict[Console, int] = {}
        self._asked_at: dict[str, Console] = {}

    def attach(self, console: Console, user_id: int) -> None:
        """A terminal joined."""
        self._consoles[console] = user_id

    def detach(self, console: Console) -> None:
        """A terminal left."""
        self._consoles.pop(console, None)
        for token in [t for t, c in self._asked_at.items() if c is console]:
            del self._asked_at[token]

    async def deliver(self, notice: Notice) -> int:
        """Deliver through the channel, and print it at the person's terminals."""
        message_id: int = await self._channel.deliver(notice)
        for console, user_id in list(self._consoles.items()):
            if user_id == notice.owner.user_id:
                await console.deliver(notice)
        return message_id

    async def present(self, pending: Pending) -> int | None:
        """Ask where the turn came from: its terminal, else the channel."""
        console = _HERE.get()
        if console is None or console not in self._consoles:
            shown: int | None = await self._channel.present(pending)
            return shown
        self._asked_at[pending.token] = console
        await console.present(pending)
        return None  # no channel message to edit later

    async def close(self, pending: Pending, outcome: str) -> None:
        """Say how it ended where it was asked; a terminal's approval whose terminal has gone
        is not forwarded to the chat, where it was never seen (its end is in the audit)."""
        console = self._asked_at.pop(pending.token, None)
        if console is not None and console in self._consoles:
            await console.close(pending, outcome)
        elif pending.channel == "terminal":
            log.info("approval %s ended after its terminal left", pending.token)
        else:
            await self._channel.close(pending, outcome)


@dataclass
class Queued:
    """The runtime as a joined terminal sees it: its words wait in the chat's queue behind the
    chat's other messages, so one conversation never runs two turns at once."""

    runtime: Runtime
    queues: ChatQueues
    console: Console | None = None  # None for one request: its approvals go to the channel

    async def person(
        self, user_id: int, chat_id: int, name: str = "", language: str = ""
    ) -> Person:
        """Whom a message is from, and where: at this terminal (where its approvals are
        shown and answered), or for one request (its approvals go to the chat)."""
        person = await self.runtime.person(user_id, chat_id, name, language)
        return replace(person, channel="terminal") if self.console is not None else person

    async def answer(
        self,
        person: Person,
        text: str,
        sink: EventSink | None = None,
        *,
        attachments: Sequence[Attachment] = (),
    ) -> Response:
        """A command at once (``/stop`` must not wait); words in the chat's queue."""
        if text.startswith("/"):
            return await self._here(self.runtime.answer(person, text, sink))
        done: asyncio.Future[Response] = asyncio.get_running_loop().create_future()

        async def job() -> None:
            try:
                done.set_result(await self._here(self.runtime.answer(person, text, sink)))
            except Exception as exc:
                done.set_exception(exc)

        if not self.queues.submit(person.chat_id, job):
            return Response(BUSY)
        return await done

    async def press(self, person: Person, data: str) -> Response:
        """What a button does."""
        return await self._here(self.runtime.press(person, data))

    async def located(self, person: Person, latitude: float, longitude: float) -> Response:
        """A location (a terminal shares none, but the protocol has it)."""
        return await self.runtime.located(person, latitude, longitude)

    async def decide(self, token: str, user_id: int, approve: bool) -> str:
        """Answer an approval."""
        return await self.runtime.decide(token, user_id, approve)

    async def transcribe(
        self, audio: bytes, filename: str, person: Person | None = None, seconds: float = 0.0
    ) -> str:
        """Not used by a terminal."""
        return await self.runtime.transcribe(audio, filename, person, seconds)

    async def _here(self, step: Awaitable[_T]) -> _T:
        token = _HERE.set(self.console)
        try:
            return await step
        finally:
            _HERE.reset(token)


@dataclass
class Door:
    """The socket and the sessions of the terminals that joined."""

    runtime: Runtime
    queues: ChatQueues
    board: Switchboard
    user_id: int
    sessions: set[asyncio.Task[None]] = field(default_factory=set)

    async def listen(self, path: Path) -> None:
        """Serve terminals on ``path`` until cancelled; each session ends with it."""
        _remove(path)  # a stale socket: the database lock says no other service runs
        try:
            server = await asyncio.start_unix_server(self._session, path, limit=LINE_LIMIT)
        except OSError as exc:
            log.warning("terminals cannot join (%s: %s)", path, exc.strerror or exc)
            return
        os.chmod(path, 0o600)
        try:
            async with server:
                await server.serve_forever()
        finally:
            for session in list(self.sessions):
                session.cancel()
            await asyncio.gather(*self.sessions, return_exceptions=True)
            _remove(path)

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        try:
            if _peer_is_us(writer):
                await self._serve(reader, writer)
            else:
                log.warning("a terminal of another user was refused")
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.sessions.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        incoming = messages(reader)
        hello = await anext(incoming, None)
        if hello is None or hello.get("hello") != 1:
            return
        if hello.get("mode") == "ask":
            await self._ask(incoming, writer)
            return
        folder = self.runtime.setup.database_path().parent / "exports"
        style = Style(hello.get("color") is True, hello.get("terminal") is True)
        console = Console(Wire(writer), self.user_id, style, folder)
        self.board.attach(console, self.user_id)
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(_relay(incoming, console))
                await console.run(Queued(self.runtime, self.queues, console))
                writer.write(encode({"end": "done"}))
                await writer.drain()
                raise _Done
        except* _Done:
            pass
        finally:
            self.board.detach(console)

    async def _ask(
        self, incoming: AsyncIterator[dict[str, Any]], writer: asyncio.StreamWriter
    ) -> None:
        """One request, answered as ``ask`` answers it; an approval is asked in Telegram."""
        message = await anext(incoming, None)
        text = message.get("line") if message else None
        if not isinstance(text, str):
            return
        person = await self.runtime.person(self.user_id, self.user_id, "")
        printer = Printer(Wire(writer))
        result = await Queued(self.runtime, self.queues).answer(person, text, printer.show)
        if result.streamed:
            printer.finish(result)
        else:
            Wire(writer).write(result.text + "\n")
        writer.write(encode({"end": result.ending}))
        await writer.drain()


class _Done(Exception):
    """The session's console ended: stop reading the terminal."""


async def _relay(incoming: AsyncIterator[dict[str, Any]], console: Console) -> None:
    async for message in incoming:
        if message.get("interrupt") is True:
            console.interrupt()
        elif isinstance(line := message.get("line"), str):
            console.feed(line if line.endswith("\n") else line + "\n")
    console.feed(None)


def _remove(path: Path) -> None:
    with suppress(OSError):
        os.unlink(path)


def _peer_is_us(writer: asyncio.StreamWriter) -> bool:
    """Whether the process at the other end runs as this one's user (fails closed)."""
    sock = writer.get_extra_info("socket")
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return False
    _pid, uid, _gid = struct.unpack("3i", raw)
    return bool(uid == os.getuid())
