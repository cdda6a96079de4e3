"""The one SQLite database: opening it safely, its pragmas, migrations, and the only way in.

``Database`` owns the connection. Everything reads through ``read()`` and writes through
``write()``: both hold one lock, so a write is one ``BEGIN IMMEDIATE … COMMIT`` that no other
coroutine's statement can slip into, and nothing else can commit or roll back. The
scheduler's own thread connects through ``connect()`` with the same pragmas.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
from aiosqlite.context import Result

from assistant.checkpoint import Checkpointer
from assistant.dbfiles import copy_to, create_private
from assistant.errors import NotADatabaseError, SchemaTooNewError, StorageError, WriteError
from assistant.fulltext import indexed
from assistant.migrations import MIGRATIONS

log = logging.getLogger(__name__)
_T = TypeVar("_T")

SQLITE_HEADER = b"SQLite format 3\x00"
FILE_NAME = "assistant.db"
BUSY_MS = 5000
PRAGMAS = (
    "journal_mode = WAL",
    "foreign_keys = ON",
    f"busy_timeout = {BUSY_MS}",
    "synchronous = NORMAL",
    # The checkpointer copies the log on its own thread; a writer checkpoints only past ~64 MB,
    # when that one is not running or falls behind.
    "wal_autocheckpoint = 16000",
)
Row = sqlite3.Row


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


def readable(data: bytes) -> str:
    """Stored text as read: a damaged value shows U+FFFD where its bytes are not UTF-8 rather
    than failing every read of its row (about 0.1 µs a value; measured, not noticed)."""
    return data.decode("utf-8", "replace")


def connect(path: Path) -> sqlite3.Connection:
    """A plain connection to an opened database, for a thread of its own (the scheduler's)."""
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.row_factory = sqlite3.Row
    connection.text_factory = readable
    for pragma in PRAGMAS:
        connection.execute(f"PRAGMA {pragma}")
    return connection


class Session:
    """The statements of one read or one write; it cannot commit or roll back."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, parameters: Iterable[Any] = ()) -> Result[aiosqlite.Cursor]:
        """Run one statement; await the cursor or use it with ``async with``."""
        return self._conn.execute(sql, tuple(parameters))

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        """Run one statement for each row."""
        await self._conn.executemany(sql, rows)

    async def fetchone(self, sql: str, parameters: Iterable[Any] = ()) -> Row | None:
        """The first row a query returns, if any."""
        async with self._conn.execute(sql, tuple(parameters)) as cursor:
            row: Row | None = await cursor.fetchone()
        return row

    async def fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[Row]:
        """Every row a query returns."""
        async with self._conn.execute(sql, tuple(parameters)) as cursor:
            return list(await cursor.fetchall())


class Database:
    """The owner of the connection: locked reads, and writes that are all or nothing."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.path = path
        self._conn = conn
        self._session = Session(conn)
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[Any] | None = None
        self.checkpointer = Checkpointer(path)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Session]:
        """Statements that see only committed data; inside a write, that write's own."""
        if self._holds():
            yield self._session
            return
        async with self._lock:
            self._holder = asyncio.current_task()
            try:
                yield self._session
            finally:
                self._holder = None

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Session]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        self._refuse_nested()
        async with self._lock:
            self._holder = asyncio.current_task()
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
                yield self._session
                await self._conn.commit()
                self.checkpointer.wrote()
            except BaseException as exc:
                # A cancelled await does not stop the statement queued on the connection's
                # thread, so the rollback is queued behind it whether or not BEGIN has run.
                await asyncio.shield(self._conn.rollback())
                _unwritten(exc)
                raise
            finally:
                self._holder = None

    async def write_one(self, sql: str, parameters: Iterable[Any] = ()) -> aiosqlite.Cursor:
        """One statement as a transaction of its own (SQLite's autocommit: all or nothing),
        in one hop to the connection's thread instead of three (begin, statement, commit)."""
        return await self._alone(lambda: self._conn.execute(sql, tuple(parameters)))

    async def write_rows(self, sql: str, parameters: Iterable[Any] = ()) -> list[Row]:
        """One statement with ``RETURNING`` as a transaction of its own, and the rows it
        returned, in one hop (the statement is done, so committed, once its rows are read)."""
        rows = await self._alone(lambda: self._conn.execute_fetchall(sql, tuple(parameters)))
        return list(rows)

    async def _alone(self, step: Callable[[], Awaitable[_T]]) -> _T:
        self._refuse_nested()
        async with self._lock:
            try:
                done = await step()
            except sqlite3.DatabaseError as exc:
                _unwritten(exc)
                raise
            self.checkpointer.wrote()
            return done

    async def copy_to(self, target: Path) -> None:
        """A consistent copy of the database at ``target`` (SQLite's online backup)."""
        async with self.read():
            await copy_to(self._conn, target)

    async def user_version(self) -> int:
        """The schema version recorded in the database header."""
        async with self.read() as session:
            return await _version(session)

    async def close(self) -> None:
        """Close the connection once the lock is free."""
        async with self._lock:
            await self._conn.close()

    def _refuse_nested(self) -> None:
        if self._holds():
            raise RuntimeError("a write was opened inside a read or write of the same task")

    def _holds(self) -> bool:
        return self._holder is not None and self._holder is asyncio.current_task()


