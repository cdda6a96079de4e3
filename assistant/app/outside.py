"""Tools from outside the package: the configured MCP servers and the owner's tools folder."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from assistant.config import Config
from assistant.mcp import Backoff, Hub, ServerSpec
from assistant.servers import ServerSettings
from assistant.tools.builtin import OPTIONAL, builtin_tools
from assistant.tools.folder import Folder, load_folder
from assistant.tools.outside import OutsideTools
from assistant.tools.tool import Tool


@dataclass(frozen=True)
class Outside:
    """The running servers and the loaded folder."""

    hub: Hub
    folder: Folder | None
    servers: OutsideTools

    def own(self) -> tuple[Tool, ...]:
        """The folder's tools."""
        return self.folder.tools if self.folder is not None else ()


def server_specs(config: Config, base: Path | None, data: Path) -> list[ServerSpec]:
    """The enabled servers, with the values of the variables they are given."""
    timeout = config.mcp.connect_timeout_seconds
    return [
        _spec(name, server, base or Path.cwd(), data, timeout)
        for name, server in config.mcp.servers.items()
        if server.enabled
    ]


def _spec(name: str, server: ServerSettings, base: Path, data: Path, timeout: float) -> ServerSpec:
    wanted = (*server.env, *server.headers_env.values())
    missing = tuple(v for v in wanted if not os.environ.get(v))
    return ServerSpec(
        name,
        command=server.command,
        cwd=(base / server.cwd) if server.cwd else None,
        env={v: os.environ[v] for v in server.env if v not in missing},
        url=server.url,
        headers={h: os.environ[v] for h, v in server.headers_env.items() if v not in missing},
        include=server.tools,
        exclude=server.deny,
        connect_timeout=timeout,
        errlog=data / "mcp" / f"{name}.log",
        missing=missing,
    )


def own_tools(config: Config, base: Path | None) -> Folder | None:
    """The tools folder, loaded; None when none is configured."""
    if not config.tools.folder:
        return None
    taken = {t.name for t in builtin_tools(code=True, images=True)} | set(OPTIONAL)
    return load_folder((base or Path.cwd()) / config.tools.folder, taken)


@asynccontextmanager
async def outside(
    config: Config, base: Path | None, data: Path, backoff: Backoff | None = None
) -> AsyncIterator[Outside]:
    """The servers started (each within the connect timeout) and the folder loaded; the
    servers are ended, process trees and all, on the way out."""
    folder = own_tools(config, base)
    async with Hub(server_specs(config, base, data), backoff=backoff) as hub:
        yield Outside(hub, folder, OutsideTools(hub, config.mcp.servers))
