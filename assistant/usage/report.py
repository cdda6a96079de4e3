"""What the model cost, read back: today, this month and the last 30 days, by source and (for
the owner) by person, and the cost a day for the chart."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from assistant.db import Database

DAYS = 30


@dataclass(frozen=True)
class Line:
    """What one person's one source used in a span: calls, tokens and cost."""

    user_id: int
    source: str
    task_id: str
    calls: int
    tokens: int
    cost: float
    estimated: int = 0  # of its calls, those counted by our estimate (no count from the server)


@dataclass(frozen=True)
class Report:
    """A person's (or everyone's) use: the day, the month, 30 days by source, and by day."""

    today: tuple[Line, ...]
    month: tuple[Line, ...]
    recent: tuple[Line, ...]
    days: tuple[tuple[date, int, float], ...]  # each of the last 30 days: tokens and cost


async def report(db: Database, now: datetime, zone: str, user_id: int | None) -> Report:
    """``user_id``'s use, or everyone's for None, with days as ``zone`` counts them."""
    today = now.astimezone(ZoneInfo(zone)).date()
    first = today - timedelta(days=DAYS - 1)
    async with db.read() as session:
        spans = [
            await _lines(session, user_id, since.isoformat())
            for since in (today, today.replace(day=1), first)
        ]
        rows = await session.fetchall(
            "SELECT day, SUM(input_tokens + output_tokens), SUM(cost) FROM usage "
            f"WHERE day >= ?{_whose(user_id)} GROUP BY day",
            (first.isoformat(), *_id(user_id)),
        )
    found = {str(r[0]): (int(r[1] or 0), float(r[2] or 0)) for r in rows}
    days = [first + timedelta(days=n) for n in range(DAYS)]
    by_day = tuple((d, *found.get(d.isoformat(), (0, 0.0))) for d in days)
    return Report(spans[0], spans[1], spans[2], by_day)


async def task_costs(
    db: Database, task_ids: list[str], since: date
) -> dict[str, tuple[int, float]]:
    """Each task's runs that asked the model since ``since`` and what they cost."""
    if not task_ids:
        return {}
    marks = ",".join("?" * len(task_ids))
    async with db.read() as session:
        rows = await session.fetchall(
            "SELECT task_id, COUNT(DISTINCT at), SUM(cost) FROM usage "
            f"WHERE task_id IN ({marks}) AND day >= ? GROUP BY task_id",
            (*task_ids, since.isoformat()),
        )
    return {str(r[0]): (int(r[1]), float(r[2] or 0)) for r in rows}


async def _lines(session, user_id: int | None, since: str) -> tuple[Line, ...]:  # type: ignore[no-untyped-def]
    rows = await session.fetchall(
        "SELECT user_id, source, task_id, COUNT(*), SUM(input_tokens + output_tokens), SUM(cost),"
        f" SUM(estimated) FROM usage WHERE day >= ?{_whose(user_id)}"
        " GROUP BY user_id, source, task_id"
        " ORDER BY SUM(cost) DESC, SUM(input_tokens + output_tokens) DESC",
        (since, *_id(user_id)),
    )
    return tuple(
        Line(
            int(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4] or 0), float(r[5] or 0), int(r[6])
        )
        for r in rows
    )


def _whose(user_id: int | None) -> str:
    return "" if user_id is None else " AND user_id = ?"


def _id(user_id: int | None) -> tuple[int, ...]:
    return () if user_id is None else (user_id,)
