"""One outside server kept connected: started, listed, called, watched, and restarted with
backoff when it fails, until the assistant stops."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack, suppress
from typing import Any, TextIO

import anyio
import httpx2
import mcp_types as types
import psutil
from anyio.streams.memory import MemoryObjectSendStream
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from assistant.errors import ToolError
from assistant.mcp.content import outcome
from assistant.mcp.names import exposed_name, offered
from assistant.mcp.remote import Backoff, Outcome, RemoteTool, ServerSpec, State
from assistant.redaction import redact_known

log = logging.getLogger(__name__)
MAX_PAGES = 50  # of a tool listing
MAX_DESCRIPTION = 1_000  # characters of a tool's description the model is shown
_LOST = (types.CONNECTION_CLOSED,)
Item = SessionMessage | Exception


class Connection:
    """A server's connection and what is known of it: state, reason, tools."""

    def __init__(
        self,
        spec: ServerSpec,
        backoff: Backoff,
        changed: Callable[[], None],
        spawning: asyncio.Lock,
    ) -> None:
        self.spec = spec
        self.state: State = "starting"
        self.reason = ""
        self.tools: tuple[RemoteTool, ...] = ()
        self.failures = 0
        self.settled = asyncio.Event()  # the first attempt has ended, either way
        self._backoff = backoff
        self._changed = changed
        self._session: ClientSession | None = None
        self._lost = asyncio.Event()
        self._lost_reason = ""
        self._scope = anyio.CancelScope()
        self._spawning = spawning  # one server started at a time, so its process is known

    async def run(self) -> None:
        """Connect, serve until the connection is lost, wait, and again; until stopped."""
        with self._scope:
            while True:
                try:
                    await self._attempt()
                except Exception as exc:  # a bug of ours must not end the supervision
                    log.exception("MCP server %s: unexpected failure", self.spec.name)
                    self._down(f"internal error ({type(exc).__name__})")
                await asyncio.sleep(self._backoff.after(self.failures))

    def stop(self) -> None:
        """End the supervision. An anyio cancellation, not a task's: the SDK shields the
        ending of a server's process tree from it, so the process is never left behind."""
        self._scope.cancel()

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> Outcome:
        """Call one of the server's tools; a lost connection is noticed and said."""
        session = self._session
        if session is None or self.state != "up":
            raise ToolError(f"the {self.spec.name} server is not connected: {self.reason}")
        try:
            result = await session.call_tool(tool, dict(arguments))
        except MCPError as exc:
            if _gone(exc):
                self._lose("the connection or its session ended during a call")
                raise ToolError(f"the {self.spec.name} server went away during the call") from None
            raise ToolError(f"the {self.spec.name} server refused: {exc.error.message}") from None
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, httpx2.TransportError):
            self._lose("the connection broke during a call")
            raise ToolError(f"the {self.spec.name} server went away during the call") from None
        return outcome(result)

    async def _attempt(self) -> None:
        if self.spec.missing:
            names = ", ".join(f"${name}" for name in self.spec.missing)
            self._down(f"{names} not set in the environment")
            return
        self._lost.clear()
        self._lost_reason = ""
        try:
            async with AsyncExitStack() as stack:
                try:
                    async with asyncio.timeout(self.spec.connect_timeout):
                        session = await self._open(stack)
                        tools = await self._list(session)
                except TimeoutError:
                    self._down(f"no answer within {self.spec.connect_timeout:g} s")
                    return
                self._up(session, tools)
                await self._lost.wait()
                self._down(self._lost_reason)
        except Exception as exc:
            self._down(self._lost_reason or self._explain(exc))
        finally:
            self._session = None

    async def _open(self, stack: AsyncExitStack) -> ClientSession:
        read, write = await self._transport(stack)
        send, receive = anyio.create_memory_object_stream[Item](0)
        group = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(group.cancel_scope.cancel)
        group.start_soon(self._relay, read, send)
        session = await stack.enter_async_context(ClientSession(receive, write))
        await session.initialize()
        return session

    async def _transport(self, stack: AsyncExitStack) -> tuple[Any, Any]:
        spec = self.spec
        if spec.command:
            params = StdioServerParameters(
                command=spec.command[0],
                args=list(spec.command[1:]),
                env=dict(spec.env),
                cwd=spec.cwd,
            )
            errlog = stack.enter_context(_errlog(spec))
            async with self._spawning:
                before = {p.pid for p in psutil.Process().children()}
                streams = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                started = [p.pid for p in psutil.Process().children() if p.pid not in before]
            # Ends what the SDK leaves: a server that exits when its input closes can leave
            # children of its own behind; its session's process group is all of them.
            for pid in started:
                stack.push_async_callback(_end_group, pid)
            return streams
        client = httpx2.AsyncClient(
            headers=dict(spec.headers), timeout=httpx2.Timeout(30, read=300)
        )
        await stack.enter_async_context(client)
        return await stack.enter_async_context(streamable_http_client(spec.url, http_client=client))

    async def _relay(self, read: Any, send: MemoryObjectSendStream[Item]) -> None:
        """Pass messages to the session, and notice when the server's side ends."""
        try:
            async with send:
                async for item in read:
                    if isinstance(item, httpx2.TransportError | OSError):
                        self._lose(f"the connection broke ({type(item).__name__})")
                    await send.send(item)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
        self._lose(self._exit_reason())

    async def _list(self, session: ClientSession) -> tuple[RemoteTool, ...]:
        found: list[RemoteTool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
            found.extend(self._remote(t) for t in page.tools if self._offered(t.name))
            cursor = page.next_cursor
            if not cursor:
                break
        return tuple(found)

    def _offered(self, name: str) -> bool:
        return offered(name, self.spec.include, self.spec.exclude)

    def _remote(self, tool: types.Tool) -> RemoteTool:
        hint = tool.annotations.read_only_hint if tool.annotations else None
        description = (tool.description or tool.title or tool.name)[:MAX_DESCRIPTION]
        return RemoteTool(
            self.spec.name,
            tool.name,
            exposed_name(self.spec.name, tool.name),
            description,
            dict(tool.input_schema),
            hint is True,
        )

    def _lose(self, reason: str) -> None:
        if not self._lost.is_set():
            self._lost_reason = reason
            self._lost.set()

    def _up(self, session: ClientSession, tools: tuple[RemoteTool, ...]) -> None:
        self._session, self.tools = session, tools
        self.state, self.reason, self.failures = "up", "", 0
        log.info("MCP server %s is up with %d tools", self.spec.name, len(tools))
        self.settled.set()
        self._changed()

    def _down(self, reason: str) -> None:
        self._session, self.tools = None, ()
        self.state, self.reason = "down", redact_known(reason)
        self.failures += 1
        wait = self._backoff.after(self.failures)
        log.warning(
            "MCP server %s is down: %s; retrying in %g s", self.spec.name, self.reason, wait
        )
        self.settled.set()
        self._changed()

    def _exit_reason(self) -> str:
        if self.spec.command:
            last = _last_line(self.spec)
            return "the server exited" + (f": {last}" if last else "")
        return "the server closed the connection"

    def _explain(self, exc: BaseException) -> str:
        if isinstance(exc, BaseExceptionGroup):
            return self._explain(exc.exceptions[0])
        if isinstance(exc, OSError) and self.spec.command:
            return f"cannot start {self.spec.command[0]!r}: {exc.strerror or exc}"
        if isinstance(exc, httpx2.TransportError | OSError):
            return f"cannot connect to {self.spec.url} ({type(exc).__name__})"
        if isinstance(exc, MCPError):
            lost = exc.error.code in _LOST
            return self._exit_reason() if lost else f"the server refused: {exc.error.message}"
        return f"{type(exc).__name__}: {exc}"[:300]


def _gone(exc: MCPError) -> bool:
    """Whether an error says the connection or the HTTP session is gone (a server restarted
    answers 404 for a session it does not know): then a new session is made."""
    message = exc.error.message.lower()
    ended = any(word in message for word in ("not found", "terminated", "expired", "unknown"))
    return exc.error.code in _LOST or ("session" in message and ended)


async def _end_group(pgid: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _errlog(spec: ServerSpec) -> TextIO:
    """Where the server's stderr goes: its log file in the data folder, else nowhere."""
    if spec.errlog is None:
        return open(os.devnull, "w")
    spec.errlog.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return open(spec.errlog, "w", encoding="utf-8", errors="replace", opener=_private)


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


def _last_line(spec: ServerSpec) -> str:
    if spec.errlog is None:
        return ""
    try:
        with open(spec.errlog, "rb") as file:
            file.seek(max(file.seek(0, os.SEEK_END) - 2000, 0))
            lines = file.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1][:200] if lines else ""
