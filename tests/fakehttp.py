"""A tiny HTTP/1.1 server on 127.0.0.1 for fakes of the APIs our real clients talk to.

A test scripts the replies; the server records every request it got. JSON replies carry a
Content-Length; server-sent events go out chunked, one chunk per event, so clients stream.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from assistant.llm.probe import ASK as PROBE_ASK


@dataclass
class Received:
    """One request as the server read it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Reply:
    """What to answer: a status with JSON, or server-sent events (each a JSON value or text)."""

    status: int = 200
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    events: Sequence[Any] | None = None
    raw: bytes | None = None  # a body sent as is (set content-type in headers)
    trickle: asyncio.Event | None = None  # send the headers, then wait for this before the body
    hold: asyncio.Event | None = None  # wait for this before answering (a slow server)
    gap: float = 0.0  # seconds between events, as a model writes


Handler = Callable[[Received], Awaitable[Reply] | Reply]


class FakeServer:
    """Answers each request with the next scripted reply (or a handler's), recording requests.

    The assistant's tool-mode probe is answered apart, as a server with native tool calls
    answers it, unless a test scripts the probe's replies; probes are recorded in ``probes``.
    Questions about the context window (``/props``, ``/models``, ``/api/show``) are answered
    404, as by a server that does not say, unless a test sets ``windows[path]``.
    """

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.replies: list[Reply | Handler] = []
        self.probes: list[Received] = []
        self.probe_replies: list[Reply] = []
        self.windows: dict[str, Reply] = {}
        self.window_questions: list[Received] = []
        self.default: Handler | None = None  # answers whatever was not scripted
        self.arrived = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.url = ""

    def script(self, *replies: Reply | Handler) -> None:
        self.replies.extend(replies)

    def script_probe(self, *replies: Reply) -> None:
        self.probe_replies.extend(replies)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for writer in self._writers:
                writer.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while request := await _read(reader):
                if request.path.endswith(_WINDOW_PATHS):
                    self.window_questions.append(request)
                    path = request.path.partition("?")[0]
                    await _write(writer, self.windows.get(path, Reply(404, {"error": "no"})))
                    continue
                if _PROBE in request.body:
                    self.probes.append(request)
                    reply = self.probe_replies.pop(0) if self.probe_replies else _native_ping()
                    await _write(writer, reply)
                    continue
                self.requests.append(request)
                self.arrived.set()
                reply = await self._reply_for(request)
                if reply.hold is not None:
                    await reply.hold.wait()
                await _write(writer, reply)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _reply_for(self, request: Received) -> Reply:
        if not self.replies and self.default is not None:
            scripted: Reply | Handler = self.default
        elif not self.replies:
            return Reply(500, {"error": {"message": "the test scripted no reply for this"}})
        else:
            scripted = self.replies.pop(0)
        if isinstance(scripted, Reply):
            return scripted
        result = scripted(request)
        return await result if not isinstance(result, Reply) else result


_WINDOW_PATHS = ("/props", "/models", "/api/show")
_PROBE = json.dumps(PROBE_ASK).encode()[1:-1]


def _native_ping() -> Reply:
    """The probe's answer from a server that makes real tool calls."""
    call = {"id": "p", "type": "function", "function": {"name": "ping", "arguments": "{}"}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return Reply(json={"id": "x", "object": "chat.completion", "created": 1, "choices": [choice]})


async def _read(reader: asyncio.StreamReader) -> Received | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _ = line.decode().split(" ", 2)
    headers: dict[str, str] = {}
    while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = header.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return Received(method, path, headers, body)


async def _write(writer: asyncio.StreamWriter, reply: Reply) -> None:
    head = [f"HTTP/1.1 {reply.status} X"]
    head += [f"{k}: {v}" for k, v in reply.headers.items()]
    if reply.raw is not None:
        head.append(f"content-length: {len(reply.raw)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        if reply.trickle is not None:
            writer.write(reply.raw[:1])
            await writer.drain()
            await reply.trickle.wait()
        writer.write(reply.raw[1:] if reply.trickle is not None else reply.raw)
        await writer.drain()
        return
    if reply.events is None:
        body = json.dumps(reply.json).encode()
        head += ["content-type: application/json", f"content-length: {len(body)}"]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()
        return
    head += ["content-type: text/event-stream", "transfer-encoding: chunked"]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
    for event in reply.events:
        data = event if isinstance(event, str) else f"data: {json.dumps(event)}\n\n"
        chunk = data.encode()
        writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        await writer.drain()
        if reply.gap:
            await asyncio.sleep(reply.gap)
    writer.write(b"0\r\n\r\n")
    await writer.drain()


@asynccontextmanager
async def fake_server() -> AsyncIterator[FakeServer]:
    server = FakeServer()
    await server.start()
    try:
        yield server
    finally:
        await server.close()
