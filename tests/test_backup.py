"""Backups taken while the bot writes, restores refused while it runs, daily copies kept to a
number, and the owner's data exported."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_startup import HOLD_FLOCK, holding

from assistant.app import Setup
from assistant.app.backups import backup, check, restore, take_daily
from assistant.cli import main
from assistant.config import parse_config
from assistant.db import open_database
from assistant.errors import StorageError
from assistant.memory.export import gather, notes_markdown
from assistant.memory.notes import Notes
from assistant.migrations import MIGRATIONS

NOW = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)


def setup_in(folder: Path) -> Setup:
    return Setup(parse_config({"assistant": {"data_dir": str(folder)}}), "test", folder)


def rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT id, content FROM notes ORDER BY id").fetchall()


WRITER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("PRAGMA journal_mode = WAL")
add = "INSERT INTO notes (user_id, content, tags, created_at) VALUES (1, ?, '[]', '')"
conn.execute(add, ("note 1",))
print("ready", flush=True)  # writing, and one row is in
for n in range(2, 1_000_000):
    conn.execute(add, (f"note {n}",))
"""


async def test_a_backup_under_write_load_is_one_moment_and_restores_identical(tmp_path):
    live = setup_in(tmp_path / "live")
    (tmp_path / "live").mkdir()
    await (await open_database(live.database_path())).close()
    with holding(WRITER, live.database_path()):
        said = await backup(live, tmp_path / "copy.db")
    copied = rows(tmp_path / "copy.db")
    assert copied, said
    assert [row[0] for row in copied] == list(range(1, len(copied) + 1))  # no gap: one moment
    assert f"{len(copied)} notes" in said
    fresh = setup_in(tmp_path / "fresh")
    backup_bytes = (tmp_path / "copy.db").read_bytes()
    await restore(fresh, tmp_path / "copy.db", NOW)
    assert rows(fresh.database_path()) == copied
    assert (tmp_path / "copy.db").read_bytes() == backup_bytes  # the backup is only read


async def test_a_restore_keeps_the_old_database_aside(tmp_path):
    setup = setup_in(tmp_path / "data")
    (tmp_path / "data").mkdir()
    db = await open_database(setup.database_path())
    await Notes(db, _Clock()).add(1, "before")
    await db.close()
    await backup(setup, tmp_path / "copy.db")
    db = await open_database(setup.database_path())
    await Notes(db, _Clock()).add(1, "after the backup")
    await db.close()
    said = await restore(setup, tmp_path / "copy.db", NOW)
    kept = tmp_path / "data" / "assistant.db.before-restore-20261125-100000"
    assert f"kept as {kept}" in said
    assert [r[1] for r in rows(setup.database_path())] == ["before"]
    assert [r[1] for r in rows(kept)] == ["before", "after the backup"]


class _Clock:
    def now(self) -> datetime:
        return NOW


async def test_a_restore_is_refused_while_the_bot_runs(tmp_path):
    setup = setup_in(tmp_path / "data")
    (tmp_path / "data").mkdir()
    await (await open_database(setup.database_path())).close()
    await backup(setup, tmp_path / "copy.db")
    before = setup.database_path().read_bytes()
    lock = tmp_path / "data" / "assistant.db.lock"
    with holding(HOLD_FLOCK, lock) as running:
        pid = rf"\(pid {running.pid}\)"
        with pytest.raises(StorageError, match=f"another assistant {pid}"):
            await restore(setup, tmp_path / "copy.db", NOW)
    assert setup.database_path().read_bytes() == before


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.write_text("hello"), "not a SQLite database"),
        (
            lambda p: _sqlite(p, "CREATE TABLE other (x)", 0),
            "not a backup this version can restore",
        ),
        (lambda p: _sqlite(p, "CREATE TABLE scheduled_tasks (x)", len(MIGRATIONS) + 1), "schema"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x01" * 3000), "damaged"),
    ],
)
async def test_a_file_that_is_not_a_good_backup_is_refused_and_nothing_changes(
    tmp_path, make, reason
):
    setup = setup_in(tmp_path / "data")
    (tmp_path / "data").mkdir()
    db = await open_database(setup.database_path())
    await Notes(db, _Clock()).add(1, "keep me")
    await db.close()
    bad = tmp_path / "bad.db"
    make(bad)
    with pytest.raises(StorageError, match=reason):
        await restore(setup, bad, NOW)
    assert [r[1] for r in rows(setup.database_path())] == ["keep me"]
    assert not list((tmp_path / "data").glob("*before-restore*"))


