"""What the built-in tools work with, handed to them in their call context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, TypeVar

from assistant.errors import ToolError
from assistant.memory.conversation import Conversations
from assistant.memory.notes import Notes
from assistant.net import GuardedClient
from assistant.net.images import ImageClient
from assistant.net.search import SearchBackend
from assistant.net.secrets import SecretBook
from assistant.net.speech import SpeechClient
from assistant.tasks import TaskStore
from assistant.tools.sandbox import Sandbox
from assistant.tools.tool import ToolContext

if TYPE_CHECKING:
    from assistant.tools.registry import Registry

_T = TypeVar("_T")


@dataclass(frozen=True)
class Services:
    """The stores and clients of this installation; absent ones make their tools refuse."""

    tasks: TaskStore | None = None
    notes: Notes | None = None
    conversations: Conversations | None = None
    http: GuardedClient | None = None
    search: SearchBackend | None = None
    secrets: SecretBook = field(default_factory=SecretBook)
    min_interval: timedelta = timedelta(minutes=1)
    read_only_tools: Callable[[], frozenset[str]] = frozenset  # those offered now
    sandbox: Sandbox | None = None
    images: ImageClient | None = None
    speech: SpeechClient | None = None  # voice notes to text, when configured
    registry: Registry | None = None  # every tool, for find_tools


def services_of(context: ToolContext) -> Services:
    """The services a call was given (none, in a bare context)."""
    return context.services if isinstance(context.services, Services) else Services()


def need(service: _T | None, what: str) -> _T:
    """The service, or a clear refusal when this installation does not have it."""
    if service is None:
        raise ToolError(f"{what} is not available in this installation")
    return service
