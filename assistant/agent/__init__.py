"""The dialog agent: history, the model and tools in a bounded loop, approvals, per-chat turns."""

from assistant.agent.approving.approver import ApprovalRequest, Approver, DenyAll, Pending, Prompts
from assistant.agent.dialog.agent import Agent
from assistant.agent.dialog.events import (
    AgentEvent,
    Answer,
    Done,
    EventSink,
    TextSoFar,
    Thinking,
    ToolFinished,
    ToolStarted,
)
from assistant.agent.dialog.settings import AgentSettings
from assistant.agent.dialog.turns import Turns
from assistant.agent.person import Person

__all__ = [
    "Agent",
    "AgentEvent",
    "AgentSettings",
    "Answer",
    "ApprovalRequest",
    "Approver",
    "DenyAll",
    "Done",
    "EventSink",
    "Pending",
    "Person",
    "Prompts",
    "TextSoFar",
    "Thinking",
    "ToolFinished",
    "ToolStarted",
    "Turns",
]
