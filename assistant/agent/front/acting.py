"""Tool calls made for a person outside a model's turn (the local step, slash commands): the
same executor, checks, approvals and audit as a model's calls; their call ids start with
``local-`` so the audit says no model made them."""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from assistant.agent.approving.approver import ApprovalRequest, Approver
from assistant.agent.front.buttons import Button, Reply, task_buttons
from assistant.agent.front.phrases import language_of, say
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.llm.types import ToolCall
from assistant.tasks import Task
from assistant.tools import Executor, ToolContext, ToolResult, ValidCall
from assistant.tools.services import Services


class Acting:
    """Runs one tool call on a person's behalf, or asks them first."""

    def __init__(
        self, executor: Executor, approver: Approver, services: Services, clock: Clock
    ) -> None:
        self._executor = executor
        self._approver = approver
        self._services = services
        self._clock = clock

    async def run(self, person: Person, tool: str, arguments: Mapping[str, object]) -> Reply:
        """One tool call, checked, approved when its tool asks for it, run and audited."""
        context = self.context(person)
        checked = await self._executor.check(_call(tool, arguments), context)
        if isinstance(checked, ToolResult):
            return Reply(checked.content)
        if (reason := checked.tool.approval_reason(checked.arguments)) is not None:
            return await self.ask(
                person, checked, context, reason, say("en", "confirm", action=reason)
            )
        [result] = await self._executor.execute([checked], context)
        return Reply(result.content, _buttons(result))

    async def confirm(
        self,
        person: Person,
        tool: str,
        arguments: Mapping[str, object],
        action: str,
        language: str,
    ) -> Reply:
        """The call, checked, waits for the owner's yes; the prompt shows ``action``."""
        context = self.context(person)
        checked = await self._executor.check(_call(tool, arguments), context)
        if isinstance(checked, ToolResult):
            return Reply(checked.content)
        shown = say(language, "confirm", action=action)
        reason = f"understood without a model: {action}"
        return await self.ask(person, checked, context, reason, shown, human=action)

    async def ask(
        self,
        person: Person,
        checked: ValidCall,
        context: ToolContext,
        reason: str,
        shown: str,
        *,
        human: str = "",
    ) -> Reply:
        """The call waits for the owner's button; ``shown`` says so, or why it cannot."""
        if await self._approver.ask(ApprovalRequest.of(context, checked, reason, human)):
            return Reply(shown)
        await self._executor.refuse(checked, context, "not run: nobody could be asked to confirm")
        return Reply(say(language_of(shown), "not_asked"))

    def context(self, person: Person) -> ToolContext:
        request_id = f"local-{uuid.uuid4().hex[:12]}"
        return ToolContext(
            person.user_id, person.chat_id, request_id, person.timezone, self._clock, self._services
        )


def _buttons(result: ToolResult) -> tuple[tuple[Button, ...], ...]:
    """The usual buttons under a task just made, so a misread is one press from undone."""
    if result.is_error or not isinstance(result.value, Task):
        return ()
    return (task_buttons(result.value),)


def _call(tool: str, arguments: Mapping[str, object]) -> ToolCall:
    return ToolCall(f"local-{uuid.uuid4().hex[:12]}", tool, dict(arguments))
