"""Values exchanged with language models: tool calls as the model wrote them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
