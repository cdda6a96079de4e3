"""One turn of the dialog loop: what it depends on, and what it gathers as it goes."""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.agent.dialog.events import EventSink
from assistant.agent.person import Person
from assistant.llm.types import Message, Payer, UserMessage
from assistant.tools import ToolContext, ToolResult


@dataclass(frozen=True)
class Given:
    """What a turn depends on, fixed at its start."""

    person: Person
    context: ToolContext  # whom its tool calls are for
    sink: EventSink | None  # where its events go (a channel's draft), if anywhere
    recent: list[tuple[Message, int]]  # the stored history it may draw on, with token counts
    fixed: int  # estimated tokens of the prompt and the catalogue
    room: int | None  # estimated tokens the messages may take (None: window unknown)
    payer: Payer  # whom its model calls are counted for and held to the budget of


@dataclass
class Turn:
    """What one turn has gathered so far."""

    given: Given
    history: list[Message]  # the history sent, refitted when the window is tight
    new: list[Message] = field(default_factory=list)
    audit_ids: dict[str, int] = field(default_factory=dict)
    results: list[ToolResult] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    corrections: int = 0
    tainted: bool = False
    awaiting: list[str] = field(default_factory=list)
    steps: int = 0
    shrunk: bool = False
    done: set[str] = field(default_factory=set)  # side-effecting calls run, by name and arguments
    new_tasks: int = 0
    claimed: bool = False  # the model was told once that it claimed an action with no call

    @property
    def asked(self) -> str:
        """The person's words that started the turn."""
        return next((m.text for m in self.new if isinstance(m, UserMessage)), "")
