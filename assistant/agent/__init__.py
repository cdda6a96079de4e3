"""The dialog agent: history, the model and tools in a bounded loop, approvals, per-chat turns."""

from assistant.agent.agent import Agent
from assistant.agent.approver import ApprovalRequest, Approver, DenyAll, Pending, Prompts
from assistant.agent.events import (
    AgentEvent,
    Answer,
    Done,
    EventSink,
    TextSoFar,
    Thinking,
    ToolFinished,
    ToolStarted,
)
from assistant.agent.person import Person
from assistant.agent.settings import AgentSettings
from assistant.agent.turns import Turns

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
