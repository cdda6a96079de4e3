"""Shared fixtures: a real SQLite file in tmp_path, a fake clock, a call context."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assistant.clock import FakeClock
from assistant.db import Database, open_database
from assistant.tools import ToolContext

START = datetime(2026, 3, 14, 9, 26, 53, tzinfo=UTC)


@pytest.fixture(autouse=True)
def keep_umask() -> Iterator[None]:
    """The command line makes the process umask 077; a test that runs it in-process must not
    leave that to the tests after it (a venv other users must read, say)."""
    before = os.umask(0o022)
    os.umask(before)
    yield
    os.umask(before)


@pytest.fixture(scope="session")
def shared_install() -> Iterator[tuple[Path, Path]]:
    """This checkout's code and dependencies where an unprivileged user can read them."""
    from shared_install import shared_folder, shared_paths

    folder = shared_folder()
    try:
        yield shared_paths(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
async def conn(tmp_path) -> AsyncIterator[Database]:
    connection = await open_database(tmp_path / "assistant.db")
    yield connection
    await connection.close()


@pytest.fixture
def context(clock: FakeClock) -> ToolContext:
    return ToolContext(
        user_id=42, chat_id=42, request_id="req-1", timezone="Europe/Berlin", clock=clock
    )


async def fetch(db: Database, sql: str, parameters: tuple = ()) -> list[tuple]:
    """Rows of a query as plain tuples, read the way the app reads."""
    async with db.read() as session:
        return [tuple(row) for row in await session.fetchall(sql, parameters)]
