"""The owner's data, out: notes, tasks and conversations as JSON, and notes as Markdown."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from assistant.db import Database, Row

FORMAT = "assistant-export/1"
_NOTES = "SELECT id, content, tags, created_at FROM notes WHERE user_id = ? ORDER BY id"
_TASKS = (
    "SELECT id, chat_id, task_type, description, schedule_text, timezone, status, "
    "execution_data, created_at, last_run, next_run FROM scheduled_tasks "
    "WHERE user_id = ? ORDER BY created_at, id"
)
_MESSAGES = (
    "SELECT chat_id, session, role, content, tool, created_at FROM messages "
    "WHERE user_id = ? ORDER BY chat_id, id"
)


_USAGE = (
    "SELECT day, source, task_id, model, COUNT(*), SUM(input_tokens), SUM(cached_tokens), "
    "SUM(output_tokens), SUM(audio_seconds), SUM(cost) FROM usage WHERE user_id = ? "
    "GROUP BY day, source, task_id, model ORDER BY day"
)
_USAGE_KEYS = ("day", "source", "task_id", "model", "calls", "input_tokens", "cached_tokens",
               "output_tokens", "audio_seconds", "cost")  # fmt: skip


async def gather(db: Database, user_id: int, exported_at: str) -> dict[str, Any]:
    """Everything stored for one user, as plain JSON values."""
    async with db.read() as session:
        notes = await session.fetchall(_NOTES, (user_id,))
        tasks = await session.fetchall(_TASKS, (user_id,))
        messages = await session.fetchall(_MESSAGES, (user_id,))
        usage = await session.fetchall(_USAGE, (user_id,))
    return {
        "format": FORMAT,
        "exported_at": exported_at,
        "user_id": user_id,
        "notes": [_note(row) for row in notes],
        "tasks": [_task(row) for row in tasks],
        "conversations": _conversations(messages),
        "model_usage": [dict(zip(_USAGE_KEYS, row, strict=True)) for row in usage],
    }


def _note(row: Row) -> dict[str, Any]:
    return {
        "id": row[0],
        "content": row[1],
        "tags": json.loads(row[2] or "[]"),
        "created_at": row[3],
    }


def _task(row: Row) -> dict[str, Any]:
    keys = ("id", "chat_id", "kind", "description", "schedule", "timezone", "status")
    task = dict(zip(keys, row[:7], strict=True))
    task["execution"] = json.loads(row[7] or "{}")
    task.update(created_at=row[8], last_run=row[9], next_run=row[10])
    return task


def _conversations(rows: list[Row]) -> list[dict[str, Any]]:
    chats: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for chat_id, session, role, content, tool, created_at in rows:
        message = {"role": role, "content": content, "at": created_at}
        if tool:
            message["tool"] = tool
        chats.setdefault((chat_id, session), []).append(message)
    return [
        {"chat_id": chat, "session": session, "messages": messages}
        for (chat, session), messages in chats.items()
    ]


def files(data: dict[str, Any]) -> dict[str, bytes]:
    """The export as named files: the JSON of everything and the notes in Markdown."""
    stem = f"assistant-export-{data['user_id']}"
    return {
        f"{stem}.json": (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode(),
        f"{stem}-notes.md": notes_markdown(data).encode(),
    }


def notes_markdown(data: dict[str, Any]) -> str:
    """The notes of an export as a Markdown file."""
    lines = [f"# Notes of user {data['user_id']}", "", f"Exported {data['exported_at']}.", ""]
    for note in data["notes"]:
        tags = " ".join(f"#{tag}" for tag in note["tags"])
        lines += [f"## {note['created_at']}{'  ' + tags if tags else ''}", "", note["content"], ""]
    return "\n".join(lines)


def write(folder: Path, files: dict[str, bytes]) -> list[Path]:
    """Write exported files into ``folder`` (made if missing), readable by their owner only;
    an earlier export is never overwritten: this one takes the next free number."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    names = [Path(name).name for name in files]  # a name, never a path elsewhere
    for number in range(1, 10_000):
        paths = [folder / _numbered(name, number) for name in names]
        if not any(path.exists() for path in paths):
            break
    for path, content in zip(paths, files.values(), strict=True):
        _write_new(path, content)
    return paths


def _numbered(name: str, number: int) -> str:
    if number == 1:
        return name
    stem, dot, suffix = name.partition(".")
    return f"{stem}-{number}{dot}{suffix}"


def _write_new(path: Path, content: bytes) -> None:
    """Create ``path`` for its owner alone; an existing file (a race) is refused, not replaced."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(content)