def _sqlite(path: Path, statement: str, version: int) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {version}")


async def test_a_backup_never_overwrites_a_file(tmp_path):
    setup = setup_in(tmp_path / "data")
    (tmp_path / "copy.db").write_text("mine")
    with pytest.raises(StorageError, match="already exists"):
        await backup(setup, tmp_path / "copy.db")
    assert (tmp_path / "copy.db").read_text() == "mine"


async def test_daily_copies_are_kept_to_the_configured_number(tmp_path, conn):
    folder = tmp_path / "backups"
    for day in range(10):
        await take_daily(conn, folder, 3, NOW + timedelta(days=day))
    await take_daily(conn, folder, 3, NOW + timedelta(days=9))  # the same day: no second copy
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "assistant-2026-12-02.db",
        "assistant-2026-12-03.db",
        "assistant-2026-12-04.db",
    ]
    assert check(folder / names[-1])[0] == len(MIGRATIONS)
    assert await take_daily(conn, tmp_path / "off", 0, NOW) is None
    assert not (tmp_path / "off").exists()


async def test_a_copy_cancelled_at_shutdown_leaves_nothing_half_written(conn, tmp_path):
    # The bot stopping during the start-up copy once closed the copy under SQLite's feet: the
    # process crashed or hung. A cancelled copy ends its backup first and removes the part.
    async with conn.write() as session:
        for n in range(2_000):
            await session.execute(
                "INSERT INTO notes (user_id, content, tags, created_at) VALUES (1, ?, '[]', '')",
                (f"note {n} " + "x" * 2_000,),
            )
    target = tmp_path / "backups" / "copy.db"
    target.parent.mkdir()
    for turns in range(12):  # cancelled at each point of the copy in turn
        copying = asyncio.create_task(conn.copy_to(target))
        for _ in range(turns):
            await asyncio.sleep(0)
        copying.cancel()
        with pytest.raises(asyncio.CancelledError):
            await copying
        assert list(target.parent.iterdir()) == []
    await conn.copy_to(target)
    assert len(rows(target)) == 2_000


async def test_the_export_holds_notes_tasks_and_conversations_of_one_user(conn):
    notes = Notes(conn, _Clock())
    await notes.add(1, "wifi password is on the fridge", ["home"])
    await notes.add(2, "someone else's note")
    async with conn.write() as session:
        await session.execute(
            "INSERT INTO messages (chat_id, user_id, session, turn_id, role, content, created_at) "
            "VALUES (1, 1, 1, 't', 'user', 'hello', '2026-11-25T10:00:00+00:00')"
        )
    data = await gather(conn, 1, NOW.isoformat())
    assert [n["content"] for n in data["notes"]] == ["wifi password is on the fridge"]
    assert data["conversations"][0]["messages"][0]["content"] == "hello"
    assert "#home" in notes_markdown(data) and "someone else" not in json.dumps(data)


def test_the_export_command_writes_files_each_user_may_read_alone(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["export", "out"]) == 0
    assert "nothing to export" in capsys.readouterr().out
    import asyncio

    async def seed() -> None:
        db = await open_database(tmp_path / "data" / "assistant.db")
        await Notes(db, _Clock()).add(7, "milk")
        await db.close()

    asyncio.run(seed())
    assert main(["export", "out"]) == 0
    exported = json.loads((tmp_path / "out" / "assistant-export-7.json").read_text())
    assert exported["notes"][0]["content"] == "milk"
    assert (tmp_path / "out" / "assistant-export-7.json").stat().st_mode & 0o077 == 0
    assert "milk" in (tmp_path / "out" / "assistant-export-7-notes.md").read_text()
