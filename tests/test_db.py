"""Opening the database: pragmas, migrations, and files that must be left untouched."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from assistant.db import open_database
from assistant.errors import NotADatabaseError, SchemaTooNewError, StorageError
from assistant.migrations import MIGRATIONS
from tests.conftest import fetch

AUDIT_ROW = (
    "INSERT INTO audit (at, request_id, call_id, user_id, tool, arguments,"
    " outcome, duration_ms) VALUES ('t', 'r', 'c', 1, 'x', '{}', 'ok', 1)"
)


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_migrates_from_empty_and_again_idempotently(tmp_path) -> None:
    path = tmp_path / "a.db"
    db = await open_database(path)
    assert await db.user_version() == len(MIGRATIONS)
    assert await fetch(db, "PRAGMA journal_mode") == [("wal",)]
    assert await fetch(db, "PRAGMA foreign_keys") == [(1,)]
    await db.close()
    db = await open_database(path)  # nothing left to apply
    assert await db.user_version() == len(MIGRATIONS)
    await db.close()


async def test_later_migrations_keep_existing_rows(tmp_path) -> None:
    path = tmp_path / "a.db"
    db = await open_database(path, MIGRATIONS[:1])
    async with db.write() as session:
        await session.execute(AUDIT_ROW)
    await db.close()
    extra = (*MIGRATIONS, "CREATE TABLE later (id INTEGER PRIMARY KEY);")
    db = await open_database(path, extra)
    assert await fetch(db, "SELECT count(*) FROM audit") == [(1,)]
    assert await db.user_version() == len(extra)
    await db.close()


async def test_a_failing_migration_is_rolled_back_whole(tmp_path) -> None:
    path = tmp_path / "a.db"
    bad = (*MIGRATIONS, "CREATE TABLE half (id INTEGER); THIS IS NOT SQL;")
    with pytest.raises(StorageError, match=f"migration {len(bad)} failed and was rolled back"):
        await open_database(path, bad)
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master")}
    assert "half" not in tables


async def test_a_newer_database_is_refused_and_untouched(tmp_path) -> None:
    path = tmp_path / "a.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE future (x)")
        raw.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 3}")
    before = digest(path)
    with pytest.raises(SchemaTooNewError, match="newer version of the assistant"):
        await open_database(path)
    assert digest(path) == before
    assert not (tmp_path / "a.db-wal").exists()


@pytest.mark.parametrize(
    "content",
    [b"hello, I am a text file\n" * 10, b"\x00" * 4096, b"SQLite format 3\x00" + b"\xff" * 200],
)
async def test_a_file_that_is_not_a_database_is_refused_and_untouched(tmp_path, content) -> None:
    path = tmp_path / "a.db"
    path.write_bytes(content)
    with pytest.raises(NotADatabaseError, match="left untouched"):
        await open_database(path)
    assert path.read_bytes() == content


async def test_audit_rows_cannot_be_changed_or_deleted(conn) -> None:
    async with conn.write() as session:
        await session.execute(AUDIT_ROW)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        async with conn.write() as session:
            await session.execute("UPDATE audit SET outcome = 'error'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        async with conn.write() as session:
            await session.execute("DELETE FROM audit")
    assert await fetch(conn, "SELECT outcome FROM audit") == [("ok",)]
