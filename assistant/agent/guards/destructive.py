"""Destructive calls a message never asked for: deleting a note, cancelling or pausing a task
when the person's words name no note or task. A small model calls ``delete_note`` in answer to
"hi, how are you today?"; such a call waits for a button instead of running."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# The words that name each kind of item, in English and Russian (stems: any ending).
_TASKS = r"task|remind|alarm|alert|timer|schedul|задач|напомин|будильник|таймер|расписан"
_NAMES = {
    "delete_note": r"note|notes|заметк|записк|запис",
    "cancel_task": _TASKS,
    "pause_task": _TASKS,
}
_ID_ARGUMENT = {"delete_note": "note_id", "cancel_task": "task_id", "pause_task": "task_id"}


def unasked(tool: str, arguments: Mapping[str, Any], message: str) -> str | None:
    """Why a destructive call needs the owner's button: the message names no such item (not
    by its kind, nor by its id); None for calls that are not destructive or were asked for."""
    if tool not in _NAMES:
        return None
    said = message.casefold()
    if re.search(rf"(?<!\w)(?:{_NAMES[tool]})", said):
        return None
    named = str(arguments.get(_ID_ARGUMENT[tool], "")).casefold()
    if named and re.search(rf"(?<![\w]){re.escape(named)}(?![\w])", said):
        return None
    kind = "note" if tool == "delete_note" else "task"
    return f"your message names no {kind}; confirm that you want this done"
