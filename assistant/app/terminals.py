"""The running service's door for terminals on its own machine.

The service listens on a Unix socket in the data folder (``wire.socket_path``), its owner's
alone (0600 in a 0700 folder, and the peer's uid checked). Each connection is a terminal:
``chat`` (a console session on the same runtime, as the owner) or ``ask`` (one request). One
database owner, as ever: the terminal only relays lines in and text out.

The wire is JSON lines. The service speaks first: ``{"hello": 1}`` when it lets a terminal
in, or ``{"end": "full", "most": n}`` alone, and closes, when as many are connected as it
takes. The terminal then says ``{"hello": 1, "mode": "chat"|"ask", "color": b, "terminal":
b}``, sends ``{"line": text}`` or ``{"interrupt": true}``, and closes its side at the end of
input; the service sends ``{"out": text}`` and, last, ``{"end": how}``.

No terminal can hurt the service (``wire.Limits``): connections are capped, one that says nothing
is closed, output waits for the terminal that reads it (one that stops reading is let go), a
terminal that is gone has its remaining lines dropped unanswered, and nothing a connection
does escapes its session.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from assistant.agent import Pending, Person, Prompts
from assistant.agent.dialog.events import EventSink
from assistant.agent.front.chats import ChatQueues
from assistant.agent.front.response import Response
from assistant.app.runtime import Runtime
from assistant.app.wire import (
    LINE_LIMIT,
    Limits,
    Wire,
    encode,
    messages,
    peer_is_us,
    private_folder,
    remove,
    socket_path,
)
from assistant.channels.console import Console, Printer, Style
from assistant.errors import RunError
from assistant.llm.types import Attachment
from assistant.scheduler import Notice
from assistant.scheduler.delivery import Outbox

__all__ = ["BUSY", "Channel", "Door", "Limits", "Paced", "Queued", "Switchboard", "socket_path"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")

BUSY = "I am still busy with your earlier messages; try again in a moment."
_HERE: contextvars.ContextVar[Console | None] = contextvars.ContextVar("terminal", default=None)


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
            if pending.channel == "terminal":  # it left before its turn asked: refused
                raise RunError("the terminal that asked has left")
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
                answered = await self._here(self.runtime.answer(person, text, sink))
            except Exception as exc:
                if not done.done():
                    done.set_exception(exc)
                return
            if not done.done():  # not given up on: the terminal left, or the service stops
                done.set_result(answered)

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


class Paced:
    """A joined console's assistant: a line is taken once the terminal has what was said
    before, taking it makes room to read one more, and once the terminal is gone what is left
    is dropped unanswered."""

    def __init__(self, queued: Queued, wire: Wire, room: asyncio.Semaphore) -> None:
        self._queued = queued
        self._wire = wire
        self._room = room

    async def person(
        self, user_id: int, chat_id: int, name: str = "", language: str = ""
    ) -> Person:
        """Whom a line is from: the console takes each line with this (or with ``decide``)."""
        await self._taken()
        return await self._queued.person(user_id, chat_id, name, language)

    async def answer(
        self,
        person: Person,
        text: str,
        sink: EventSink | None = None,
        *,
        attachments: Sequence[Attachment] = (),
    ) -> Response:
        """The line answered, unless the terminal is gone."""
        if self._wire.gone:
            return Response("", ending="gone")
        return await self._queued.answer(person, text, sink, attachments=attachments)

    async def press(self, person: Person, data: str) -> Response:
        """A button pressed, unless the terminal is gone."""
        if self._wire.gone:
            return Response("", ending="gone")
        return await self._queued.press(person, data)

    async def located(self, person: Person, latitude: float, longitude: float) -> Response:
        """A location (a terminal shares none)."""
        return await self._queued.located(person, latitude, longitude)

    async def decide(self, token: str, user_id: int, approve: bool) -> str:
        """An approval answered, unless the terminal is gone."""
        await self._taken()
        if self._wire.gone:
            return ""
        return await self._queued.decide(token, user_id, approve)

    async def transcribe(
        self, audio: bytes, filename: str, person: Person | None = None, seconds: float = 0.0
    ) -> str:
        """Not used by a terminal."""
        return await self._queued.transcribe(audio, filename, person, seconds)

    async def _taken(self) -> None:
        self._room.release()
        await self._wire.drained()


@dataclass
class Door:
    """The socket and the sessions of the terminals that joined."""

    runtime: Runtime
    queues: ChatQueues
    board: Switchboard
    user_id: int
    sessions: set[asyncio.Task[None]] = field(default_factory=set)
    limits: Limits = field(default_factory=Limits)
    refused: int = 0  # connections told "full" since one was last let in

    async def listen(self, path: Path) -> None:
        """Serve terminals on ``path`` until cancelled; each session ends with it."""
        if not private_folder(path.parent):
            return
        remove(path)  # a stale socket: the database lock says no other service runs
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
            remove(path)

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection, whatever it does: nothing escapes (asyncio would log it as
        unhandled), and it never ends cancelled (asyncio's own callback would then fail)."""
        task = asyncio.current_task()
        assert task is not None
        try:
            await self._admit(task, reader, writer)
        except asyncio.CancelledError:
            pass  # the service stops
        except ConnectionError:
            log.debug("a terminal left mid-message")
        except Exception:
            log.exception("a terminal's session failed")
        finally:
            self.sessions.discard(task)
            writer.close()

    async def _admit(
        self, task: asyncio.Task[None], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """The owner's terminal, while there is room for it; else one line, and closed."""
        if not peer_is_us(writer):
            log.warning("a terminal of another user was refused")
            return
        if len(self.sessions) >= self.limits.terminals:
            self._refuse(writer)
            return
        if self.refused:
            log.warning("%d terminals were refused while the most were connected", self.refused)
            self.refused = 0
        self.sessions.add(task)
        await self._serve(reader, writer)

    def _refuse(self, writer: asyncio.StreamWriter) -> None:
        if not self.refused:
            log.warning("%d terminals are connected, the most there may be", self.limits.terminals)
        self.refused += 1
        writer.write(encode({"end": "full", "most": self.limits.terminals}))

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        wire = Wire(writer, self.limits)
        wire.send({"hello": 1})  # let in: the terminal says nothing before this
        incoming = messages(reader)
        hello = await self._heard(anext(incoming, None))
        if hello is None or hello.get("hello") != 1:
            return
        if hello.get("mode") == "ask":
            await self._ask(incoming, wire)
        else:
            await self._chat(hello, incoming, wire)

    async def _heard(self, said: Awaitable[dict[str, Any] | None]) -> dict[str, Any] | None:
        """What the terminal said, or None when it said nothing for ``hello_seconds``."""
        try:
            async with asyncio.timeout(self.limits.hello_seconds):
                return await said
        except TimeoutError:
            log.info("a terminal said nothing for %s s; closed", self.limits.hello_seconds)
            return None

    async def _chat(
        self, hello: dict[str, Any], incoming: AsyncIterator[dict[str, Any]], wire: Wire
    ) -> None:
        """A console on the runtime, as the owner, until it ends (with no idle limit: the
        person may be thinking; the cap on connections is what protects the service)."""
        folder = self.runtime.setup.database_path().parent / "exports"
        style = Style(hello.get("color") is True, hello.get("terminal") is True)
        console = Console(wire, self.user_id, style, folder)
        room = asyncio.Semaphore(self.limits.read_ahead)
        self.board.attach(console, self.user_id)
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(_relay(incoming, console, wire, room))
                await console.run(Paced(Queued(self.runtime, self.queues, console), wire, room))
                wire.send({"end": "done"})
                await wire.drained()
                raise _Done
        except* _Done:
            pass
        finally:
            self.board.detach(console)

    async def _ask(self, incoming: AsyncIterator[dict[str, Any]], wire: Wire) -> None:
        """One request, answered as ``ask`` answers it; an approval is asked in Telegram."""
        message = await self._heard(anext(incoming, None))
        text = message.get("line") if message else None
        if not isinstance(text, str):
            return
        person = await self.runtime.person(self.user_id, self.user_id, "")
        printer = Printer(wire)
        result = await Queued(self.runtime, self.queues).answer(person, text, printer.show)
        if result.streamed:
            printer.finish(result)
        else:
            wire.write(result.text + "\n")
        wire.send({"end": result.ending})
        await wire.drained()


class _Done(Exception):
    """The session's console ended: stop reading the terminal."""


async def _relay(
    incoming: AsyncIterator[dict[str, Any]], console: Console, wire: Wire, room: asyncio.Semaphore
) -> None:
    """The terminal's messages to its console, at most ``read_ahead`` lines ahead of it; once
    the terminal is gone, what it sent is not read on. Blank lines do nothing, so are not fed."""
    async for message in incoming:
        if wire.gone:
            break
        if message.get("interrupt") is True:
            console.interrupt()
        elif isinstance(line := message.get("line"), str) and line.strip():
            await room.acquire()  # given back as the console takes a line (``Paced``)
            console.feed(line if line.endswith("\n") else line + "\n")
    console.feed(None)
