"""Fakes for the scheduler's seams: an outbox that records or refuses, an HTTP-like executor."""

from __future__ import annotations

import asyncio
from datetime import datetime

from assistant.errors import RetryableRunError
from assistant.scheduler import Delivery, Notice
from assistant.schedules.oneshot import parse_once
from assistant.schedules.recurring import parse_recurring
from assistant.tasks import Firing, NewTask, Owner, Task

ZONE = "Europe/Berlin"
ALICE = Owner(42, 4200)
BOB = Owner(7, 700)


class FakeOutbox:
    """Records what it delivered; can refuse deliveries of some kinds, or hold them."""

    def __init__(self) -> None:
        self.notices: list[Notice] = []
        self.failures = 0
        self.failing_kinds: set[str] = {"reminder"}
        self.hold: asyncio.Event | None = None
        self.arrived = asyncio.Event()

    async def deliver(self, notice: Notice) -> int:
        if self.failures and notice.kind in self.failing_kinds:
            self.failures -= 1
            raise RetryableRunError("the channel is unreachable")
        if self.hold is not None and notice.kind == "reminder":
            await self.hold.wait()
        self.notices.append(notice)
        self.arrived.set()
        return 1000 + len(self.notices)

    def texts(self, kind: str | None = None) -> list[str]:
        return [n.text for n in self.notices if kind is None or n.kind == kind]


class FakeCalls:
    """An api_call executor: GET is safe to repeat, anything else is not; it can hang."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, datetime]] = []
        self.entered = asyncio.Event()
        self.release: asyncio.Event | None = None
        self.error: Exception | None = None

    def replayable(self, task: Task) -> bool:
        return str(task.execution.get("method", "GET")).upper() == "GET"

    async def run(self, firing: Firing) -> Delivery:
        self.calls.append((firing.task.id, firing.scheduled_for))
        self.entered.set()
        if self.release is not None:
            await self.release.wait()
        if self.error is not None:
            raise self.error
        return Delivery(None, "200 OK")


def reminder(text: str, when: str, now: datetime, owner: Owner = ALICE) -> NewTask:
    return NewTask(owner, "reminder", text, parse_once(when, ZONE, now), {"text": text})


def recurring(text: str, when: str, now: datetime, owner: Owner = ALICE) -> NewTask:
    return NewTask(owner, "reminder", text, parse_recurring(when, ZONE, now), {"text": text})


def call(method: str, when: str, now: datetime, owner: Owner = ALICE) -> NewTask:
    execution = {"url": "http://home.lan/lights", "method": method}
    return NewTask(owner, "api_call", f"{method} lights", parse_once(when, ZONE, now), execution)


async def until(condition, rounds: int = 5000) -> None:
    """Yield to other tasks and threads until ``condition()`` holds (no timer involved)."""
    for _ in range(rounds):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("condition never held")
