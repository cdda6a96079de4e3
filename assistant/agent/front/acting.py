"""Tool calls made for a person outside a model's turn (the local step, slash commands): the
same executor, checks, approvals and audit as a model's calls; their call ids start with
``local-`` so the audit says no model made them."""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from assistant.agent.approving.approver import ApprovalRequest, Approver
from assistant.agent.front.buttons import Button, Reply, task_buttons
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.errors import AssistantError, ModelError
from assistant.llm.types import ToolCall
from assistant.locales import ENGLISH, tr
from assistant.tasks import Task
from assistant.tools import Executor, ToolContext, ToolResult, ValidCall
from assistant.tools.services import Services
from assistant.tools.telling import told


class Acting:
    """Runs one tool call on a person's behalf, or asks them first."""

    def __init__(
        self, executor: Executor, approver: Approver, services: Services, clock: Clock
    ) -> None:
        self._executor = executor
        self._approver = approver
        self._services = services
        self._clock = clock

    async def run(
        self, person: Person, tool: str, arguments: Mapping[str, object], language: str = ""
    ) -> Reply:
        """One tool call, checked, approved when its tool asks for it, run and audited; told
        in ``language`` (the person's, else English)."""
        language = language or person.language or ENGLISH
        context = self.context(person)
        checked = await self._executor.check(_call(tool, arguments), context)
        if isinstance(checked, ToolResult):
            return Reply(checked.content)
        if (reason := checked.tool.approval_reason(checked.arguments)) is not None:
            shown = tr(language, "Please confirm: {action}.", action=reason)
            return await self.ask(person, checked, context, reason, shown, language=language)
        [result] = await self._executor.execute([checked], context)
        said = told(result, language, person.timezone)
        return Reply(said, _buttons(result, language), failure=_ours(result))

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
        shown = tr(language, "Please confirm: {action}.", action=action)
        reason = f"understood without a model: {action}"
        return await self.ask(
            person, checked, context, reason, shown, language=language, human=action
        )

    async def ask(
        self,
        person: Person,
        checked: ValidCall,
        context: ToolContext,
        reason: str,
        shown: str,
        *,
        language: str,
        human: str = "",
    ) -> Reply:
        """The call waits for the owner's button; ``shown`` says so, or why it cannot."""
        request = ApprovalRequest.of(context, checked, reason, human, language)
        if await self._approver.ask(request):
            return Reply(shown)
        await self._executor.refuse(checked, context, "not run: nobody could be asked to confirm")
        return Reply(tr(language, "I could not ask you to confirm, so nothing was changed."))

    def context(self, person: Person) -> ToolContext:
        return person.context(f"local-{uuid.uuid4().hex[:12]}", self._clock, self._services)


def _buttons(result: ToolResult, language: str) -> tuple[tuple[Button, ...], ...]:
    """The usual buttons under a task just made, so a misread is one press from undone."""
    if result.is_error or not isinstance(result.value, Task):
        return ()
    return (task_buttons(result.value, language),)


def _ours(result: ToolResult) -> AssistantError | None:
    """The failure of ours a call ended on (the database could not be written), not the
    request's mistake (a ModelError, told to the person as a refusal)."""
    failed = result.value if result.is_error else None
    if isinstance(failed, AssistantError) and not isinstance(failed, ModelError):
        return failed
    return None


def _call(tool: str, arguments: Mapping[str, object]) -> ToolCall:
    return ToolCall(f"local-{uuid.uuid4().hex[:12]}", tool, dict(arguments))
