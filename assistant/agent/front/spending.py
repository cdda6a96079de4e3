"""``/usage`` and "how much have I spent": the person's use of the model today, this month and
in the last 30 days by source, everyone's for the owner, with a chart of the 30 days."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from assistant.agent.front.buttons import Reply
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.db import Database
from assistant.locales import tr
from assistant.memory.people import People
from assistant.schedules.schedule import next_after
from assistant.tasks import Task, TaskStore
from assistant.tools import Attachment
from assistant.usage.report import report, task_costs
from assistant.usage.telling import amount, usage_text

MONTH = timedelta(days=30)
RUNS_COUNTED = 10_000


class Spending:
    """Tells people what the model cost them, with a picture."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        unit: str,
        owner: int,
        tasks: TaskStore | None,
        *,
        people: People | None = None,
    ) -> None:
        self._people = people
        self._db = db
        self._clock = clock
        self._unit = unit  # the currency, or "tokens"
        self._owner = owner
        self._tasks = tasks

    async def usage(self, person: Person, rest: str = "", *, language: str = "") -> Reply:
        """The person's use (everyone's for the owner), and the 30 days as a chart, in their
        language (else ``language``, that of their words)."""
        from assistant.usage.chart import chart  # matplotlib: loaded when first drawn

        language = person.language or language or "en"
        everyone = person.user_id == self._owner
        found = await report(
            self._db, self._clock.now(), person.timezone, None if everyone else person.user_id
        )
        mine = await self._tasks.list_tasks(person.user_id) if self._tasks else []
        names = {task.id: task.description for task in mine}
        people = {line.user_id for line in found.recent} if everyone else set()
        called = {user: await self._name(user) for user in people}
        text = usage_text(found, self._unit, language, names, everyone=everyone, names=called)
        caption = tr(language, "Model use, the last {n} days", n=len(found.days))
        picture = Attachment("image", chart(found.days, self._unit, language), caption)
        return Reply(text, images=(picture,))

    async def _name(self, user_id: int) -> str:
        return (await self._people.get(user_id)).name if self._people else ""

    async def costs(self, tasks: Sequence[Task], language: str) -> dict[str, str]:
        """Each scheduled agent task's cost a run (its average over 30 days) and a month at
        its current rate (runs in the next 30 days), by task id; tasks that never asked the
        model are left out."""
        agents = [task for task in tasks if task.kind == "agent_task"]
        now = self._clock.now()
        spent = await task_costs(self._db, [t.id for t in agents], (now - MONTH).date())
        found = {}
        for task in agents:
            runs, cost = spent.get(task.id, (0, 0.0))
            if runs:
                each = cost / runs
                month = each * _runs_within(task, now, MONTH)
                found[task.id] = tr(
                    language,
                    "{each} a run, about {month} a month",
                    each=amount(each, self._unit, language),
                    month=amount(month, self._unit, language),
                )
        return found


def _runs_within(task: Task, now: datetime, span: timedelta) -> int:
    """How many runs the task's schedule has in ``span`` from ``now`` (at most 10,000)."""
    count, at = 0, next_after(task.schedule, now)
    while at is not None and at - now <= span and count < RUNS_COUNTED:
        count, at = count + 1, next_after(task.schedule, at)
    return count
