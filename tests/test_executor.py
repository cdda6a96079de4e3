"""Running calls: order, concurrency, timeouts, failures, cancellation and the audit trail."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from assistant.clock import FakeClock
from assistant.errors import ToolError
from assistant.llm.types import ToolCall
from assistant.memory.audit import AuditLog
from assistant.tools import Executor, Registry, ToolContext, tool

events: list[str] = []
active = {"now": 0, "peak": 0}


class Gates:
    """Events the tools below wait on; made anew for each test's event loop."""

    opened = asyncio.Event()
    started = asyncio.Event()


@tool(read_only=True)
async def waits(name: str) -> str:
    """Read-only: waits until the gate opens."""
    events.append(f"start {name}")
    Gates.started.set()
    await Gates.opened.wait()
    events.append(f"end {name}")
    return name


@tool(read_only=True)
async def opens(name: str) -> str:
    """Read-only: opens the gate."""
    events.append(f"open {name}")
    Gates.opened.set()
    return name


@tool
async def writes(name: str) -> str:
    """Side-effecting: records that it ran."""
    events.append(f"write {name}")
    return name


@tool(read_only=True)
async def counted(name: str) -> str:
    """Read-only: tracks how many run at once."""
    active["now"] += 1
    active["peak"] = max(active["peak"], active["now"])
    for _ in range(5):
        await asyncio.sleep(0)
    active["now"] -= 1
    return name


@tool(timeout=0.001)
async def hangs() -> str:
    """Never finishes on its own."""
    await asyncio.Event().wait()
    return "never"


@tool
async def explodes(api_key: str = "sk-live-abcdefghijklmnop") -> str:
    """Raises a bug."""
    raise RuntimeError(f"database password hunter2 leaked with {api_key}")


@tool
async def refuses(when: str) -> str:
    """Raises a model-facing error."""
    raise ToolError(f"cannot understand the time {when!r}; try 'in 5m'")


@tool
async def raises_timeout() -> str:
    """Raises TimeoutError itself, which is a bug, not the executor's timeout."""
    raise TimeoutError("upstream")


@tool(summary_chars=120)
async def lists() -> dict[str, object]:
    """Returns many items with URLs."""
    return {
        "results": [{"title": f"item {i}", "url": f"https://example.org/{i}"} for i in range(50)]
    }


ALL = [waits, opens, writes, counted, hangs, explodes, refuses, raises_timeout, lists]


@pytest.fixture(autouse=True)
def reset() -> None:
    events.clear()
    Gates.opened, Gates.started = asyncio.Event(), asyncio.Event()
    active.update(now=0, peak=0)


@pytest.fixture
async def audit(conn, clock: FakeClock) -> AuditLog:
    return AuditLog(conn, clock)


@pytest.fixture
def executor(audit: AuditLog) -> Executor:
    return Executor(Registry(ALL), audit, max_concurrency=2, timeout=5.0)


def calls(*specs: tuple[str, dict[str, object]]) -> list[ToolCall]:
    return [ToolCall(f"call_{i + 1}", name, args) for i, (name, args) in enumerate(specs)]


async def test_read_only_calls_run_concurrently_and_results_keep_call_order(executor, context):
    # "waits" can only finish if "opens" runs while it waits: proof of concurrency.
    results = await executor.run(calls(("waits", {"name": "a"}), ("opens", {"name": "b"})), context)
    assert [r.content for r in results] == ["a", "b"]
    assert events == ["start a", "open b", "end a"]


async def test_side_effecting_calls_run_in_call_order_between_read_batches(executor, context):
    Gates.opened.set()
    results = await executor.run(
        calls(
            ("writes", {"name": "1"}),
            ("waits", {"name": "2"}),
            ("writes", {"name": "3"}),
            ("writes", {"name": "4"}),
        ),
        context,
    )
    assert [r.content for r in results] == ["1", "2", "3", "4"]
    assert events == ["write 1", "start 2", "end 2", "write 3", "write 4"]


