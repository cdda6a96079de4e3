"""Values exchanged with language models: messages, tools, calls, completions, stream events."""

from __future__ import annotations

from base64 import b64encode
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "other"]
ToolMode = Literal["native", "text", "grammar"]


@dataclass(frozen=True)
class ToolCall:
    """A tool call as the model made it; ``arguments`` is raw and not yet validated."""

    id: str
    name: str
    arguments: Any = field(default_factory=dict)


@dataclass(frozen=True)
class BrokenCall:
    """A tool call the model tried to write as text but got wrong, with the reason."""

    snippet: str
    reason: str
    offset: int


@dataclass(frozen=True)
class Extraction:
    """What a text reply holds: the prose for the user, the calls, and the broken attempts."""

    text: str
    calls: tuple[ToolCall, ...] = ()
    broken: tuple[BrokenCall, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    """A tool as a model is shown it: name, description, JSON schema and the seed's call form."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    signature: str = ""
    param_docs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Image:
    """A picture the user sent, for a model that sees: its type and bytes (this turn only)."""

    media_type: str
    data: bytes

    def base64(self) -> str:
        """The bytes as base64 text, as both APIs take them."""
        return b64encode(self.data).decode("ascii")


@dataclass(frozen=True)
class Document:
    """A file's text read for this turn, framed as untrusted data (history keeps its name)."""

    name: str
    text: str


Attachment = Image | Document


@dataclass(frozen=True)
class UserMessage:
    """What the user wrote, and what came with it for this turn only (history keeps the text,
    which names the attachments)."""

    text: str
    attachments: tuple[Attachment, ...] = ()

    @property
    def images(self) -> tuple[Image, ...]:
        """The pictures sent with the message."""
        return tuple(a for a in self.attachments if isinstance(a, Image))

    def sent_text(self) -> str:
        """What the model reads: the words, then each document's framed text."""
        documents = [a.text for a in self.attachments if isinstance(a, Document)]
        return "\n\n".join([self.text, *documents])


@dataclass(frozen=True)
class AssistantMessage:
    """What the model answered: prose, tool calls, or both."""

    text: str = ""
    calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class ToolMessage:
    """The result of one tool call, fed back to the model under the call's id."""

    call_id: str
    name: str
    content: str
    is_error: bool = False


Message = UserMessage | AssistantMessage | ToolMessage


@dataclass(frozen=True)
class Usage:
    """Tokens a model call consumed, as the provider counted them (zero when it did not say)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # of the input, read from the provider's cache


@dataclass(frozen=True)
class Payer:
    """Whom a model call is for, and why: a person's chat, or one of their scheduled tasks."""

    user_id: int
    zone: str = "UTC"
    source: Literal["chat", "task", "speech", "system"] = "chat"
    task_id: str = ""
    run: str = ""  # a task's run: the time it was due, so its calls count as one run
    group: bool = False  # said in a group chat: the group's shared budget counts too
    task_cap: float = 0.0  # the task's own monthly cap (0: none)


@dataclass(frozen=True)
class Request:
    """One model call: the system prompt, the conversation so far and the tools on offer."""

    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    schema: Mapping[str, Any] | None = None  # grammar mode: the one JSON object to write
    payer: Payer | None = None  # whom it is for, counted and held to their budget
    max_tokens: int | None = None  # the most this answer may take (a budget lowered it)


@dataclass(frozen=True)
class Completion:
    """A model's answer: text and/or tool calls, with usage and why it stopped.

    ``broken`` lists tool calls written as text that could not be read; ``notice`` is a
    one-time message for the user (the model was switched to text mode).
    """

    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    finish_reason: FinishReason = "stop"
    broken: tuple[BrokenCall, ...] = ()
    notice: str = ""


@dataclass(frozen=True)
class TextDelta:
    """A piece of answer text as it streams in."""

    text: str


StreamEvent = TextDelta | Completion
