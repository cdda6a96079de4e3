"""A tool: an async function the model may call, with its schema and its risk."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, overload
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from assistant.clock import Clock, SystemClock
from assistant.tools.arguments import SchemaArguments
from assistant.tools.schema import Docstring, parse_docstring, read_signature, type_name

Risk = Literal["low", "medium", "high"]
ToolFunction = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class Made:
    """A tool's answer with the value it made beside its text (a task), so code reads the
    value and never the text."""

    text: str
    value: object


@dataclass(frozen=True)
class Attachment:
    """A file a tool made for the user (a picture), sent by the channel with the answer."""

    kind: Literal["image"]
    data: bytes = field(repr=False)
    caption: str = ""


@dataclass(frozen=True)
class ToolContext:
    """Who a call is made for; injected into a tool parameter annotated with this type."""

    user_id: int
    chat_id: int
    request_id: str
    timezone: str = "UTC"
    clock: Clock = field(default_factory=SystemClock)
    services: Any = None  # the tools' Services; typed there, to keep this module below them
    attachments: list[Attachment] = field(default_factory=list)
    found: set[str] = field(default_factory=set)  # tools find_tools added to this turn
    channel: str = ""  # where the person speaks from: an approval is answered only there

    def local_now(self) -> datetime:
        """Return the current time in the user's timezone."""
        return self.clock.now().astimezone(ZoneInfo(self.timezone))


@dataclass(frozen=True)
class Tool:
    """A callable tool with its JSON schema, its risk level and how it may be run."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    fn: ToolFunction
    arguments_model: type[BaseModel]
    annotations: Mapping[str, Any]
    param_docs: Mapping[str, str]
    context_param: str | None = None
    risk: Risk = "low"
    needs_approval: bool = False
    read_only: bool = False
    timeout: float | None = None
    summary_chars: int | None = None
    untrusted: bool = False
    approval_when: Callable[[Mapping[str, Any]], str | None] | None = None
    schema_arguments: SchemaArguments | None = None  # an outside tool's: checked by its schema
    origin: str = ""  # where it comes from, when not built in: a server, a file

    def approval_reason(self, arguments: Mapping[str, Any]) -> str | None:
        """Why this call needs its owner's approval, or None when it does not."""
        if self.needs_approval:
            return f"{self.name} is a {self.risk}-risk action"
        return self.approval_when(arguments) if self.approval_when else None

    async def invoke(self, context: ToolContext, arguments: Mapping[str, Any]) -> Any:
        """Run the tool's function with validated arguments and the call's context."""
        kwargs = dict(arguments)
        if self.context_param:
            kwargs[self.context_param] = context
        return await self.fn(**kwargs)

    def signature(self) -> str:
        """The call form of the seed's catalogue: ``add_reminder(when: str, message: str)``."""
        if self.schema_arguments is not None:
            return self.schema_arguments.call_form(self.name)
        required = set(self.parameters.get("required", ()))
        parts = []
        for name, annotation in self.annotations.items():
            part = f"{name}: {type_name(annotation)}"
            if name not in required:
                default = self.arguments_model.model_fields[name].default
                part += f" = {default!r}"
            parts.append(part)
        return f"{self.name}({', '.join(parts)})"


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    risk: Risk = "low",
    needs_approval: bool = False,
    read_only: bool = False,
    timeout: float | None = None,
    summary_chars: int | None = None,
    untrusted: bool = False,
    approval_when: Callable[[Mapping[str, Any]], str | None] | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    risk: Risk = "low",
    needs_approval: bool = False,
    read_only: bool = False,
    timeout: float | None = None,
    summary_chars: int | None = None,
    untrusted: bool = False,
    approval_when: Callable[[Mapping[str, Any]], str | None] | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a Tool; usable bare (``@tool``) or with options. A plain ``def``
    runs in a worker thread, so it never blocks the assistant.

    ``untrusted`` marks tools whose results carry outside content (pages, search results,
    HTTP bodies): the agent frames them as data, and side effects after them need approval.
    ``approval_when`` decides from the validated arguments (an api_call that is not a GET).
    """

    def wrap(func: Callable[..., Any]) -> Tool:
        if not callable(func) or inspect.isclass(func):
            raise TypeError(f"@tool goes on a function, not on {func!r}")
        docs = parse_docstring(func.__doc__)
        if not docs.summary:
            raise TypeError(f"tool {func.__name__!r} needs a docstring: it is the model's guide")
        signature = read_signature(func, ToolContext, docs)
        return Tool(
            name=name or func.__name__,
            description=docs.summary,
            parameters=signature.schema,
            fn=func if inspect.iscoroutinefunction(func) else _in_thread(func),
            arguments_model=signature.model,
            annotations=signature.annotations,
            param_docs=_documented(docs, signature.annotations),
            context_param=signature.context_param,
            risk=risk,
            needs_approval=needs_approval,
            read_only=read_only,
            timeout=timeout,
            summary_chars=summary_chars,
            untrusted=untrusted,
            approval_when=approval_when,
        )

    return wrap(fn) if fn is not None else wrap


def _in_thread(func: Callable[..., Any]) -> ToolFunction:
    @functools.wraps(func)
    async def run(**kwargs: Any) -> Any:
        return await asyncio.to_thread(func, **kwargs)

    return run


def _documented(docs: Docstring, annotations: Mapping[str, Any]) -> dict[str, str]:
    return {name: text for name, text in docs.params.items() if name in annotations}
