"""One owner for the connection: interleaved writers never see, lose or keep each other's rows.

Each test runs two coroutines on one database, one of them failing half way, the way the stores
met before: an audit row written while another transaction rolled back, a profile saved while
another transaction was open.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from assistant.clock import FakeClock
from assistant.llm.modes import Remembered, StoredModes
from assistant.memory.audit import AuditEntry, AuditLog
from assistant.memory.notes import Notes
from assistant.memory.people import People
from tests.conftest import fetch

START = datetime(2026, 3, 14, 9, 0, tzinfo=UTC)


class Boom(Exception):
    pass


async def failing_write(db, entered: asyncio.Event, go_on: asyncio.Event) -> None:
    """A transaction that inserts a note, lets the others run, then fails."""
    async with db.write() as session:
        await session.execute(
            "INSERT INTO notes (user_id, content, tags, created_at) VALUES (1, 'half', '[]', 't')"
        )
        entered.set()
        await go_on.wait()
        raise Boom


async def interleave(db, other) -> None:
    """Run ``other`` while a failing transaction is open, then let the transaction fail."""
    entered, go_on = asyncio.Event(), asyncio.Event()
    failing = asyncio.create_task(failing_write(db, entered, go_on))
    await entered.wait()
    writer = asyncio.create_task(other())
    await asyncio.sleep(0)  # the second writer is now waiting for the first to finish
    go_on.set()
    with pytest.raises(Boom):
        await failing
    await writer


async def test_an_audit_row_survives_another_transactions_rollback(conn) -> None:
    audit = AuditLog(conn, FakeClock(START))
    entry = AuditEntry("r", "c", 1, "save_note", {"content": "x"}, "ok", 3)
    await interleave(conn, lambda: audit.record(entry))
    assert await fetch(conn, "SELECT tool, outcome FROM audit") == [("save_note", "ok")]
    assert await fetch(conn, "SELECT COUNT(*) FROM notes") == [(0,)]


async def test_a_profile_write_does_not_commit_anothers_half_done_rows(conn) -> None:
    people = People(conn, FakeClock(START))
    await interleave(conn, lambda: people.set_timezone(7, "Europe/Berlin"))
    assert (await people.get(7)).timezone == "Europe/Berlin"
    assert await fetch(conn, "SELECT COUNT(*) FROM notes") == [(0,)]


async def test_a_remembered_tool_mode_does_not_commit_anothers_rows(conn) -> None:
    modes = StoredModes(conn)
    known = Remembered("text", "refused tools", "turns", datetime.now(UTC))
    await interleave(conn, lambda: modes.remember("small", known))
    assert await modes.recall("small") == known
    assert await fetch(conn, "SELECT COUNT(*) FROM notes") == [(0,)]


async def test_a_read_does_not_see_an_open_transactions_rows(conn) -> None:
    notes = Notes(conn, FakeClock(START))
    entered, go_on = asyncio.Event(), asyncio.Event()
    failing = asyncio.create_task(failing_write(conn, entered, go_on))
    await entered.wait()
    reading = asyncio.create_task(notes.list_notes(1))
    await asyncio.sleep(0)
    go_on.set()
    with pytest.raises(Boom):
        await failing
    assert await reading == []


async def test_a_cancelled_writer_rolls_back_and_frees_the_database(conn) -> None:
    entered, never = asyncio.Event(), asyncio.Event()
    stuck = asyncio.create_task(failing_write(conn, entered, never))
    await entered.wait()
    stuck.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stuck
    note = await Notes(conn, FakeClock(START)).add(1, "kept")
    assert await fetch(conn, "SELECT id, content FROM notes") == [(note.id, "kept")]


async def test_a_write_inside_a_write_is_a_clear_bug_not_a_deadlock(conn) -> None:
    with pytest.raises(RuntimeError, match="write was opened inside"):
        async with conn.write(), conn.write():
            pass
    async with conn.write() as session:  # the lock was released
        await session.execute("INSERT INTO chats (chat_id, user_id) VALUES (1, 1)")
    assert await fetch(conn, "SELECT chat_id FROM chats") == [(1,)]
