"""The task tools through the executor: schedule text parsed by the scheduler, owners kept apart."""

from __future__ import annotations

import pytest

from assistant.llm.types import ToolCall
from assistant.memory.audit import AuditLog
from assistant.tasks import TaskStore
from assistant.tools import Executor, Registry, ToolContext
from assistant.tools.builtin import builtin_tools
from assistant.tools.services import Services
from tests.conftest import fetch


@pytest.fixture
def store(conn, clock):
    return TaskStore(conn, clock, max_live_per_user=3)


@pytest.fixture
def executor(conn, clock):
    return Executor(Registry(builtin_tools()), AuditLog(conn, clock))


def ctx(clock, store, user: int = 42) -> ToolContext:
    services = Services(
        tasks=store, read_only_tools=lambda: frozenset({"get_current_time", "search_memory"})
    )
    return ToolContext(user, user, "r1", "Europe/Berlin", clock, services)


async def run(executor, context, name, **arguments):
    (result,) = await executor.run([ToolCall("c1", name, arguments)], context)
    return result


async def rows(conn) -> list:
    return await fetch(conn, "SELECT id, user_id, task_type, execution_data FROM scheduled_tasks")


async def test_add_reminder_confirms_local_time_description_and_id(executor, clock, store):
    result = await run(
        executor, ctx(clock, store), "add_reminder", when="in 2 minutes", message="call mom"
    )
    assert not result.is_error
    (task,) = await store.list_tasks(42)
    assert result.content.startswith(f"Reminder {task.id}: call mom — ")
    # 09:26 UTC + 2 min, in CET; a one-shot says its time once, with its zone
    assert result.content.endswith("once on Sat 14 Mar 2026 at 10:28:53 (Europe/Berlin).")
    assert "next" not in result.content


async def test_bad_schedule_text_is_a_clear_error_and_nothing_is_stored(
    executor, clock, store, conn
):
    result = await run(executor, ctx(clock, store), "add_reminder", when="at 25:00", message="x")
    assert result.is_error and "25:00" in result.content
    assert await rows(conn) == []


async def test_recurring_reminder_and_the_limit_is_a_clear_refusal(executor, clock, store, conn):
    context = ctx(clock, store)
    for _ in range(3):
        ok = await run(
            executor, context, "add_recurring_task", schedule="weekdays 6pm", description="stretch"
        )
        assert not ok.is_error and "every weekday at 18:00" in ok.content
    refused = await run(
        executor, context, "add_recurring_task", schedule="daily 9am", description="x"
    )
    assert refused.is_error and "3" in refused.content
    assert len(await rows(conn)) == 3


@pytest.mark.parametrize(
    ("task_type", "data", "words"),
    [
        ("api_call", {"method": "POST"}, "url"),
        ("api_call", {"url": "ftp://x.example/a"}, "url"),
        ("api_call", {"url": "https://x.example/a", "method": "BREW"}, "method"),
        ("web_search", {}, "query"),
        ("agent_task", {"prompt": ""}, "prompt"),
        ("reminder", {"colour": "red"}, "colour"),
    ],
)
async def test_execution_data_is_checked_per_type_before_anything_is_stored(
    executor, clock, store, conn, task_type, data, words
):
    result = await run(
        executor,
        ctx(clock, store),
        "add_recurring_task",
        schedule="daily 9am",
        description="d",
        task_type=task_type,
        execution_data=data,
    )
    assert (
        result.is_error
        and words in result.content
        and f"execution_data for {task_type}" in result.content
    )
    assert await rows(conn) == []


async def test_an_agent_task_keeps_the_read_only_tools_of_its_creation(
    executor, clock, store, conn
):
    await run(
        executor,
        ctx(clock, store),
        "add_recurring_task",
        schedule="daily 8am",
        description="news",
        task_type="agent_task",
        execution_data={"prompt": "summarize the news", "tools": ["add_reminder", "execute_code"]},
    )
    ((_, _, _, data),) = await rows(conn)
    assert '"tools":["get_current_time","search_memory"]' in data


def test_scheduling_api_calls_and_agent_tasks_needs_approval():
    tools = {t.name: t for t in builtin_tools()}
    recurring = tools["add_recurring_task"]
    assert recurring.approval_reason({"task_type": "reminder"}) is None
    assert recurring.approval_reason({"task_type": "web_search"}) is None
    assert "api_call" in (recurring.approval_reason({"task_type": "api_call"}) or "")
    assert "agent_task" in (recurring.approval_reason({"task_type": "agent_task"}) or "")


async def test_another_users_task_cannot_be_listed_cancelled_or_paused(executor, clock, store):
    await run(executor, ctx(clock, store, 1), "add_reminder", when="in 5m", message="mine")
    (task,) = await store.list_tasks(1)
    other = ctx(clock, store, 2)
    listed = await run(executor, other, "list_tasks")
    assert task.id not in listed.content and "no tasks" in listed.content
    for name in ("cancel_task", "pause_task", "resume_task"):
        refused = await run(executor, other, name, task_id=task.id)
        assert refused.is_error and "no task" in refused.content
    assert (await store.get(1, task.id)).status == "active"


async def test_pause_resume_cancel_for_the_owner(executor, clock, store):
    context = ctx(clock, store)
    await run(executor, context, "add_recurring_task", schedule="every 15m", description="water")
    (task,) = await store.list_tasks(42)
    assert "Paused" in (await run(executor, context, "pause_task", task_id=task.id)).content
    assert "[paused]" in (await run(executor, context, "list_tasks")).content
    assert (
        "Resumed" in (await run(executor, context, "resume_task", task_id=task.id.upper())).content
    )
    assert "Cancelled" in (await run(executor, context, "cancel_task", task_id=task.id)).content
    assert (await store.get(42, task.id)).status == "cancelled"


async def test_without_a_scheduler_the_tools_say_so(executor, clock):
    context = ToolContext(42, 42, "r", "UTC", clock)
    result = await run(executor, context, "list_tasks")
    assert result.is_error and "not available" in result.content


async def test_the_model_edits_a_task_and_cannot_edit_anothers(executor, clock, store, conn):
    result = await run(
        executor, ctx(clock, store), "add_reminder", when="in 2 minutes", message="call mom"
    )
    (task,) = await store.list_tasks(42)
    edited = await run(
        executor, ctx(clock, store), "edit_task", task_id=task.id, when="tomorrow 9am",
        text="call dad",
    )  # fmt: skip
    assert not edited.is_error, edited.content
    assert edited.content.startswith(f"✏️ {task.id}: call dad — once on Sun 15 Mar 2026 at 09:00")
    assert "next run was Sat 14 Mar 2026 10:28" in edited.content
    before = await rows(conn)
    stranger = await run(
        executor, ctx(clock, store, user=7), "edit_task", task_id=task.id, text="x"
    )
    bad = await run(executor, ctx(clock, store), "edit_task", task_id=task.id, when="someday")
    nothing = await run(executor, ctx(clock, store), "edit_task", task_id=task.id)
    assert stranger.is_error and "no task" in stranger.content.lower()
    assert bad.is_error and "cannot read the schedule 'someday'" in bad.content
    assert nothing.is_error and "say what to change" in nothing.content
    assert await rows(conn) == before and result.content
