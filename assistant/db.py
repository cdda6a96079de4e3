"""The one SQLite database: opening it safely, pragmas, and applying migrations in order."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from weakref import WeakKeyDictionary

import aiosqlite

from assistant.errors import NotADatabaseError, SchemaTooNewError, StorageError
from assistant.migrations import MIGRATIONS

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
FILE_NAME = "assistant.db"

_LOCKS: WeakKeyDictionary[aiosqlite.Connection, asyncio.Lock] = WeakKeyDictionary()


def check_file(path: Path) -> None:
    """Refuse, without writing to it, a file that is not a SQLite database."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as fh:
        header = fh.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise NotADatabaseError(
            f"{path}: not a SQLite database; it was left untouched. "
            "Point assistant.data_dir at another directory or move the file away."
        )


async def open_database(path: Path, migrations: Sequence[str] = MIGRATIONS) -> aiosqlite.Connection:
    """Open (creating if needed) and migrate the database at ``path``; the caller closes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    check_file(path)
    conn = await aiosqlite.connect(path, isolation_level=None)
    try:
        await _check_version(conn, path, len(migrations))
        await _apply_pragmas(conn)
        await migrate(conn, migrations)
    except BaseException:
        await conn.close()
        raise
    return conn


async def _check_version(conn: aiosqlite.Connection, path: Path, known: int) -> None:
    try:
        version = await user_version(conn)
    except sqlite3.DatabaseError as exc:
        raise NotADatabaseError(
            f"{path}: cannot be read as SQLite ({exc}); it was left untouched"
        ) from None
    if version > known:
        raise SchemaTooNewError(
            f"{path}: written by a newer version of the assistant (schema {version}, this "
            f"version knows {known}); it was left untouched. Upgrade the assistant."
        )


async def _apply_pragmas(conn: aiosqlite.Connection) -> None:
    conn.row_factory = aiosqlite.Row
    await conn.execute("PRAGMA journal_mode = WAL")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.execute("PRAGMA busy_timeout = 5000")
    await conn.execute("PRAGMA synchronous = NORMAL")
    # Checkpoint every ~16 MB of WAL instead of 4 MB: fewer syncs when many tasks are added.
    await conn.execute("PRAGMA wal_autocheckpoint = 4000")


async def user_version(conn: aiosqlite.Connection) -> int:
    """Return the schema version recorded in the database header."""
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(conn: aiosqlite.Connection, migrations: Sequence[str] = MIGRATIONS) -> int:
    """Apply the pending migrations, each in its own transaction; return the final version."""
    version = await user_version(conn)
    for number in range(version, len(migrations)):
        await _apply_one(conn, number + 1, migrations[number])
    return len(migrations)


async def _apply_one(conn: aiosqlite.Connection, version: int, script: str) -> None:
    try:
        await conn.executescript(
            f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {version};\nCOMMIT;"
        )
    except sqlite3.Error as exc:
        if conn.in_transaction:
            await conn.rollback()
        raise StorageError(f"migration {version} failed and was rolled back: {exc}") from exc
    log.info("database migrated to schema %d", version)


@asynccontextmanager
async def transaction(conn: aiosqlite.Connection) -> AsyncIterator[aiosqlite.Connection]:
    """One write transaction at a time per connection: committed on success, else rolled back."""
    lock = _LOCKS.setdefault(conn, asyncio.Lock())
    async with lock:
        try:
            await conn.execute("BEGIN IMMEDIATE")
            yield conn
            await conn.commit()
        except BaseException:
            # A cancelled await does not stop the statement already queued on the connection's
            # thread, so the rollback is queued behind it whether or not BEGIN has run yet.
            await asyncio.shield(conn.rollback())
            raise
