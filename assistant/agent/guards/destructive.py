"""Destructive calls a message never asked for: deleting a note, cancelling or pausing a task
when the person's words name no note or task. A small model calls ``delete_note`` in answer to
"hi, how are you today?"; such a call waits for a button instead of running."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from assistant.locales import words

_KINDS = {"delete_note": "note", "cancel_task": "task", "pause_task": "task"}
_ID_ARGUMENT = {"delete_note": "note_id", "cancel_task": "task_id", "pause_task": "task_id"}


def names_kind(message: str, kind: str) -> bool:
    """Whether a message names an item of ``kind`` as one ("the reminder", «заметку»)."""
    return bool(
        re.search(rf"(?<!\w)(?:{words.pattern(f'guards.items.{kind}')})", message.casefold())
    )


def unasked(tool: str, arguments: Mapping[str, Any], message: str) -> str | None:
    """Why a destructive call needs the owner's button: the message names no such item (not
    by its kind, nor by its id); None for calls that are not destructive or were asked for."""
    if tool not in _KINDS:
        return None
    said = message.casefold()
    if names_kind(said, _KINDS[tool]):
        return None
    named = str(arguments.get(_ID_ARGUMENT[tool], "")).casefold()
    if named and re.search(rf"(?<![\w]){re.escape(named)}(?![\w])", said):
        return None
    kind = _KINDS[tool]
    return f"your message names no {kind}; confirm that you want this done"
