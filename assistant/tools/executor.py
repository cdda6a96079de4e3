"""Running a model's tool calls: validation, timeouts, concurrency, summaries and the audit."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from assistant.errors import AssistantError, ModelError, RemoteToolError, UnknownToolError
from assistant.llm.types import ToolCall
from assistant.memory.audit import AuditEntry, Outcome
from assistant.metrics import TOOL_CALLS
from assistant.redaction import redact_known
from assistant.tools.registry import Registry
from assistant.tools.summary import summarize
from assistant.tools.tool import Made, ToolContext
from assistant.tools.validation import ValidCall, validate

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolResult:
    """What a call gave back to the model: summarized content, or an error it can act on."""

    call_id: str
    name: str
    content: str
    is_error: bool = False
    outcome: Outcome = "ok"
    sources: tuple[str, ...] = ()
    duration_ms: int = 0
    audit_id: int | None = None
    outside: bool = False  # an outside tool's own error text: untrusted, like its results
    value: object = None  # what the tool made (a task), for code; the model reads ``content``


class AuditSink(Protocol):
    """Where the executor records every call."""

    async def record(self, entry: AuditEntry) -> int:
        """Store one audit entry."""
        ...


class Executor:
    """Validates and runs calls: read-only ones concurrently, the rest in order, all audited."""

    def __init__(
        self,
        registry: Registry,
        audit: AuditSink,
        *,
        max_concurrency: int = 4,
        timeout: float = 30.0,
        summary_chars: int = 900,
        summary_chars_per_tool: Mapping[str, int] | None = None,
    ) -> None:
        self.registry = registry
        self._audit_sink = audit
        self._max_concurrency = max_concurrency
        self._slots = asyncio.Semaphore(max_concurrency)
        self._timeout = timeout
        self._summary_chars = summary_chars
        self._summary_per_tool = dict(summary_chars_per_tool or {})

    def limited_to(self, registry: Registry) -> Executor:
        """An executor of other tools with the same bounds and the same audit trail."""
        return Executor(
            registry,
            self._audit_sink,
            max_concurrency=self._max_concurrency,
            timeout=self._timeout,
            summary_chars=self._summary_chars,
            summary_chars_per_tool=self._summary_per_tool,
        )

    async def run(self, calls: Sequence[ToolCall], context: ToolContext) -> list[ToolResult]:
        """Validate and run ``calls``; one result per call, in the order of the calls."""
        return await self.execute([await self.check(call, context) for call in calls], context)

    async def execute(
        self, checked: Sequence[ValidCall | ToolResult], context: ToolContext
    ) -> list[ToolResult]:
        """Run checked calls (results already known pass through), keeping their order."""
        results: dict[int, ToolResult] = {}
        batch: list[tuple[int, ValidCall]] = []
        for index, item in enumerate(checked):
            if isinstance(item, ToolResult):
                results[index] = item
            elif item.tool.read_only:
                batch.append((index, item))
            else:
                results.update(await self._concurrently(batch, context))
                batch = []
                results[index] = await self._call(item, context)
        results.update(await self._concurrently(batch, context))
        return [results[index] for index in range(len(checked))]

    async def refuse(
        self, valid: ValidCall, context: ToolContext, reason: str, approver: int | None = None
    ) -> ToolResult:
        """A call that will not run (denied, or held back): audited, and said to the model."""
        call = valid.call
        audit_id = await self._record(
            call, context, valid.json_arguments, "denied", 0, error=reason, approver=approver
        )
        return ToolResult(call.id, call.name, reason, True, "denied", audit_id=audit_id)

    async def check(self, call: ToolCall, context: ToolContext) -> ValidCall | ToolResult:
        """Validate a call; an invalid one becomes an audited error result for the model."""
        try:
            return validate(call, self.registry)
        except ModelError as exc:
            outcome: Outcome = "unknown_tool" if isinstance(exc, UnknownToolError) else "invalid"
            raw = call.arguments if isinstance(call.arguments, Mapping) else {"raw": call.arguments}
            audit_id = await self._record(call, context, raw, outcome, 0, error=str(exc))
            return ToolResult(call.id, call.name, str(exc), True, outcome, audit_id=audit_id)

    async def _concurrently(
        self, batch: list[tuple[int, ValidCall]], context: ToolContext
    ) -> dict[int, ToolResult]:
        if not batch:
            return {}
        async with asyncio.TaskGroup() as group:
            tasks = {i: group.create_task(self._limited(vc, context)) for i, vc in batch}
        return {i: task.result() for i, task in tasks.items()}

    async def _limited(self, valid: ValidCall, context: ToolContext) -> ToolResult:
        async with self._slots:
            return await self._call(valid, context)

    async def _call(self, valid: ValidCall, context: ToolContext) -> ToolResult:
        started = time.perf_counter()
        try:
            result = await self._invoke(valid, context)
        except asyncio.CancelledError:
            await self._record(
                valid.call,
                context,
                valid.json_arguments,
                "cancelled",
                _ms(started),
                error="cancelled",
                dropped=valid.dropped,
                approver=valid.approver,
            )
            raise
        duration = _ms(started)
        error = result.content if result.is_error else ""
        audit_id = await self._record(
            valid.call,
            context,
            valid.json_arguments,
            result.outcome,
            duration,
            result="" if result.is_error else result.content,
            error=error,
            dropped=valid.dropped,
            approver=valid.approver,
        )
        return ToolResult(
            result.call_id,
            result.name,
            redact_known(result.content),  # a configured secret never reaches the model
            result.is_error,
            result.outcome,
            result.sources,
            duration,
            audit_id,
            result.outside,
            result.value,
        )

    async def _invoke(self, valid: ValidCall, context: ToolContext) -> ToolResult:
        tool, call = valid.tool, valid.call
        limit = tool.timeout or self._timeout
        scope = asyncio.timeout(limit)
        try:
            async with scope:
                value = await tool.invoke(context, valid.arguments)
        except TimeoutError as exc:
            if not scope.expired():
                return _bug(call, exc)
            return _failure(call, "timeout", f"{tool.name} did not finish within {limit:g} s.")
        except ModelError as exc:
            outside = isinstance(exc, RemoteToolError)  # the server's words: outside content
            failed = _failure(call, "error", f"{tool.name}: {exc}")
            return replace(failed, outside=outside, value=exc)  # the reason, for the person
        except AssistantError as exc:
            log.warning("tool %s failed: %s", tool.name, exc)
            failed = _failure(call, "error", f"{tool.name} failed: {exc}")
            return replace(failed, value=exc)  # ours (the database): a command ends on it
        except Exception as exc:
            return _bug(call, exc)
        budget = tool.summary_chars or self._summary_per_tool.get(tool.name, self._summary_chars)
        made = value.value if isinstance(value, Made) else None
        summary = summarize(value.text if isinstance(value, Made) else value, budget)
        return ToolResult(call.id, call.name, summary.text, sources=summary.sources, value=made)

    async def _record(
        self,
        call: ToolCall,
        context: ToolContext,
        arguments: Mapping[str, Any],
        outcome: Outcome,
        duration_ms: int,
        *,
        result: str = "",
        error: str = "",
        dropped: Sequence[str] = (),
        approver: int | None = None,
    ) -> int | None:
        TOOL_CALLS.labels(call.name, outcome).inc()
        entry = AuditEntry(
            context.request_id,
            call.id,
            context.user_id,
            call.name,
            arguments,
            outcome,
            duration_ms,
            result,
            error,
            tuple(dropped),
            approver,
        )
        try:
            return await self._audit_sink.record(entry)
        except Exception:
            log.exception("could not write the audit row of call %s (%s)", call.id, call.name)
            return None


def _failure(call: ToolCall, outcome: Outcome, message: str) -> ToolResult:
    return ToolResult(call.id, call.name, message, True, outcome)


def _bug(call: ToolCall, exc: BaseException) -> ToolResult:
    """A tool raised something unexpected: log it all, tell the model nothing of its insides."""
    ref = uuid.uuid4().hex[:8]
    log.error("tool %s raised unexpectedly (ref %s)", call.name, ref, exc_info=exc)
    return _failure(call, "error", f"{call.name} failed with an internal error (ref {ref}).")


def _ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
