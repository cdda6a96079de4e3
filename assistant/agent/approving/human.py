"""The action of a built-in call in words, for its approval prompt: the task's line, the note's
text. An outside tool's call has no such line: its prompt shows the exact call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assistant.errors import ModelError
from assistant.locales import ENGLISH, tr
from assistant.tasks import telling
from assistant.tools import ToolContext
from assistant.tools.services import services_of

TASK_TOOLS = frozenset({"cancel_task", "pause_task", "resume_task", "edit_task"})


def verb(tool: str, language: str) -> str:
    """What a call asks to do to a task, as the confirmation says it."""
    verbs = {
        "cancel_task": tr(language, "cancel"),
        "pause_task": tr(language, "pause"),
        "resume_task": tr(language, "resume"),
        "edit_task": tr(language, "change"),
    }
    return verbs[tool]


async def human_line(
    context: ToolContext, tool: str, arguments: Mapping[str, Any], language: str = ENGLISH
) -> str:
    """What the call would do, named in the person's own words; "" when it cannot be said."""
    services = services_of(context)
    try:
        if tool in TASK_TOOLS and services.tasks is not None:
            task = await services.tasks.get(context.user_id, str(arguments.get("task_id", "")))
            return f"{verb(tool, language)} {telling.line(task, context.timezone, language)}"
        number = arguments.get("note_id")
        if tool == "delete_note" and services.notes is not None and isinstance(number, int):
            note = await services.notes.get(context.user_id, number)
            return deleting(note.id, note.content, language) if note else ""
    except ModelError:  # no such task: the exact call says what was asked
        return ""
    return ""


def deleting(number: int, words: str, language: str) -> str:
    """The action of deleting a note, as its confirmation shows it."""
    return tr(language, "delete note {id}: “{words}”", id=number, words=words[:80])
