"""Delivering to people: the scheduler's outbox, where a person who blocked the bot has their
tasks paused, and the line when they write again and those tasks run again."""

from __future__ import annotations

import logging
from dataclasses import replace

from assistant.clock import Clock
from assistant.errors import RecipientBlockedError
from assistant.locales import ENGLISH
from assistant.memory.approvals import ApprovalBook
from assistant.memory.people import People
from assistant.metrics import DELIVERIES_FAILED, Streak
from assistant.scheduler import Notice, Outbox
from assistant.tasks import TaskStore

log = logging.getLogger(__name__)


class Deliveries:
    """The channel's outbox as the scheduler uses it: a user who blocked the bot gets their
    tasks paused, and back when they write again."""

    def __init__(
        self,
        channel: Outbox,
        people: People,
        tasks: TaskStore,
        clock: Clock,
        approvals: ApprovalBook | None = None,
    ) -> None:
        self._approvals = approvals  # a notice is said since them: a typed yes is not theirs
        self._channel = channel
        self._clock = clock
        self._people = people
        self._tasks = tasks
        self.failing = Streak()  # for the owner's alerts

    async def deliver(self, notice: Notice) -> int:
        """Send through the channel, in the owner's language; a block pauses their tasks."""
        if notice.words is not None:
            language = (await self._people.get(notice.owner.user_id)).language
            language = language or ENGLISH
            notice = replace(notice, text=notice.words(language), language=language)
        try:
            message_id = await self._channel.deliver(notice)
        except RecipientBlockedError:
            DELIVERIES_FAILED.inc()
            user = notice.owner.user_id
            await self._people.set_blocked(user, True)
            paused = await self._tasks.pause_blocked(user)
            log.warning("user %d blocked the bot; paused %d of their tasks", user, paused)
            raise
        except Exception as exc:
            DELIVERIES_FAILED.inc()
            self.failing.failed(self._clock.now(), type(exc).__name__)
            raise
        self.failing.ok()
        if self._approvals is not None:
            owner = notice.owner
            await self._approvals.said_since(owner.chat_id, owner.user_id, "")
        return message_id


async def welcome_back(people: People, tasks: TaskStore, user_id: int) -> str:
    """The line for a user who had blocked the bot and writes again, their paused tasks
    resumed; "" for everyone else."""
    if not (await people.get(user_id)).blocked:
        return ""
    await people.set_blocked(user_id, False)
    resumed = await tasks.resume_blocked(user_id)
    if not resumed:
        return ""
    ids = ", ".join(t.id for t in resumed)
    return (
        f"Welcome back! I had paused {len(resumed)} task(s) while I could not reach you; "
        f"they run again: {ids}."
    )
