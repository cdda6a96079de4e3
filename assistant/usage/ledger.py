"""Every model call in the database: reserved against the budgets before it is made, settled
with what the server reported when it ends.

A budget is a cap: a call is held at its worst case (every token it sends, overestimated, and
the most it may answer) and made only when that fits what is left, its answer lowered to fit
when it can be. The check and the reservation are one write transaction, so two chats racing
past a limit cannot both spend it: the second sees the first's reservation. A reservation left
by a crash stays counted at its worst case (marked estimated), which errs on the side of the
budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from assistant.clock import Clock
from assistant.db import Database, Session
from assistant.errors import BudgetError, BudgetPeriod
from assistant.llm.types import Payer
from assistant.metrics import LLM_COST, LLM_TOKENS
from assistant.pricing import BudgetSettings, Price
from assistant.usage.counted import Counted
from assistant.usage.fitting import Measure, fit

ALERT_LEVELS = (80, 100)  # percent of a limit at which the owner is told, once each
Span = Literal["day", "month"]
Whose = Literal["person", "group", "task"]


@dataclass(frozen=True)
class Held:
    """A call's reservation, and the most its answer may take: all it asked for, or what
    fitted the budget."""

    id: int
    output_tokens: int


@dataclass(frozen=True)
class Alert:
    """A person reached ``level`` percent of a limit: their day's or their month's."""

    user_id: int
    period: Span
    level: int
    limit: float
    unit: str  # "tokens", or the currency of a limit in money


@dataclass(frozen=True)
class Window:
    """A person's day and month, as the ``day`` column holds them, and when each ends (UTC)."""

    day: str
    month_start: str
    month_end: str
    day_ends: datetime
    month_ends: datetime

    @classmethod
    def at(cls, now: datetime, zone: str) -> Window:
        """The day and month ``now`` falls in, in ``zone``."""
        tz = ZoneInfo(zone)
        today = now.astimezone(tz).date()
        first = today.replace(day=1)
        following = (first + timedelta(days=32)).replace(day=1)

        def midnight(day: date) -> datetime:
            return datetime.combine(day, time(), tz).astimezone(now.tzinfo)

        return cls(
            today.isoformat(),
            first.isoformat(),
            following.isoformat(),
            midnight(today + timedelta(days=1)),
            midnight(following),
        )

    def ends(self, span: Span) -> datetime:
        """When the day or the month ends (UTC)."""
        return self.day_ends if span == "day" else self.month_ends


