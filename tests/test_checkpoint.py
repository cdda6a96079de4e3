"""The checkpointer: the writers count commits, and the log is copied on a thread of its own."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import timedelta

from assistant.checkpoint import Checkpointer, _checkpoint
from assistant.clock import FakeClock
from assistant.db import open_database
from assistant.scheduler import ReminderExecutor, Scheduler
from assistant.tasks import TaskStore
from tests.conftest import fetch
from tests.tasks_fixtures import FakeOutbox, reminder


async def test_every_so_many_commits_the_log_is_copied_into_the_file(tmp_path):
    db = await open_database(tmp_path / "assistant.db")
    db.checkpointer = Checkpointer(db.path, every=5)
    running = asyncio.ensure_future(db.checkpointer.run())
    try:
        await db.write_one("CREATE TABLE t (x TEXT)")
        for n in range(3):
            async with db.write() as session:
                await session.execute("INSERT INTO t VALUES (?)", (f"row {n}",))
        for _ in range(20):
            await asyncio.sleep(0)
        assert db.checkpointer.last is None  # four commits: not yet
        await db.write_one("INSERT INTO t VALUES ('row 3')")
        await asyncio.wait_for(db.checkpointer.done.wait(), 10)
        last = db.checkpointer.last
        assert last is not None and not last.busy
        assert last.logged > 0 and last.copied == last.logged
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    assert await fetch(db, "SELECT COUNT(*) FROM t") == [(4,)]
    await db.close()


async def test_writers_leave_the_log_to_the_checkpointer_up_to_a_bound(tmp_path):
    db = await open_database(tmp_path / "assistant.db")
    assert await fetch(db, "PRAGMA wal_autocheckpoint") == [(16000,)]
    await db.close()


async def test_the_scheduler_counts_its_commits(tmp_path, conn, clock: FakeClock):
    commits: list[None] = []
    outbox = FakeOutbox()
    scheduler = Scheduler(tmp_path / "assistant.db", clock, {"reminder": ReminderExecutor(outbox)},
                          outbox, wrote=lambda: commits.append(None))  # fmt: skip
    try:
        await TaskStore(conn, clock).add(reminder("tea", "in 1m", clock.now()))
        clock.advance(timedelta(minutes=1))
        assert await scheduler.fire_due() == 1
        assert len(commits) >= 2  # the claim and the outcome
    finally:
        await scheduler.close()


def test_a_failed_checkpoint_is_logged_and_tried_again_later(tmp_path, caplog):
    conn = sqlite3.connect(tmp_path / "gone.db")
    conn.close()
    with caplog.at_level(logging.WARNING, "assistant.checkpoint"):
        result = _checkpoint(conn)
    assert result.busy and result.copied == -1
    assert "could not checkpoint" in caplog.text


async def test_a_checkpointer_that_cannot_connect_leaves_the_writers_to_it(tmp_path, caplog):
    checkpointer = Checkpointer(tmp_path / "no such folder" / "assistant.db")
    with caplog.at_level(logging.WARNING, "assistant.checkpoint"):
        await asyncio.wait_for(checkpointer.run(), 10)  # returns instead of failing the app
    assert "writers will do them" in caplog.text
