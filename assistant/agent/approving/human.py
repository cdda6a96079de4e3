"""The action of a built-in call in words, for its approval prompt: the task's line, the note's
text. An outside tool's call has no such line: its prompt shows the exact call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assistant.errors import ModelError
from assistant.tools import ToolContext
from assistant.tools.builtin.tasks import task_line
from assistant.tools.services import services_of

VERBS = {
    "cancel_task": "cancel",
    "pause_task": "pause",
    "resume_task": "resume",
    "edit_task": "change",
}


async def human_line(context: ToolContext, tool: str, arguments: Mapping[str, Any]) -> str:
    """What the call would do, named in the person's own words; "" when it cannot be said."""
    services = services_of(context)
    try:
        if tool in VERBS and services.tasks is not None:
            task = await services.tasks.get(context.user_id, str(arguments.get("task_id", "")))
            return f"{VERBS[tool]} {task_line(task, context.timezone)}"
        number = arguments.get("note_id")
        if tool == "delete_note" and services.notes is not None and isinstance(number, int):
            note = await services.notes.get(context.user_id, number)
            return f"delete note {note.id}: “{note.content[:80]}”" if note else ""
    except ModelError:  # no such task: the exact call says what was asked
        return ""
    return ""