class Ledger:
    """Reserves, settles and sums model calls."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        budgets: BudgetSettings,
        prices: Mapping[str, Price],
        currency: str = "USD",
    ) -> None:
        self.unit = currency if budgets.unit == "money" else "tokens"
        self._pruned = ""  # the day old rows were last removed
        self._told: set[tuple[int, str, int]] = set()  # alerts known to be recorded
        self._db = db
        self._clock = clock
        self._budgets = budgets
        self._prices = prices
        self._metric = "cost" if budgets.unit == "money" else "input_tokens + output_tokens"

    def cost(self, model: str, counted: Counted) -> float:
        """What ``counted`` costs at ``model``'s price (0 when it has none)."""
        price = self._prices.get(model, Price())
        return price.of(
            counted.input_tokens,
            counted.cached_tokens,
            counted.output_tokens,
            counted.audio_seconds,
        )

    async def reserve(
        self,
        payer: Payer,
        model: str,
        worst: Counted,
        *,
        check: bool = True,
        least_output: int | None = None,
    ) -> Held:
        """Hold a call's worst case against every budget ``payer`` answers to, in one
        transaction (so two chats racing cannot both spend what is left): all of it when it
        fits, else its answer lowered to what fits, down to ``least_output`` tokens (none
        lowered when None); BudgetError when even that does not fit."""
        window = Window.at(self._clock.now(), payer.zone)
        await self._prune(window)
        checks = self._checks(payer) if check else []
        least = worst.output_tokens if least_output is None else least_output
        async with self._db.write() as session:
            rooms = [
                (limit - await self._used(session, payer, window, whose, span), whose, span)
                for whose, span, limit in checks
            ]
            room = min(rooms)[0] if rooms else None
            fitted = fit(worst, room, least, self._per_token(model))
            held = (
                None if fitted is None else await self._hold(session, payer, window, model, fitted)
            )
        if fitted is None or held is None:
            raise await self._refusal(payer, window, min(rooms), self._measure(model, worst))
        return Held(held, fitted.output_tokens)

    async def _hold(
        self, session: Session, payer: Payer, window: Window, model: str, held: Counted
    ) -> int | None:
        row = await session.fetchone(
            "INSERT INTO usage (at, day, user_id, source, task_id, run, grouped, model, "
            "input_tokens, cached_tokens, output_tokens, audio_seconds, cost, estimated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) RETURNING id",
            (
                self._clock.now().isoformat(),
                window.day,
                payer.user_id,
                payer.source,
                payer.task_id,
                payer.run,
                int(payer.group),
                model,
                *_tokens(held),
                held.audio_seconds,
                self.cost(model, held),
            ),
        )
        return int(row[0]) if row is not None else None

    def _measure(self, model: str, counted: Counted) -> float:
        """What a call takes of a budget: its tokens, or its cost."""
        if self.unit == "tokens":
            return float(counted.input_tokens + counted.output_tokens)
        return self.cost(model, counted)

    def _per_token(self, model: str) -> Measure:
        return lambda counted: self._measure(model, counted)

    async def settle(
        self, held: int, payer: Payer, model: str, counted: Counted
    ) -> tuple[Alert, ...]:
        """The call's real use in place of its reservation, in one statement that also reads
        the person's day and month so far; the owner's alerts they crossed."""
        cost, window = self.cost(model, counted), Window.at(self._clock.now(), payer.zone)
        day, values_day = self._spent_sql(payer, window, "person", "day")
        month, values_month = self._spent_sql(payer, window, "person", "month")
        rows = await self._db.write_rows(
            "UPDATE usage SET input_tokens = ?, cached_tokens = ?, output_tokens = ?, "
            "audio_seconds = ?, cost = ?, estimated = ?, settled = 1 WHERE id = ? "
            f"RETURNING ({day}), ({month})",
            (
                *_tokens(counted),
                counted.audio_seconds,
                cost,
                int(counted.estimated),
                held,
                *values_day,
                *values_month,
            ),
        )
        LLM_TOKENS.labels(model, payer.source, "input").inc(counted.input_tokens)
        LLM_TOKENS.labels(model, payer.source, "cached").inc(counted.cached_tokens)
        LLM_TOKENS.labels(model, payer.source, "output").inc(counted.output_tokens)
        LLM_COST.labels(model, payer.source).inc(cost)
        spent = (float(rows[0][0]), float(rows[0][1])) if rows else (0.0, 0.0)
        return await self._alerts(payer, window, spent)

    @asynccontextmanager
    async def held(self, payer: Payer, model: str, counted: Counted) -> AsyncIterator[None]:
        """A call whose cost is known before it is made (a voice note's minutes): reserved
        first, settled when it succeeds, released when it fails."""
        held = (await self.reserve(payer, model, counted)).id
        try:
            yield
        except BaseException:
            await asyncio.shield(self.release(held))
            raise
        await self.settle(held, payer, model, counted)

    async def keep(self, held: int) -> None:
        """A call that may have been spent on though no answer came: its reservation stays, at
        its worst case (marked estimated), as settled."""
        await self._db.write_one("UPDATE usage SET settled = 1 WHERE id = ?", (held,))

    async def release(self, held: int) -> None:
        """A call that failed before the server took it: its reservation goes."""
        await self._db.write_one("DELETE FROM usage WHERE id = ? AND settled = 0", (held,))

    async def _prune(self, window: Window) -> None:
        """Rows older than ``budgets.keep_days`` go, once a day."""
        if self._pruned == window.day:
            return
        oldest = date.fromisoformat(window.day) - timedelta(days=self._budgets.keep_days)
        await self._db.write_one("DELETE FROM usage WHERE day < ?", (oldest.isoformat(),))
        self._pruned = window.day

    def _checks(self, payer: Payer) -> list[tuple[Whose, Span, float]]:
        """The limits ``payer`` answers to: theirs, their group's, their task's (set ones)."""
        limits, groups = self._budgets.limits(payer.user_id), self._budgets.groups
        checks: list[tuple[Whose, Span, float]] = [
            ("person", "day", limits.daily),
            ("person", "month", limits.monthly),
        ]
        if payer.group:
            checks += [("group", "day", groups.daily), ("group", "month", groups.monthly)]
        if payer.task_id:
            checks.append(("task", "month", payer.task_cap))
        return [check for check in checks if check[2]]

    async def _refusal(
        self, payer: Payer, window: Window, tightest: tuple[float, Whose, Span], needed: float
    ) -> BudgetError:
        """The budget a call does not fit, said with what it needs, what is left (and how
        much answers in progress hold of it), and when the budget starts again."""
        room, whose, span = tightest
        period: BudgetPeriod = "task" if whose == "task" else span
        sql, values = self._spent_sql(payer, window, whose, span, in_progress=True)
        async with self._db.read() as session:
            row = await session.fetchone(sql, values)
        return BudgetError(
            f"the {whose}'s {span} budget has {max(room, 0):g} left; the call needs {needed:g}",
            period,
            window.ends(span),
            shared=whose == "group",
            needed=needed,
            left=max(room, 0.0),
            unit=self.unit,
            held=float(row[0]) if row else 0.0,
        )

    def _spent_sql(
        self, payer: Payer, window: Window, whose: Whose, span: Span, *, in_progress: bool = False
    ) -> tuple[str, tuple[object, ...]]:
        """What ``whose`` used in the day or the month (reservations included; only those of
        calls in progress with ``in_progress``), as SQL."""
        column, value = {
            "person": ("user_id", payer.user_id),
            "group": ("grouped", 1),
            "task": ("task_id", payer.task_id),
        }[whose]
        days = "day = ?" if span == "day" else "day >= ? AND day < ?"
        bounds = (window.day,) if span == "day" else (window.month_start, window.month_end)
        sql = f"SELECT COALESCE(SUM({self._metric}), 0) FROM usage WHERE {column} = ? AND {days}"
        return sql + (" AND settled = 0" if in_progress else ""), (value, *bounds)

    async def _used(
        self, session: Session, payer: Payer, window: Window, whose: Whose, span: Span
    ) -> float:
        """What ``whose`` used in the day or the month, calls in progress held at their
        worst case."""
        sql, values = self._spent_sql(payer, window, whose, span)
        row = await session.fetchone(sql, values)
        return float(row[0]) if row else 0.0

    async def _alerts(
        self, payer: Payer, window: Window, spent: tuple[float, float]
    ) -> tuple[Alert, ...]:
        """The levels the person's day and month crossed, each recorded so it is told once."""
        if payer.source == "system":
            return ()  # the assistant's own checks: nobody's budget
        limits, found = self._budgets.limits(payer.user_id), []
        spans: tuple[tuple[Span, float, float, str], ...] = (
            ("day", limits.daily, spent[0], window.day),
            ("month", limits.monthly, spent[1], window.month_start[:7]),
        )
        for span, limit, used, key in spans:
            for level in ALERT_LEVELS if limit else ():
                told = (payer.user_id, f"{span}:{key}", level)
                if used < limit * level / 100 or told in self._told:
                    continue
                self._told.add(told)
                if await _first_time(self._db, *told):
                    found.append(Alert(payer.user_id, span, level, limit, self.unit))
        return tuple(found)


async def _first_time(db: Database, user_id: int, period: str, level: int) -> bool:
    cursor = await db.write_one(
        "INSERT OR IGNORE INTO budget_alerts (user_id, period, level) VALUES (?, ?, ?)",
        (user_id, period, level),
    )
    return bool(cursor.rowcount)


def _tokens(counted: Counted) -> tuple[int, int, int]:
    return counted.input_tokens, counted.cached_tokens, counted.output_tokens