async def test_concurrency_is_bounded(executor, context):
    results = await executor.run(calls(*[("counted", {"name": str(i)}) for i in range(6)]), context)
    assert [r.content for r in results] == [str(i) for i in range(6)]
    assert active["peak"] == 2


async def test_timeout_is_an_error_result(executor, context):
    (result,) = await executor.run(calls(("hangs", {})), context)
    assert result.is_error and result.outcome == "timeout"
    assert "did not finish within 0.001 s" in result.content


async def test_a_tool_raising_timeout_itself_is_a_bug_not_a_timeout(executor, context):
    (result,) = await executor.run(calls(("raises_timeout", {})), context)
    assert result.outcome == "error" and "internal error" in result.content


async def test_a_bug_gives_a_safe_message_and_a_logged_traceback(executor, context, caplog):
    with caplog.at_level(logging.ERROR):
        (result,) = await executor.run(calls(("explodes", {})), context)
    assert result.is_error and result.outcome == "error"
    assert "hunter2" not in result.content and "Traceback" not in result.content
    assert "internal error (ref " in result.content
    ref = result.content.split("ref ")[1].rstrip(").")
    assert any(ref in r.getMessage() and r.exc_info for r in caplog.records)


async def test_a_tool_error_goes_back_to_the_model(executor, context):
    (result,) = await executor.run(calls(("refuses", {"when": "blursday"})), context)
    assert result.is_error and "cannot understand the time 'blursday'" in result.content


async def test_invalid_and_unknown_calls_become_error_results_and_others_still_run(
    executor, context
):
    results = await executor.run(
        calls(
            ("writes", {}),
            ("nope", {}),
            ("writes", {"name": "ok"}),
        ),
        context,
    )
    assert [r.outcome for r in results] == ["invalid", "unknown_tool", "ok"]
    assert "argument 'name' is required" in results[0].content
    assert "There is no tool named 'nope'" in results[1].content


async def test_cancellation_propagates_and_is_audited(executor, context, audit):
    task = asyncio.create_task(executor.run(calls(("waits", {"name": "x"})), context))
    await Gates.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (row,) = await audit.recent(context.user_id)
    assert row.outcome == "cancelled" and row.tool == "waits"


async def test_every_call_is_audited_with_secrets_masked(executor, context, audit):
    await executor.run(
        calls(
            ("explodes", {"api_key": "sk-secretsecretsecret"}),
            ("writes", {"name": "n", "token": "abc", "colour": "red"}),
            ("nope", {"password": "hunter2"}),
        ),
        context,
    )
    # Calls are validated first (so the unknown one is audited first), then run in order.
    by_tool = {r.tool: r for r in await audit.recent(context.user_id)}
    rows = [by_tool["explodes"], by_tool["writes"], by_tool["nope"]]
    assert [r.outcome for r in rows] == ["error", "ok", "unknown_tool"]
    assert rows[0].arguments == {"api_key": "[REDACTED]"}
    assert rows[1].dropped == ("colour", "token") and rows[1].result == "n"
    assert rows[2].arguments == {"password": "[REDACTED]"}
    assert all(r.request_id == "req-1" and r.user_id == 42 for r in rows)
    stored = json.dumps([r.arguments for r in rows]) + "".join(r.error for r in rows)
    assert "sk-secret" not in stored and "hunter2" not in stored


async def test_results_are_summarized_within_the_tool_budget_with_sources(executor, context):
    (result,) = await executor.run(calls(("lists", {})), context)
    assert len(result.content) <= 120
    assert result.sources[0] == "https://example.org/0"
    assert all(url in result.content for url in result.sources)
    assert "more)" in result.content


async def test_default_timeout_comes_from_the_executor(audit, clock):
    @tool
    async def slow() -> str:
        """Waits forever."""
        await asyncio.Event().wait()
        return "x"

    executor = Executor(Registry([slow]), audit, timeout=0.001)
    context = ToolContext(1, 1, "r", clock=clock)
    (result,) = await executor.run([ToolCall("c", "slow", {})], context)
    assert result.outcome == "timeout"
