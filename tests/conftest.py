"""Shared fixtures: a real SQLite file in tmp_path, a fake clock, a call context."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from assistant.clock import FakeClock
from assistant.db import Database, open_database
from assistant.tools import ToolContext

START = datetime(2026, 3, 14, 9, 26, 53, tzinfo=UTC)


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
