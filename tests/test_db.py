"""Opening the database: pragmas, migrations, and files that must be left untouched."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from assistant.db import migrate, open_database, user_version
from assistant.errors import NotADatabaseError, SchemaTooNewError, StorageError
from assistant.migrations import MIGRATIONS


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_migrates_from_empty_and_again_idempotently(tmp_path) -> None:
    path = tmp_path / "a.db"
    conn = await open_database(path)
    assert await user_version(conn) == len(MIGRATIONS)
    assert await migrate(conn) == len(MIGRATIONS)
    async with conn.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0] == "wal"
    async with conn.execute("PRAGMA foreign_keys") as cur:
        assert (await cur.fetchone())[0] == 1
    await conn.close()
    conn = await open_database(path)
    assert await user_version(conn) == len(MIGRATIONS)
    await conn.close()


async def test_later_migrations_keep_existing_rows(tmp_path) -> None:
    path = tmp_path / "a.db"
    conn = await open_database(path, MIGRATIONS[:1])
    await conn.execute(
        "INSERT INTO audit (at, request_id, call_id, user_id, tool, arguments,"
        " outcome, duration_ms) VALUES ('t', 'r', 'c', 1, 'x', '{}', 'ok', 1)"
    )
    await conn.close()
    extra = (*MIGRATIONS, "CREATE TABLE later (id INTEGER PRIMARY KEY);")
    conn = await open_database(path, extra)
    async with conn.execute("SELECT count(*) FROM audit") as cur:
        assert (await cur.fetchone())[0] == 1
    assert await user_version(conn) == len(extra)
    await conn.close()


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
    await conn.execute(
        "INSERT INTO audit (at, request_id, call_id, user_id, tool, arguments,"
        " outcome, duration_ms) VALUES ('t', 'r', 'c', 1, 'x', '{}', 'ok', 1)"
    )
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        await conn.execute("UPDATE audit SET outcome = 'error'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        await conn.execute("DELETE FROM audit")
