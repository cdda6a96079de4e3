"""The terminals' socket and its wire: where the socket lies, the JSON lines, and how much of
the service one terminal may hold (``Limits``).

The socket is the owner's alone: 0600 in a 0700 folder (``private_folder``), each side
checking the other's uid (``peer_is_us``). It lies beside the database, unless that path is too
long for a Unix socket; then in a short folder of the user's, named from the database's path,
which the service and its terminals compute alike.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import socket
import stat
import struct
from collections.abc import AsyncIterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SOCKET_NAME = "assistant.sock"
PATH_LIMIT = 107  # bytes in a Unix socket's path: sun_path holds 108, its NUL included
RUNTIME = Path("/tmp")  # the short folder's home when $XDG_RUNTIME_DIR is not set
LINE_LIMIT = 1 << 20
TERMINALS = 16  # connections at once, joined or still saying hello; more are told "full"
HELLO_SECONDS = 10.0  # to say hello (and, for ask, the request); a joined chat may be idle
DRAIN_SECONDS = 60.0  # for a terminal to take what was sent before its next line is answered
OUTPUT_LIMIT = 1 << 20  # bytes waiting for a terminal that does not read: past it, let go
READ_AHEAD = 64  # lines read from a terminal before its console has taken them


@dataclass(frozen=True)
class Limits:
    """What one terminal may hold of the service (tests make them small)."""

    terminals: int = TERMINALS
    hello_seconds: float = HELLO_SECONDS
    drain_seconds: float = DRAIN_SECONDS
    output: int = OUTPUT_LIMIT
    read_ahead: int = READ_AHEAD


def socket_path(database: Path) -> Path:
    """Where the service listens: beside its database, or, when that path is too long for a
    Unix socket, in a short private folder named from the database's path."""
    beside = database.parent / SOCKET_NAME
    if _fits(beside):
        return beside
    return runtime_folder(database) / SOCKET_NAME


def runtime_folder(database: Path) -> Path:
    """The short folder of a database whose own folder is too deep for a socket: in
    ``$XDG_RUNTIME_DIR`` (this user's), else in /tmp; the service and its terminals agree."""
    digest = hashlib.sha256(os.fsencode(database.resolve())).hexdigest()[:16]
    name = f"assistant-{os.getuid()}-{digest}"
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base.startswith("/") and _fits(Path(base) / name / SOCKET_NAME):
        return Path(base) / name
    return RUNTIME / name


def _fits(path: Path) -> bool:
    return len(os.fsencode(path)) <= PATH_LIMIT


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
    """A console's output, sent to the terminal that joined; a terminal that does not take
    it is let go rather than buffered for."""

    def __init__(self, writer: asyncio.StreamWriter, limits: Limits | None = None) -> None:
        self._writer = writer
        self._limits = limits or Limits()

    @property
    def gone(self) -> bool:
        """Whether the terminal is gone (it left, or it was let go)."""
        return self._writer.is_closing()

    def write(self, text: str, /) -> int:
        """Send text (dropped once the terminal is gone)."""
        self.send({"out": text})
        return len(text)

    def flush(self) -> None:
        """Sent as written."""

    def send(self, message: dict[str, Any]) -> None:
        """Send a message, unless the terminal is gone; past ``output`` bytes waiting for a
        terminal that does not read, it is let go."""
        if self.gone:
            return
        self._writer.write(encode(message))
        if self._writer.transport.get_write_buffer_size() > self._limits.output:
            log.info("a terminal stopped reading what it was sent; it was let go")
            self._writer.transport.abort()

    async def drained(self) -> None:
        """Wait until the terminal has taken what was sent; one that takes nothing for
        ``drain_seconds`` is let go."""
        if self.gone:
            return
        try:
            async with asyncio.timeout(self._limits.drain_seconds):
                await self._writer.drain()
        except TimeoutError:
            log.info("a terminal took nothing for %s s; it was let go", self._limits.drain_seconds)
            self._writer.transport.abort()
        except OSError:  # it left: ``gone`` says so from now on
            log.debug("a terminal left while output waited for it")


def remove(path: Path) -> None:
    """Remove the socket at ``path``, if there is one."""
    with suppress(OSError):
        os.unlink(path)


def private_folder(folder: Path) -> bool:
    """Make the socket's folder when it is missing (0700); whether it is this user's alone, as
    ``datadir`` leaves the data folder (a link of another user's fails it: fails closed)."""
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        link, found = folder.lstat(), folder.stat()
    except OSError as exc:
        log.warning("terminals cannot join (%s: %s)", folder, exc.strerror or exc)
        return False
    ours = link.st_uid == found.st_uid == os.getuid()
    if ours and stat.S_ISDIR(found.st_mode) and not found.st_mode & 0o077:
        return True
    log.warning("terminals cannot join: %s is not this user's alone (0700)", folder)
    return False


def peer_is_us(writer: asyncio.StreamWriter) -> bool:
    """Whether the process at the other end runs as this one's user (fails closed)."""
    sock = writer.get_extra_info("socket")
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return False
    _pid, uid, _gid = struct.unpack("3i", raw)
    return bool(uid == os.getuid())
