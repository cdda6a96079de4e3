"""Scheduled agent tasks: the agent answers a stored prompt with the read-only tools fixed
when the task was made, and nobody to approve anything."""

from __future__ import annotations

from assistant.agent.dialog.agent import Agent
from assistant.agent.person import Person
from assistant.errors import RunError
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
        """Answer the task's prompt and deliver it."""
        task = firing.task
        prompt = stored_data(AgentTaskData, task).prompt
        agent = self._agent.limited_to(self.tools_for(task))
        person = Person(task.owner.user_id, task.owner.chat_id, task.timezone)
        answer = await agent.reply(person, prompt)
        if answer.ending == "error":
            raise RunError(answer.text)
        text = f"🤖 {task.description}\n\n{answer.text}\n{footer(firing)}"
        notice = Notice(task.owner, text, "result", task.id)
        return Delivery(await self._outbox.deliver(notice), answer.ending)
