"""Values of the outside world: a server as configured, a tool it offers, a result it gave."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

State = Literal["starting", "up", "down"]


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one server: a command to start (stdio) or a URL (streamable HTTP)."""

    name: str
    command: tuple[str, ...] = ()
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict, repr=False)  # values: secrets maybe
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    connect_timeout: float = 10.0
    errlog: Path | None = None  # where a stdio server's stderr goes
    missing: tuple[str, ...] = ()  # variables it needs that are not set: it is not started


@dataclass(frozen=True)
class RemoteTool:
    """A tool a server offers, under the name the model sees."""

    server: str
    name: str  # the server's own
    exposed: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool  # the server says so (readOnlyHint)


@dataclass(frozen=True)
class Image:
    """A picture a tool gave back."""

    data: bytes = field(repr=False)
    mime_type: str


@dataclass(frozen=True)
class Outcome:
    """A call's result as we keep it: its text for the model, pictures for the user."""

    text: str
    images: tuple[Image, ...] = ()
    is_error: bool = False


@dataclass(frozen=True)
class Backoff:
    """Waits between attempts to reach a server that is down: doubling up to a ceiling."""

    first: float = 2.0
    ceiling: float = 300.0

    def after(self, failures: int) -> float:
        """Seconds to wait after ``failures`` failed attempts in a row."""
        return min(self.ceiling, self.first * 2.0 ** max(failures - 1, 0))
