"""Reminders and recurring tasks: schedule text in, the scheduler's parser decides.

Confirmations give the local time, the human description and the task id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assistant.errors import RunError, ScheduleError, ToolError
from assistant.schedules import Parsed
from assistant.schedules.parse import read_schedule
from assistant.schedules.schedule import Once
from assistant.tasks import NewTask, Owner, Task, TaskKind, TaskStore
from assistant.tools.services import Services, need, services_of
from assistant.tools.tool import Made, ToolContext, tool

SAFE_RUNS: frozenset[str] = frozenset({"reminder", "web_search"})


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ReminderData(_Data):
    """What a scheduled reminder says (its description, unless given)."""

    text: str | None = Field(default=None, max_length=2000)


class ApiCallData(_Data):
    """An HTTP call to the user's own API."""

    url: str = Field(min_length=8, max_length=2000, pattern=r"^https?://")
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "GET"
    headers: dict[str, str] = Field(default_factory=dict)
    body: str | dict[str, Any] | None = None


class WebSearchData(_Data):
    """A web search whose results are sent to the user."""

    query: str = Field(min_length=1, max_length=500)
    max_results: int = Field(default=5, ge=1, le=10)


class AgentTaskData(_Data):
    """A prompt the agent answers on schedule, with read-only tools fixed at creation."""

    prompt: str = Field(min_length=1, max_length=4000)
    tools: list[str] = Field(default_factory=list)
    monthly_cap: float = Field(default=0.0, ge=0, le=1e12)  # its own cap, in the budget's unit


_M = TypeVar("_M", bound=BaseModel)


def stored_data(model: type[_M], task: Task) -> _M:
    """A task's execution data read through its model; a stored row that does not fit is final."""
    try:
        return model.model_validate(dict(task.execution))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise RunError(f"its stored settings are not valid ({problems})") from None


DATA_MODELS: Mapping[str, type[_Data]] = {
    "reminder": ReminderData,
    "api_call": ApiCallData,
    "web_search": WebSearchData,
    "agent_task": AgentTaskData,
}


