"""The approval seam: the agent asks, a channel shows the exact action and the user decides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class ApprovalRequest:
    """One validated call waiting for its owner's yes or no."""

    user_id: int
    chat_id: int
    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    reason: str


@dataclass(frozen=True)
class Decision:
    """The answer to an approval request and who gave it."""

    approved: bool
    approver: int | None = None
    note: str = ""


class Approver(Protocol):
    """What a channel implements to ask its user (buttons in Telegram, y/n in a terminal)."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Ask, and return the decision; failing to ask is a refusal."""
        ...


class DenyAll:
    """Where nobody can be asked: every request is refused, so nothing risky runs."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Refuse."""
        return Decision(False, note="no one is there to approve it")
