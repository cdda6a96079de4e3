"""The cost of counting: what holding a model call to its budget and recording it adds to the
call (goal: p99 under 1 ms).

Run: .venv/bin/python bench/usage.py [--quick]

A model that answers at once is called bare and metered, in pairs (one of each, in turn), over
a real SQLite file holding a year of earlier calls for 20 people (budgets set, so every check
sums a day's and a month's rows); the figure is the metered call's time less the bare one's.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.clock import SystemClock  # noqa: E402
from assistant.db import open_database  # noqa: E402
from assistant.llm.model import single  # noqa: E402
from assistant.llm.types import (  # noqa: E402
    Completion,
    Payer,
    Request,
    StreamEvent,
    Usage,
    UserMessage,
)
from assistant.pricing import BudgetSettings, Price  # noqa: E402
from assistant.usage.ledger import Alert, Ledger  # noqa: E402
from assistant.usage.metered import MeteredModel  # noqa: E402

PEOPLE, DAYS, CALLS_A_DAY = 20, 365, 30


class Instant:
    """A model that answers at once, with usage."""

    name = "instant"

    async def complete(self, request: Request) -> Completion:
        return Completion("ok", usage=Usage(1200, 40, 300))

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        return single(Completion("ok", usage=Usage(1200, 40, 300)))

    async def close(self) -> None:
        return None


async def seeded(path: Path) -> int:
    """A year of calls for ``PEOPLE`` people; the rows written."""
    db = await open_database(path)
    today, rows = datetime.now(UTC).date(), []
    for day in range(DAYS):
        date = (today - timedelta(days=day)).isoformat()
        for person in range(1, PEOPLE + 1):
            rows += [(f"{date}T08:00:00+00:00", date, person, 1000, 200, 0.001)] * CALLS_A_DAY
    async with db.write() as session:
        await session.executemany(
            "INSERT INTO usage (at, day, user_id, source, model, input_tokens, output_tokens, "
            "cost, settled) VALUES (?, ?, ?, 'chat', 'm', ?, ?, ?, 1)",
            rows,
        )
    await db.close()
    return len(rows)


async def measure(path: Path, pairs: int) -> list[float]:
    db = await open_database(path)
    budgets = BudgetSettings(daily=1e9, monthly=1e9)
    ledger = Ledger(db, SystemClock(), budgets, {"m": Price(input=1, output=2)})

    async def told(alert: Alert) -> None:
        return None

    bare = Instant()
    metered = MeteredModel(bare, ledger, "m", reply_tokens=1024, on_alert=told)
    rng, added = random.Random(3), []
    for _ in range(pairs):
        payer = Payer(rng.randint(1, PEOPLE), "Europe/Berlin")
        request = Request("system prompt " * 50, [UserMessage("hello " * 40)], payer=payer)
        started = time.perf_counter()
        await bare.complete(request)
        plain = time.perf_counter() - started
        started = time.perf_counter()
        await metered.complete(request)
        added.append((time.perf_counter() - started - plain) * 1000)
    await db.close()
    return sorted(added)


async def main(quick: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "assistant.db"
        started = time.perf_counter()
        rows = await seeded(path)
        print(f"{rows:,} earlier calls stored in {time.perf_counter() - started:.1f} s")
        await measure(path, 50)  # warm: the pages the sums read
        added = await measure(path, 300 if quick else 2000)
    p50, p99 = statistics.median(added), added[int(len(added) * 0.99) - 1]
    print(f"{len(added):,} calls, counting added: p50 {p50:.3f} ms, p99 {p99:.3f} ms, "
          f"max {added[-1]:.3f} ms (goal: p99 under 1 ms)")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main("--quick" in sys.argv))