def execution_data(task_type: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` checked against its task type's fields; a clear error names what is wrong."""
    try:
        model = DATA_MODELS[task_type].model_validate(dict(raw))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'execution_data'}: {e['msg']}" for e in exc.errors()
        )
        fields = ", ".join(DATA_MODELS[task_type].model_fields)
        raise ToolError(f"execution_data for {task_type}: {problems} (fields: {fields})") from None
    return model.model_dump(exclude_none=True)


def _recurring_approval(arguments: Mapping[str, Any]) -> str | None:
    kind = arguments.get("task_type", "reminder")
    if kind in SAFE_RUNS:
        return None
    return f"scheduling an {kind} runs it later without asking again"


@tool
async def add_reminder(context: ToolContext, when: str, message: str) -> Made:
    """Remind the user of something once (or on a schedule) at a time they name.

    Args:
        when: the time exactly as the user said it: "in 5m", "tomorrow 9am", "at 18:30",
            "monday 10am", "2026-12-24 18:00"
        message: what to remind them of
    """
    services, store = _store(context)
    parsed = read_schedule(when, context.timezone, context.clock.now(), services.min_interval)
    task = await store.add(
        NewTask(_owner(context), "reminder", message, parsed, {"text": message.strip()})
    )
    return Made(_confirmation("Reminder", task, context, parsed.description, parsed.note), task)


@tool(approval_when=_recurring_approval)
async def add_recurring_task(
    context: ToolContext,
    schedule: str,
    description: str,
    task_type: TaskKind = "reminder",
    execution_data: dict[str, Any] | None = None,
) -> Made:
    """Schedule a recurring task: a reminder, an HTTP call, a web search or an agent prompt.

    Args:
        schedule: as the user said it: "every 15m", "daily 9am", "weekdays 18:00",
            "mondays and thursdays 8:15", "1st of every month 9am", or cron "0 9 * * 1-5"
        description: what it is, in the user's words
        task_type: reminder, api_call, web_search or agent_task
        execution_data: api_call {url, method, headers, body}; web_search {query};
            agent_task {prompt, monthly_cap (optional; in the budget's unit)};
            reminder {text} (optional)
    """
    services, store = _store(context)
    data = execution_data_for(task_type, execution_data or {}, description, context)
    parsed = read_schedule(schedule, context.timezone, context.clock.now(), services.min_interval)
    task = await store.add(NewTask(_owner(context), task_type, description, parsed, data))
    kind = task_type.replace("_", " ").capitalize()
    return Made(_confirmation(kind, task, context, parsed.description, parsed.note), task)


def execution_data_for(
    task_type: str, raw: Mapping[str, Any], description: str, context: ToolContext
) -> dict[str, Any]:
    """The checked execution data; an agent task gets the read-only tools of now, for good."""
    data = execution_data(task_type, raw)
    if task_type == "agent_task":
        data["tools"] = sorted(read_only_tools(context))
    if task_type == "reminder":
        data.setdefault("text", description)
    return data


def read_only_tools(context: ToolContext) -> set[str]:
    """Names of the read-only tools a scheduled agent task may use."""
    return set(services_of(context).read_only_tools())


@tool(read_only=True)
async def list_tasks(context: ToolContext) -> Made:
    """List the user's active and paused tasks with their ids and next runs."""
    _, store = _store(context)
    tasks = await store.list_tasks(context.user_id)
    lines = [task_line(task, context.timezone) for task in tasks] or ["You have no tasks."]
    return Made("\n".join(lines), tuple(tasks))


@tool
async def cancel_task(context: ToolContext, task_id: str) -> Made:
    """Cancel one of the user's tasks for good.

    Args:
        task_id: the task's id, as list_tasks shows it
    """
    _, store = _store(context)
    task = await store.cancel(context.user_id, task_id)
    return Made(f"Cancelled {task.id}: {task.description}", task)


@tool
async def pause_task(context: ToolContext, task_id: str) -> Made:
    """Pause one of the user's tasks until it is resumed.

    Args:
        task_id: the task's id
    """
    _, store = _store(context)
    task = await store.pause(context.user_id, task_id)
    return Made(f"Paused {task.id}: {task.description}", task)


@tool
async def resume_task(context: ToolContext, task_id: str) -> Made:
    """Resume a paused task; runs missed while paused are skipped.

    Args:
        task_id: the task's id
    """
    _, store = _store(context)
    task = await store.resume(context.user_id, task_id)
    return Made(_confirmation("Resumed", task, context, task.schedule_text, ""), task)


@tool
async def edit_task(
    context: ToolContext, task_id: str, when: str | None = None, text: str | None = None
) -> Made:
    """Change a task's schedule, its words, or both; it keeps its id and history.

    Args:
        task_id: the task's id, as list_tasks shows it
        when: the new schedule exactly as the user said it, e.g. "tomorrow 9am"
        text: the new words of the reminder or task
    """
    services, store = _store(context)
    before = await store.get(context.user_id, task_id)
    parsed = None
    if when is not None:
        now, least = context.clock.now(), services.min_interval
        parsed = on_its_day(
            before, when, lambda t: read_schedule(t, context.timezone, now, least), context.timezone
        )
    after = await store.edit(context.user_id, task_id, parsed, text)
    return Made(edited(before, after, context.timezone), after)


def on_its_day(before: Task, when: str, read: Callable[[str], Parsed], zone: str) -> Parsed:
    """A task's new schedule, a clock time alone on a one-shot's own day ("/edit k3x9 8:15")."""
    if isinstance(before.schedule, Once):
        day = f"{before.next_run.astimezone(ZoneInfo(zone)):%Y-%m-%d}"  # as ``read`` reads it
        dated = [f"{day} {when}", *([f"{day} at {when}"] if when[:1].isdigit() else [])]
        for text in dated:
            try:
                return read(text)
            except ScheduleError as exc:
                if exc.reason == "ambiguous_hour":  # "3" on its day: night or day, asked
                    raise
    return read(when)


def edited(before: Task, after: Task, zone: str) -> str:
    """An edit's confirmation: the task as it is now, and its next run before and after."""
    was, now = local_time(before.next_run, zone), local_time(after.next_run, zone)
    moved = f"next run was {was}, now {now}" if was != now else f"next {now}"
    if after.status == "paused":
        moved += "; it stays paused until you resume it"
    return f"✏️ {after.id}: {_describe(after)} — {after.schedule_text}; {moved}"


def _store(context: ToolContext) -> tuple[Services, TaskStore]:
    services = services_of(context)
    return services, need(services.tasks, "the task scheduler")


def _owner(context: ToolContext) -> Owner:
    return Owner(context.user_id, context.chat_id)


def _confirmation(what: str, task: Task, context: ToolContext, schedule: str, note: str) -> str:
    text = f"{what} {task.id}: {_describe(task)} — {said_once(task, schedule, context.timezone)}."
    return f"{text} ({note})" if note else text


def said_once(task: Task, schedule: str, zone: str) -> str:
    """When a task runs, each thing said once: a one-shot's time and zone; a repeating
    task's rule and its next run (the one thing the rule does not say)."""
    schedule = schedule.removesuffix(f", {task.timezone}")
    if task.schedule_kind == "once":
        shown = (
            task.timezone
            if task.timezone == zone
            else f"{task.timezone}; {local_time(task.next_run, zone)}"
        )
        return f"{schedule} ({shown})"
    return f"{schedule}; next {local_time(task.next_run, zone)}"


def _describe(task: Task) -> str:
    return task.description if task.kind == "reminder" else f"{task.kind}: {task.description}"


def task_line(task: Task, zone: str) -> str:
    """A task in one line: id, words, schedule, next run in the user's zone, and its state."""
    state = "" if task.status == "active" else f" [{task.status}]"
    return f"{task.id}: {_describe(task)} — {said_once(task, task.schedule_text, zone)}{state}"


def local_time(moment: datetime, zone: str) -> str:
    """A moment as the user reads it: weekday, date and time in their zone."""
    return f"{moment.astimezone(ZoneInfo(zone)):%a %d %b %Y %H:%M} ({zone})"
