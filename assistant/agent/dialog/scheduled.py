"""Scheduled agent tasks: the agent answers a stored prompt with the read-only tools fixed
when the task was made, and nobody to approve anything."""

from __future__ import annotations

from assistant.agent.dialog.agent import Agent
from assistant.agent.person import Person
from assistant.errors import RunError
from assistant.llm.types import Payer
from assistant.scheduler import Delivery, Notice, Outbox
from assistant.scheduler.delivery import footer
from assistant.tasks import Firing, Task
from assistant.tools import Registry
from assistant.tools.builtin.tasks import AgentTaskData, stored_data


class AgentTaskExecutor:
    """Runs an agent task and sends its answer to the owner."""

    def __init__(self, agent: Agent, registry: Registry, outbox: Outbox) -> None:
        self._agent = agent
        self._registry = registry
        self._outbox = outbox

    def replayable(self, task: Task) -> bool:
        """Its tools are read-only, so a repeat after a crash is harmless."""
        return True

    def tools_for(self, task: Task) -> Registry:
        """The tools the task was given, still read-only and still allowed, and no others."""
        try:
            given = set(stored_data(AgentTaskData, task).tools)
        except RunError:
            return self._registry.subset(lambda t: False)
        return self._registry.subset(lambda t: t.name in given and t.read_only)

    async def run(self, firing: Firing) -> Delivery:
        """Answer the task's prompt and deliver it; over a budget, skip it with a notice (the
        next run tries again, this one is not retried)."""
        task = firing.task
        data = stored_data(AgentTaskData, task)
        agent = self._agent.limited_to(self.tools_for(task))
        person = Person(task.owner.user_id, task.owner.chat_id, task.timezone)
        run, cap = firing.scheduled_for.isoformat(), data.monthly_cap
        payer = Payer(person.user_id, task.timezone, "task", task.id, run, task_cap=cap)
        answer = await agent.reply(person, data.prompt, payer=payer)
        if answer.ending == "error":
            raise RunError(answer.text)
        if answer.ending == "budget":
            text = f"⏸ {task.description}: {answer.text}"
            notice = Notice(task.owner, text, "report", task.id)
            return Delivery(await self._outbox.deliver(notice), "budget")
        text = f"🤖 {task.description}\n\n{answer.text}\n{footer(firing)}"
        notice = Notice(task.owner, text, "result", task.id)
        return Delivery(await self._outbox.deliver(notice), answer.ending)
