"""What a turn tells its channel as it goes (text so far, tools at work) and its answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from assistant.tools import Attachment


@dataclass(frozen=True)
class TextSoFar:
    """The answer's text as streamed so far (the whole of it, not a delta)."""

    text: str


@dataclass(frozen=True)
class Thinking:
    """The model was asked and has not answered yet."""


@dataclass(frozen=True)
class ToolStarted:
    """A tool call began."""

    call_id: str
    name: str


@dataclass(frozen=True)
class ToolFinished:
    """A tool call ended, well or not."""

    call_id: str
    name: str
    ok: bool


@dataclass(frozen=True)
class Answer:
    """The end of a turn: the text for the user, how many model calls it took, how it ended."""

    text: str
    steps: int = 0
    ending: str = "answered"  # or awaiting, max_steps, invalid, unfounded, stopped, timeout, error
    sources: tuple[str, ...] = ()
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True)
class Done:
    """The turn is over; its answer."""

    answer: Answer


AgentEvent = Thinking | TextSoFar | ToolStarted | ToolFinished | Done
EventSink = Callable[[AgentEvent], Awaitable[None]]
