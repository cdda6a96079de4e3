"""What the scheduler tells owners: runs that failed for good, and runs missed or abandoned."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from typing import Literal

from assistant.errors import RunError
from assistant.locales import ENGLISH, tr
from assistant.scheduler.delivery import Notice, Outbox
from assistant.tasks.runs import Dropped, Outcome
from assistant.tasks.task import Owner

log = logging.getLogger(__name__)


def _heading(what: Literal["missed", "abandoned"], language: str) -> str:
    if what == "missed":
        return tr(language, "While I was not running, these came due and were missed:")
    return tr(language, "A restart interrupted these; they were not repeated. Check them:")


def _failed(outcome: Outcome, language: str) -> str:
    task = outcome.task
    return tr(
        language,
        "⚠️ Task {id} ({what}) failed: {why}",
        id=task.id,
        what=task.description,
        why=outcome.error,
    )


def _dropped(items: Sequence[Dropped], what: Literal["missed", "abandoned"], language: str) -> str:
    lines = [f"• {d.task.id} {d.task.description} ({d.reason})" for d in items]
    return "\n".join([_heading(what, language), *lines])


class Reports:
    """Sends the scheduler's notices to owners; a notice that cannot go out is logged."""

    def __init__(self, outbox: Outbox, timeout: float) -> None:
        self._outbox = outbox
        self._timeout = timeout

    async def failures(self, outcomes: Sequence[Outcome]) -> None:
        """One notice per run that failed for good."""
        for o in outcomes:
            if o.status == "error":
                words = partial(_failed, o)
                await self._send(Notice(o.task.owner, words(ENGLISH), "report", o.task.id, words))

    async def dropped(
        self, dropped: Sequence[Dropped], what: Literal["missed", "abandoned"]
    ) -> None:
        """One notice per owner listing the runs that will not happen."""
        by_owner: dict[Owner, list[Dropped]] = defaultdict(list)
        for d in dropped:
            by_owner[d.task.owner].append(d)
        for owner, items in by_owner.items():
            words = partial(_dropped, items, what)
            await self._send(Notice(owner, words(ENGLISH), words=words))

    async def _send(self, notice: Notice) -> None:
        try:
            async with asyncio.timeout(self._timeout):
                await self._outbox.deliver(notice)
        except (RunError, TimeoutError) as exc:
            log.warning("could not tell user %s: %s", notice.owner.user_id, exc)
        except Exception:
            log.exception("could not tell user %s", notice.owner.user_id)
