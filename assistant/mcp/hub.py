"""Every configured server, started together and supervised for the life of the assistant."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType

from assistant.errors import ToolError
from assistant.mcp.connection import Connection
from assistant.mcp.remote import Backoff, Outcome, RemoteTool, ServerSpec

log = logging.getLogger(__name__)
SETTLE_SLACK = 1.0  # seconds beyond the connect timeout for a failed start to be recorded


class Hub:
    """The servers' connections: started concurrently, each bounded by its connect timeout,
    retried in the background, and all ended (process trees included) on the way out."""

    def __init__(
        self,
        specs: Sequence[ServerSpec] = (),
        *,
        backoff: Backoff | None = None,
    ) -> None:
        spawning = asyncio.Lock()
        self._connections = {
            spec.name: Connection(spec, backoff or Backoff(), self._changed, spawning)
            for spec in specs
        }
        self._group: asyncio.TaskGroup | None = None
        self.version = 0  # moves on with every change of what is offered
        self._tick = asyncio.Event()  # set and replaced at every change

    async def __aenter__(self) -> Hub:
        self._group = asyncio.TaskGroup()
        await self._group.__aenter__()
        for connection in self._connections.values():
            self._group.create_task(connection.run())
        await self.settled()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for connection in self._connections.values():
            connection.stop()
        if self._group is not None:
            await self._group.__aexit__(kind, exc, traceback)

    async def settled(self) -> None:
        """Wait until every server has been tried once, or its connect timeout has passed."""
        waits = [self._settle(c) for c in self._connections.values()]
        await asyncio.gather(*waits)

    async def _settle(self, connection: Connection) -> None:
        try:
            async with asyncio.timeout(connection.spec.connect_timeout + SETTLE_SLACK):
                await connection.settled.wait()
        except TimeoutError:
            log.warning("MCP server %s did not settle in time", connection.spec.name)

    def __iter__(self) -> Iterator[Connection]:
        return iter(self._connections.values())

    def tools(self) -> list[RemoteTool]:
        """The tools of the servers that are up, in config order."""
        return [t for c in self._connections.values() if c.state == "up" for t in c.tools]

    async def call(self, server: str, tool: str, arguments: dict[str, object]) -> Outcome:
        """Call a tool on a server."""
        connection = self._connections.get(server)
        if connection is None:
            raise ToolError(f"no server named {server!r}")
        return await connection.call(tool, arguments)

    async def wait_for(self, ready: Callable[[Hub], bool]) -> None:
        """Wait until ``ready`` holds of the servers (woken by every change)."""
        while True:
            tick = self._tick
            if ready(self):
                return
            await tick.wait()

    def _changed(self) -> None:
        self.version += 1
        self._tick.set()
        self._tick = asyncio.Event()
