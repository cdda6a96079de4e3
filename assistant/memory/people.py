"""The people who use the assistant: their timezone, their name, whether they blocked us."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.clock import Clock, shorten, zone_or_none
from assistant.db import Database
from assistant.errors import ToolError


@dataclass(frozen=True)
class Profile:
    """What is known of a user; no timezone until they set one."""

    user_id: int
    timezone: str | None = None
    name: str = ""
    blocked: bool = False
    language: str = ""  # "" until Telegram, /lang or their words say


class People:
    """Profiles by user id."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def get(self, user_id: int) -> Profile:
        """The user's profile (an empty one for someone new)."""
        async with self._db.read() as session:
            row = await session.fetchone(
                "SELECT timezone, name, blocked, language FROM people WHERE user_id = ?",
                (user_id,),
            )
        if row is None:
            return Profile(user_id)
        return Profile(user_id, row[0], row[1], bool(row[2]), row[3])

    async def language(self, user_id: int) -> str:
        """The language kept for the person, "" when none is."""
        return (await self.get(user_id)).language or ""

    async def set_timezone(self, user_id: int, timezone: str) -> str:
        """Store the user's IANA timezone; an unknown name is a clear error."""
        name = timezone.strip()
        if zone_or_none(name) is None:
            raise ToolError(
                f"{shorten(name)} is not a timezone I know; use an IANA name such as "
                "Europe/Berlin, America/New_York or Asia/Tokyo"
            )
        await self._upsert(user_id, "timezone", name)
        return name

    async def set_name(self, user_id: int, name: str) -> None:
        """Remember what to call the user."""
        await self._upsert(user_id, "name", name.strip()[:100])

    async def set_language(self, user_id: int, language: str) -> None:
        """Remember the language to answer the user in (a code such as ``ru``)."""
        await self._upsert(user_id, "language", language)

    async def set_blocked(self, user_id: int, blocked: bool) -> None:
        """Remember that the user blocked the bot (or unblocked it)."""
        await self._upsert(user_id, "blocked", int(blocked))

    async def _upsert(self, user_id: int, column: str, value: object) -> None:
        async with self._db.write() as session:
            await session.execute(
                f"INSERT INTO people (user_id, {column}, updated_at) VALUES (?, ?, ?) "
                f"ON CONFLICT (user_id) DO UPDATE SET {column} = excluded.{column}, "
                "updated_at = excluded.updated_at",
                (user_id, value, self._clock.now().isoformat()),
            )