async def open_database(
    path: Path, migrations: Sequence[str] = MIGRATIONS, *, wait: float = BUSY_MS / 1000
) -> Database:
    """Open (creating if needed) and migrate the database at ``path``; the caller closes it.
    ``wait`` is how long another process's lock is waited out."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    check_file(path)
    create_private(path)
    conn = await aiosqlite.connect(path, isolation_level=None, timeout=wait)
    try:
        await _check_version(conn, path, len(migrations))
        conn.row_factory = aiosqlite.Row
        conn.text_factory = readable
        for pragma in PRAGMAS:
            await conn.execute(f"PRAGMA {pragma}")
        await _migrate(conn, path, migrations)
        await _check_tables(conn, path, migrations)
    except sqlite3.OperationalError as exc:
        await conn.close()
        if _primary(exc) not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            raise StorageError(f"{path}: cannot be opened ({exc}).") from None
        raise StorageError(
            f"{path}: locked by another process{_users_of(path)}; close it (an open sqlite3 "
            "shell, another assistant) and start again."
        ) from None
    except sqlite3.DatabaseError as exc:
        await conn.close()
        raise NotADatabaseError(
            f"{path}: damaged ({exc}); it was left untouched. Restore a backup "
            "(assistant restore FILE) or move it away to start afresh."
        ) from None
    except BaseException:
        await conn.close()
        raise
    return Database(conn, path)


async def _check_tables(conn: aiosqlite.Connection, path: Path, migrations: Sequence[str]) -> None:
    """Refuse a database whose tables were dropped: every one its schema makes must be there."""
    async with conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'") as cursor:
        present = {str(row[0]) for row in await cursor.fetchall()}
    missing = sorted(_tables(tuple(migrations)) - present)
    if missing:
        shown = ", ".join(missing[:4]) + (", …" if len(missing) > 4 else "")
        raise NotADatabaseError(
            f"{path}: damaged: its tables {shown} are missing; it was left untouched. "
            f"{RESTORE_ADVICE.format(backups=path.parent / 'backups')}"
        )


RESTORE_ADVICE = (
    "Restore a backup (assistant restore FILE; daily copies are in {backups}) or move it "
    "away to start afresh."
)


@functools.cache
def _tables(migrations: tuple[str, ...]) -> frozenset[str]:
    """The tables the migrations make, read off a copy made in memory."""
    scratch = sqlite3.connect(":memory:")
    scratch.create_function("fts_indexed", 2, indexed, deterministic=True)
    try:
        for script in migrations:
            scratch.executescript(script)
        rows = scratch.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        scratch.close()
    return frozenset(str(row[0]) for row in rows)


def _users_of(path: Path) -> str:
    """ " (pid N)" for the other processes that have the file open, where /proc shows them."""
    target, pids = path.resolve(), []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            if int(fd_dir.parent.name) != os.getpid() and any(
                fd.resolve() == target for fd in fd_dir.iterdir()
            ):
                pids.append(fd_dir.parent.name)
        except (OSError, ValueError):
            continue
    return f" (pid {', '.join(pids[:3])})" if pids else ""


async def _check_version(conn: aiosqlite.Connection, path: Path, known: int) -> None:
    try:
        version = await _version(Session(conn))
    except sqlite3.OperationalError:
        raise  # locked or unopenable: said by the caller
    except sqlite3.DatabaseError as exc:
        raise NotADatabaseError(
            f"{path}: cannot be read as SQLite ({exc}); it was left untouched"
        ) from None
    if version > known:
        raise SchemaTooNewError(
            f"{path}: written by a newer version of the assistant (schema {version}, this "
            f"version knows {known}); it was left untouched. Upgrade the assistant."
        )
    if version == 0:
        await _refuse_foreign(conn, path)


async def _refuse_foreign(conn: aiosqlite.Connection, path: Path) -> None:
    """A database with tables but no schema version of ours is someone else's: never migrate it."""
    async with conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name LIMIT 4"
    ) as cursor:
        names = [str(row[0]) for row in await cursor.fetchall()]
    if names:
        shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
        raise NotADatabaseError(
            f"{path}: a SQLite database that is not the assistant's (tables {shown}); it was "
            "left untouched. Point assistant.data_dir at another folder or move the file away."
        )


async def _version(session: Session) -> int:
    row = await session.fetchone("PRAGMA user_version")
    return int(row[0]) if row else 0


async def _migrate(conn: aiosqlite.Connection, path: Path, migrations: Sequence[str]) -> None:
    """Apply the pending migrations, each in its own transaction, after a copy of the old."""
    version = await _version(Session(conn))
    await conn.create_function("fts_indexed", 2, indexed, deterministic=True)  # for 10
    if 0 < version < len(migrations):
        kept = path.with_name(f"{path.name}.schema-{version}.bak")
        await copy_to(conn, kept)
        log.info("database copied to %s before migrating from schema %d", kept, version)
    for number in range(version, len(migrations)):
        await _apply_one(conn, number + 1, migrations[number])


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


def _unwritten(exc: BaseException) -> None:
    """Raise the plain WriteError for disk full, read-only, I/O or a corrupt page; anything
    else (a constraint, a cancel) stays what it is."""
    if type(exc) in (sqlite3.OperationalError, sqlite3.DatabaseError):
        raise WriteError(_why_not_written(exc)) from exc


def _why_not_written(exc: BaseException) -> str:
    code = _primary(exc)
    if code == sqlite3.SQLITE_FULL:
        return "storage is full; nothing was saved"
    if code == sqlite3.SQLITE_READONLY:
        return "the database is read-only; nothing was saved"
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return "the database is busy; nothing was saved, try again in a moment"
    return "the database could not be written; nothing was saved"


def _primary(exc: BaseException) -> int:
    """SQLite's primary result code of an error (SQLITE_FULL, SQLITE_BUSY, …), or -1."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else -1
