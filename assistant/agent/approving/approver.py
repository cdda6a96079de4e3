"""The approval seam: the agent asks, a channel shows the exact action and the user decides.

An approval is a stored, pending action, not a coroutine waiting: the agent's turn ends with
the prompt, and the answer, whenever it comes, runs exactly the stored call or refuses it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from assistant.locales import ENGLISH
from assistant.tools import ToolContext, ValidCall


@dataclass(frozen=True)
class ApprovalRequest:
    """One validated call waiting for its owner's yes or no."""

    user_id: int
    chat_id: int
    timezone: str
    request_id: str
    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    reason: str
    human: str = ""  # the action in words (the note's text, the task's line), shown instead
    # of the call; the approval stays bound to the exact call all the same
    language: str = ENGLISH  # the one the prompt is shown in
    channel: str = ""  # where the turn that asks came from, and so where it is shown

    @classmethod
    def of(
        cls,
        context: ToolContext,
        valid: ValidCall,
        reason: str,
        human: str = "",
        language: str = ENGLISH,
    ) -> ApprovalRequest:
        """The request for a checked call made in ``context``."""
        return cls(
            context.user_id,
            context.chat_id,
            context.timezone,
            context.request_id,
            valid.call.id,
            valid.tool.name,
            valid.json_arguments,
            reason,
            human,
            language,
            context.channel,
        )


@dataclass(frozen=True)
class Pending:
    """An approval as a channel shows it: the token its buttons carry and the exact action."""

    token: str
    user_id: int
    chat_id: int
    tool: str
    text: str
    expires_at: datetime
    message_id: int | None = None
    language: str = ENGLISH  # the one its buttons and heading are in
    channel: str = ""  # where it is shown: "" the chat, "terminal" the terminal that asked


Languages = Callable[[int], Awaitable[str]]  # a person's language, "" when none is kept


class Approver(Protocol):
    """Where the agent asks: the approval desk, or nobody."""

    async def ask(self, request: ApprovalRequest) -> bool:
        """Store and present the request; False when nobody could be asked (it is refused)."""
        ...


class Prompts(Protocol):
    """What a channel implements to show approvals (buttons in Telegram, y/n in a terminal)."""

    async def present(self, pending: Pending) -> int | None:
        """Show the request; return the id of the message that shows it, if any."""
        ...

    async def close(self, pending: Pending, outcome: str) -> None:
        """Replace the request with how it ended (approved and run, declined, expired)."""
        ...


class DenyAll:
    """Where nobody can be asked: every request is refused, so nothing risky runs."""

    async def ask(self, request: ApprovalRequest) -> bool:
        """Refuse."""
        return False
