"""Moving the write-ahead log into the database file on a thread of its own.

SQLite checkpoints in the connection whose commit crosses its limit: that writer copies the
log's pages into the file and syncs both before its commit returns, and a scheduler firing a
burst, or a user adding a task, waits tens of milliseconds for it. Here the writers only count
their commits; every so many, a connection of the checkpointer's own copies the log in passive
mode (never blocking a reader or a writer) while the writers go on. The writers' connections
keep SQLite's own checkpoint at a far higher limit: if this one is not running, the log is
still bounded.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

COMMITS_PER_CHECKPOINT = 1000


@dataclass(frozen=True)
class Checkpoint:
    """What one passive checkpoint did: the log's pages, and how many of them are in the file."""

    busy: bool
    logged: int
    copied: int


class Checkpointer:
    """Counts the writers' commits and checkpoints every ``every`` of them, off their path."""

    def __init__(self, path: Path, every: int = COMMITS_PER_CHECKPOINT) -> None:
        self._path = path
        self._every = every
        self._commits = 0
        self._due = asyncio.Event()
        self.done = asyncio.Event()  # set after each checkpoint: for tests and waiters
        self.last: Checkpoint | None = None

    def wrote(self) -> None:
        """Count one commit (called on the event loop after it)."""
        self._commits += 1
        if self._commits >= self._every:
            self._due.set()

    async def run(self) -> None:
        """Checkpoint whenever enough commits were counted, until cancelled."""
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(1, thread_name_prefix="checkpoint") as thread:
            try:
                conn = await loop.run_in_executor(thread, self._connect)
            except sqlite3.Error as exc:
                log.warning("no checkpoints on their own thread (%s); writers will do them", exc)
                return
            try:
                while True:
                    await self._due.wait()
                    self._due.clear()
                    self._commits = 0
                    self.done.clear()
                    self.last = await loop.run_in_executor(thread, _checkpoint, conn)
                    self.done.set()
            finally:
                await asyncio.shield(loop.run_in_executor(thread, conn.close))

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 5000")
        return conn


def _checkpoint(conn: sqlite3.Connection) -> Checkpoint:
    try:
        busy, logged, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except sqlite3.Error as exc:
        # The writers' own checkpoint still bounds the log; the next count tries again.
        log.warning("could not checkpoint the database log: %s", exc)
        return Checkpoint(True, -1, -1)
    log.debug("checkpoint: %d of %d log pages in the file", copied, logged)
    return Checkpoint(bool(busy), logged, copied)
