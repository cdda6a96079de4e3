"""The owner is told, once, when something stays broken: the model down for ten minutes,
messages failing to go out for ten minutes, the data folder's disk nearly full; and once
more when it works again. Checked once a minute; never a message per retry."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

from assistant.clock import Clock
from assistant.mcp import Hub
from assistant.scheduler import Notice, Outbox
from assistant.tasks import Owner

log = logging.getLogger(__name__)


class Usage(Protocol):
    """A disk's size and free space, as ``shutil.disk_usage`` tells them."""

    @property
    def total(self) -> int: ...
    @property
    def free(self) -> int: ...


EVERY = timedelta(minutes=1)
LOW_DISK_BYTES = 200 * 1024 * 1024
LOW_DISK_SHARE = 0.02


@dataclass(frozen=True)
class Condition:
    """A thing that may break: its name, and what is wrong with it now (None when fine)."""

    name: str
    problem: Callable[[datetime], str | None]


def disk(folder: Path, usage_of: Callable[[Path], Usage] = shutil.disk_usage) -> Condition:
    """The data folder's disk nearly full."""

    def problem(now: datetime) -> str | None:
        usage = usage_of(folder)
        if usage.free >= LOW_DISK_BYTES and usage.free >= usage.total * LOW_DISK_SHARE:
            return None
        return f"The disk of {folder} is nearly full: {usage.free // 2**20} MB free."

    return Condition("disk", problem)


def servers(hub: Hub) -> list[Condition]:
    """Each MCP server down: said once with its reason, and once when it is back."""

    def check(name: str) -> Callable[[datetime], str | None]:
        def problem(now: datetime) -> str | None:
            connection = next(c for c in hub if c.spec.name == name)
            if connection.state != "down":
                return None
            return f"The MCP server {name} is down ({connection.reason}); its tools are left out."

        return problem

    return [Condition(f"the MCP server {c.spec.name}", check(c.spec.name)) for c in hub]


class Alerts:
    """Tells the owner once per trouble, and once when it is over."""

    def __init__(
        self, outbox: Outbox, owner: Owner, clock: Clock, conditions: Sequence[Condition]
    ) -> None:
        self._outbox, self._owner, self._clock = outbox, owner, clock
        self._conditions = conditions
        self._told: set[str] = set()

    async def check(self) -> None:
        """Look at every condition once; say what changed."""
        now = self._clock.now()
        for condition in self._conditions:
            try:
                problem = condition.problem(now)
            except OSError as exc:
                problem = f"{condition.name} cannot be checked: {exc.strerror}"
            if problem and condition.name not in self._told:
                await self._tell(f"⚠️ {problem}", condition.name, add=True)
            elif not problem and condition.name in self._told:
                await self._tell(f"✅ Fixed: {condition.name} works again.", condition.name)

    async def _tell(self, text: str, name: str, *, add: bool = False) -> None:
        log.warning("telling the owner: %s", text)
        try:
            await self._outbox.deliver(Notice(self._owner, text))
        except Exception as exc:  # the channel may be what is broken: try again next minute
            log.warning("could not tell the owner: %s", type(exc).__name__)
            return
        if add:
            self._told.add(name)
        else:
            self._told.discard(name)

    async def run(self) -> None:
        """Check once a minute until cancelled."""
        while True:
            await self.check()
            await self._clock.sleep_until(self._clock.now() + EVERY)
