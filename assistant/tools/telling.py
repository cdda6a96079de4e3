"""What a tool did, told to the person in their language: from the value it made (a task, a
note) or the reason it refused, never from the English it wrote for the model."""

from __future__ import annotations

from assistant.errors import ModelError, ScheduleError, TaskNotFoundError
from assistant.locales import ntr, tr
from assistant.memory.notes import Note
from assistant.tasks import Task, telling
from assistant.tools.executor import ToolResult


def told(result: ToolResult, language: str, zone: str) -> str:
    """The person's line for one result; a tool with no words of its own keeps its text."""
    if isinstance(result.value, ModelError):
        return refused(result.value, language, result.content)
    if isinstance(result.value, Task):
        return _task(result.name, result.value, language, zone)
    if isinstance(result.value, Note):
        return _note(result.name, result.value, language)
    if isinstance(result.value, tuple):
        return _listed(result.value, language, zone)
    return result.content


def _task(tool: str, task: Task, language: str, zone: str) -> str:
    line = telling.line(task, zone, language)
    if tool == "cancel_task":
        return tr(language, "Cancelled {line}", line=line)
    if tool == "pause_task":
        return tr(language, "Paused {line}", line=line)
    if tool == "resume_task":
        return tr(language, "Resumed {line}", line=line)
    if tool == "edit_task":
        return tr(language, "✏️ Changed {line}", line=line)
    return telling.made(task, zone, language)


def _note(tool: str, note: Note, language: str) -> str:
    if tool == "delete_note":
        return tr(language, "Deleted note {id}: “{words}”", id=note.id, words=note.content[:80])
    return tr(language, "Saved note {id}.", id=note.id)


def refused(error: ModelError, language: str, english: str = "") -> str:
    """Why a request was refused, in the person's language where its reason is known."""
    if isinstance(error, ScheduleError):
        return refusal(error, language)
    if isinstance(error, TaskNotFoundError):
        return tr(language, "You have no task {id}; /tasks lists yours.", id=error.task_id)
    return english or str(error)  # worded for the person already, in English


def refusal(error: ScheduleError, language: str) -> str:
    """Why a time could not be read, in the person's words (the English for the model aside)."""
    reasons = {
        "past": tr(language, "That time is in the past; say a time still to come."),
        "too_far": tr(language, "That is too far ahead: ten years at most."),
        "too_frequent": tr(language, "That is too often: once a minute at most."),
        "unknown_zone": tr(language, "I do not know that time zone."),
        "no_time": tr(language, "That names no time: add one, e.g. “at 9:00”."),
    }
    if error.reason in reasons:
        return reasons[error.reason]
    if error.reason == "no_words":
        return tr(
            language,
            "What should I remind you of ({when})? Say when and what, e.g. {example}",
            when=error.words,
            example=error.detail,
        )
    if error.reason == "no_schedule":
        return tr(language, "Say when and what, e.g. {example}", example=error.detail)
    if error.reason == "ambiguous_hour" and (hour := _hour(error.words)) is not None:
        minutes = error.words[len(str(hour)) :]
        early, late = f"{hour:02d}{minutes or ':00'}", f"{hour + 12}{minutes or ':00'}"
        return tr(
            language,
            "Is {said} in the night or the day? Say {early} or {late}.",
            said=error.words,
            early=early,
            late=late,
        )
    return str(error)  # its own words: the accepted forms


def _hour(said: str) -> int | None:
    """The hour of an ambiguous time as it was said ("3", "2:30"), when it is one."""
    hour = said.partition(":")[0]
    return int(hour) if hour.isdecimal() and 1 <= int(hour) <= 12 else None


def _listed(items: tuple[object, ...], language: str, zone: str) -> str:
    """A list tool's tasks or notes, a line each."""
    tasks = [telling.line(i, zone, language) for i in items if isinstance(i, Task)]
    notes = [f"{i.id}. {i.content[:200]}" for i in items if isinstance(i, Note)]
    if tasks:
        return "\n".join([ntr(language, "{n} task", "{n} tasks", len(tasks)) + ":", *tasks])
    if notes:
        return "\n".join(notes)
    return tr(language, "Nothing yet.")
