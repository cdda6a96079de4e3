"""The database's files on disk: created for their owner alone, and copied whole while the
database stays open (SQLite's online backup)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from contextlib import suppress
from pathlib import Path
from typing import Any

import aiosqlite

from assistant.errors import StorageError


async def copy_to(conn: aiosqlite.Connection, target: Path) -> None:
    """A consistent copy of the open database, through SQLite's online backup (writers go
    on; the copy is of one moment). The target is written whole, then moved into place."""
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        create_private(partial)
        await _to_the_end(_backup(conn, partial))
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(target)


def create_private(path: Path) -> None:
    """Create a missing database file for its owner alone: SQLite gives its -wal and -shm
    files the database's own mode."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise StorageError(f"{path}: cannot be created ({exc.strerror}).") from None


async def _backup(conn: aiosqlite.Connection, target: Path) -> None:
    copy = await aiosqlite.connect(target)
    try:
        await conn.backup(copy)
        # A copy is one file: in WAL mode, every reader of it would leave -wal and -shm beside it.
        await copy.execute("PRAGMA journal_mode = DELETE")
    finally:
        await copy.close()


async def _to_the_end(step: Coroutine[Any, Any, None]) -> None:
    """Await ``step``; when cancelled, let it end before the cancel goes on (closing the target
    of a backup while SQLite still writes it crashed the process)."""
    running = asyncio.ensure_future(step)
    try:
        await asyncio.shield(running)
    except asyncio.CancelledError:
        with suppress(Exception):
            await running
        raise
