"""The operator's command line over tasks: every user's, by id."""

from __future__ import annotations

from typing import TextIO

from assistant.app import Setup
from assistant.clock import SystemClock
from assistant.db import open_database
from assistant.tasks import TaskStore


async def list_tasks(setup: Setup, out: TextIO) -> None:
    """Every live task, for the operator."""
    conn = await open_database(setup.database_path())
    try:
        tasks = await TaskStore(conn, SystemClock()).operator_list()
    finally:
        await conn.close()
    for task in tasks:
        out.write(
            f"{task.id}  user {task.owner.user_id}  {task.status:<6}  {task.kind:<10}  "
            f"next {task.next_run:%Y-%m-%d %H:%M} UTC  {task.schedule_text!r}  {task.description}\n"
        )
    out.write(f"{len(tasks)} live tasks\n")


async def cancel_task(setup: Setup, task_id: str, out: TextIO) -> None:
    """Cancel a task for its owner, by the operator."""
    conn = await open_database(setup.database_path())
    try:
        store = TaskStore(conn, SystemClock())
        task = await store.cancel(await store.owner_of(task_id), task_id)
    finally:
        await conn.close()
    out.write(f"cancelled {task.id} (user {task.owner.user_id}): {task.description}\n")
