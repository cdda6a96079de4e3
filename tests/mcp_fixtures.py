"""Real MCP servers for the tests (``mcp_server.py``), reached through our hub."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from assistant.mcp import Backoff, Hub, ServerSpec
from assistant.servers import ServerSettings
from assistant.tools import Registry
from assistant.tools.outside import OutsideTools

SERVER = Path(__file__).parent / "mcp_server.py"
QUICK = Backoff(0.05, 0.2)  # retries within the test's patience


def stdio(tmp_path: Path, mode: str = "stdio", *extra: str, timeout: float = 20) -> ServerSpec:
    """The test server started over stdio, writing what it sees to ``journal.txt``."""
    return ServerSpec(
        "test",
        command=(sys.executable, str(SERVER), mode, *extra),
        env={"MCP_TEST_LOG": str(tmp_path / "journal.txt")},
        connect_timeout=timeout,
        errlog=tmp_path / "test.log",
    )


def journal(tmp_path: Path) -> list[str]:
    """What the server saw."""
    path = tmp_path / "journal.txt"
    return path.read_text().splitlines() if path.exists() else []


def outside_registry(
    hub: Hub, approve: str = "writes", own: tuple = (), budget: int | None = None
) -> Registry:
    settings = {c.spec.name: ServerSettings(command=("x",), approve=approve) for c in hub}  # type: ignore[arg-type]
    return Registry(own, sources=[OutsideTools(hub, settings)], catalogue_tokens=budget)


@asynccontextmanager
async def running(*specs: ServerSpec, backoff: Backoff = QUICK) -> AsyncIterator[Hub]:
    async with Hub(specs, backoff=backoff) as hub:
        yield hub


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(port: int, token: str) -> Iterator[subprocess.Popen[bytes]]:
    """The test server on 127.0.0.1:port behind a bearer token, until the block ends."""
    command = [sys.executable, str(SERVER), "http", str(port), token]
    process = subprocess.Popen(command, stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stdout.readline() == b"READY\n"
        yield process
    finally:
        process.kill()
        process.wait()
        process.stdout.close()  # type: ignore[union-attr]


async def until(hub: Hub, ready, limit: float = 30) -> None:  # type: ignore[no-untyped-def]
    """Wait (woken by the hub's changes) until ``ready(hub)``; a limit, so a bug fails."""
    async with asyncio.timeout(limit):
        await hub.wait_for(ready)
