"""Budget alerts the owner could not be sent (they never wrote to the bot, or it was down),
kept until the owner next writes, so none is lost."""

from __future__ import annotations

from assistant.clock import Clock
from assistant.db import Database
from assistant.usage.ledger import Alert


class KeptAlerts:
    """The alerts waiting for the owner."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def keep(self, alert: Alert) -> None:
        """Keep an alert that could not be delivered."""
        await self._db.write_one(
            "INSERT INTO alerts_kept (user_id, span, level, limit_amount, unit, at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                alert.user_id,
                alert.period,
                alert.level,
                alert.limit,
                alert.unit,
                self._clock.now().isoformat(),
            ),
        )

    async def take(self) -> list[Alert]:
        """The kept alerts, oldest first, gone from the store once read."""
        rows = await self._db.write_rows(
            "DELETE FROM alerts_kept RETURNING id, user_id, span, level, limit_amount, unit"
        )
        return [Alert(r[1], r[2], r[3], r[4], r[5]) for r in sorted(rows, key=lambda r: r[0])]
