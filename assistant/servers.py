"""The ``[mcp]`` section: outside tool servers, how each is reached and how far it is trusted.

No secret is written here: a server's environment and headers name variables of ours.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator, model_validator

Approve = Literal["writes", "always", "never"]
SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_HEADER = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}")
Names = Annotated[tuple[StrictStr, ...], Field(strict=False)]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class ServerSettings(_Section):
    """One MCP server: a program we start (stdio) or a URL we reach (streamable HTTP)."""

    command: Names = ()
    cwd: str = ""
    env: Names = ()
    url: str = ""
    headers_env: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    tools: Names = ()  # globs of the server's tool names to offer; none: all
    deny: Names = ()  # globs of its tool names never to offer
    timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    approve: Approve = "writes"

    @field_validator("env")
    @classmethod
    def _variables(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        for name in names:
            if not _VARIABLE.fullmatch(name):
                raise ValueError(f"{name!r} is not an environment variable name")
        return names

    @field_validator("headers_env")
    @classmethod
    def _headers(cls, headers: dict[str, str]) -> dict[str, str]:
        for header, variable in headers.items():
            if not _HEADER.fullmatch(header):
                raise ValueError(f"{header!r} is not an HTTP header name")
            if not _VARIABLE.fullmatch(variable):
                raise ValueError(
                    f"{header}: {variable!r} is not an environment variable name; the header's "
                    "value is read from the variable named here, never written in the file"
                )
        return headers

    @model_validator(mode="after")
    def _one_transport(self) -> ServerSettings:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either command = [...] (stdio) or url = '...' (HTTP)")
        if self.url:
            parts = urlsplit(self.url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"url {self.url!r}: expected http:// or https:// and a host")
            if self.env or self.cwd:
                raise ValueError("env and cwd are for servers started by command")
        elif self.headers_env:
            raise ValueError("headers_env is for servers reached by url")
        elif not self.command[0].strip():
            raise ValueError("command: the first item is the program to run")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """How the server is reached."""
        return "http" if self.url else "stdio"


class MCPSettings(_Section):
    """Outside tool servers spoken to with the Model Context Protocol."""

    connect_timeout_seconds: float = Field(default=10.0, gt=0, le=300)
    servers: dict[str, ServerSettings] = Field(default_factory=dict)

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, ServerSettings]) -> dict[str, ServerSettings]:
        for name in servers:
            if not SERVER_NAME.fullmatch(name):
                raise ValueError(
                    f"server name {name!r}: use 1 to 32 letters, digits, '_' or '-' "
                    "(it starts the names of its tools)"
                )
        return servers

    def variables(self) -> list[str]:
        """Names of the variables whose values go to servers: secrets, to be redacted."""
        return [
            name
            for server in self.servers.values()
            for name in (*server.env, *server.headers_env.values())
        ]
