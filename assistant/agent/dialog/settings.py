"""How far a turn may go."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentSettings:
    """How far a turn may go; the defaults are the config's."""

    max_steps: int = 5
    corrections: int = 1
    llm_timeout: float = 60.0
    approval_timeout: float = 600.0
    history_tokens: int = 6000
    stream: bool = True
    assistant_name: str = "Assistant"
    named_hosts: frozenset[str] = frozenset()  # the owner's own services, from the config
    context_tokens: int | None = None  # the model's window, when known
    max_new_tasks: int = 5  # tasks one turn may create
    task_tools: frozenset[str] = frozenset({"add_reminder", "add_recurring_task"})
    reply_tokens: int = 1024  # what a reply may take of the window
