"""Copies of the database: taken while the bot runs, restored only while it is stopped, and
one a day kept in the data folder (the last ``storage.backups``)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import aiosqlite

from assistant.app import Setup, datadir
from assistant.clock import Clock
from assistant.db import SQLITE_HEADER, Database, open_database
from assistant.dbfiles import copy_to
from assistant.errors import StorageError
from assistant.migrations import MIGRATIONS

log = logging.getLogger(__name__)

DAILY = "assistant-%Y-%m-%d.db"
DAY = timedelta(days=1)


async def backup(setup: Setup, target: Path) -> str:
    """A consistent copy of the database at ``target``, taken while the bot may be running."""
    _check_target(target)
    path = setup.database_path()
    datadir.prepare(path)
    db = await open_database(path)
    try:
        await db.copy_to(target)
    finally:
        await db.close()
    version, counts = check(target)
    return f"backed up {path} to {target} (schema {version}; {counts})"


def _check_target(target: Path) -> None:
    if target.exists():
        raise StorageError(f"{target}: already exists; name a new file.")
    if not target.parent.is_dir():
        raise StorageError(f"{target}: its folder {target.parent} does not exist.")


def check(path: Path) -> tuple[int, str]:
    """The schema version and a row count of a backup file; a bad one is refused, saying why."""
    if not path.is_file():
        raise StorageError(f"{path}: no such file.")
    with path.open("rb") as fh:
        if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise StorageError(f"{path}: not a SQLite database, so not a backup of ours.")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            verdict = conn.execute("PRAGMA integrity_check").fetchone()[0]
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            counts = [_count(conn, table) for table in ("scheduled_tasks", "notes")]
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"{path}: damaged ({exc}); it cannot be restored.") from None
    if verdict != "ok":
        raise StorageError(f"{path}: fails SQLite's integrity check ({verdict}).")
    if not 1 <= version <= len(MIGRATIONS) or "scheduled_tasks" not in tables:
        raise StorageError(
            f"{path}: not a backup this version can restore (schema {version}; it knows "
            f"1 to {len(MIGRATIONS)})."
        )
    return version, f"{counts[0]} tasks, {counts[1]} notes"


def _count(conn: sqlite3.Connection, table: str) -> int:
    try:
        return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.OperationalError:  # not in this file: said by the checks after
        return 0


async def restore(setup: Setup, source: Path, now: datetime) -> str:
    """Replace the database with ``source``; refused while the bot runs; the old one is kept."""
    path = setup.database_path()
    datadir.prepare(path)
    version, counts = check(source)
    lock = datadir.own(path)  # refused, naming the pid, while an assistant runs
    try:
        kept = path.with_name(f"{path.name}.before-restore-{now:%Y%m%d-%H%M%S}")
        if path.exists():
            old = await open_database(path)
            try:
                await old.copy_to(kept)
            finally:
                await old.close()
        # Read only: the backup file itself is never changed (no WAL, no journal mode).
        incoming = await aiosqlite.connect(f"file:{source}?mode=ro", uri=True)
        try:
            await copy_to(incoming, path.with_name(f".{path.name}.restoring"))
        finally:
            await incoming.close()
        for stale in (path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")):
            stale.unlink(missing_ok=True)  # the old database's log must not meet the new file
        path.with_name(f".{path.name}.restoring").replace(path)
        await (await open_database(path)).close()  # brought up to this version's schema
    finally:
        lock.close()
    aside = f"; the previous database is kept as {kept}" if kept.exists() else ""
    return f"restored {source} into {path} (schema {version}; {counts}){aside}"


async def take_daily(db: Database, folder: Path, keep: int, now: datetime) -> Path | None:
    """Today's copy in ``folder``, unless it exists; then only the newest ``keep`` stay."""
    if keep <= 0:
        return None
    target = folder / now.strftime(DAILY)
    if await asyncio.to_thread(_missing, target):
        await db.copy_to(target)
        log.info("daily backup written to %s", target)
    await asyncio.to_thread(_prune, folder, keep)
    return target


def _missing(target: Path) -> bool:
    target.parent.mkdir(mode=0o700, exist_ok=True)
    return not target.exists()


def _prune(folder: Path, keep: int) -> None:
    for old in sorted(folder.glob("assistant-*.db"))[:-keep]:
        old.unlink()
        log.info("old backup %s removed (storage.backups = %d)", old, keep)


async def daily(db: Database, folder: Path, keep: int, clock: Clock) -> None:
    """One copy a day for as long as the bot runs; a failed copy is logged, never fatal."""
    while keep > 0:
        try:
            await take_daily(db, folder, keep, clock.now())
        except (OSError, sqlite3.Error, StorageError) as exc:
            log.warning("the daily backup failed: %s", exc)
        tomorrow = (clock.now() + DAY).replace(hour=0, minute=5, second=0, microsecond=0)
        await clock.sleep_until(tomorrow)
