"""The operator's command line over tasks: every user's, by id."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TextIO

from assistant.app import Setup
from assistant.app.runtime import compose
from assistant.app.serve import NoChannel
from assistant.clock import SystemClock
from assistant.errors import ConfigError, StorageError
from assistant.memory import export as exporting
from assistant.usage.report import report
from assistant.usage.telling import usage_text


async def list_tasks(setup: Setup, out: TextIO) -> None:
    """Every live task, for the operator."""
    async with compose(setup, SystemClock(), NoChannel(), NoChannel(), owner=False) as runtime:
        tasks = await runtime.tasks.operator_list()
    for task in tasks:
        out.write(
            f"{task.id}  user {task.owner.user_id}  {task.status:<6}  {task.kind:<10}  "
            f"next {task.next_run:%Y-%m-%d %H:%M} UTC  {task.schedule_text!r}  {task.description}\n"
        )
    out.write(f"{len(tasks)} live tasks\n")


async def cancel_task(setup: Setup, task_id: str, out: TextIO) -> None:
    """Cancel a task for its owner, by the operator."""
    async with compose(setup, SystemClock(), NoChannel(), NoChannel(), owner=False) as runtime:
        store = runtime.tasks
        task = await store.cancel(await store.owner_of(task_id), task_id)
    out.write(f"cancelled {task.id} (user {task.owner.user_id}): {task.description}\n")


async def export(setup: Setup, folder: Path) -> str:
    """Every user's notes, tasks and conversations as files in ``folder``."""
    clock = SystemClock()
    async with compose(setup, clock, NoChannel(), NoChannel(), owner=False) as runtime:
        async with runtime.db.read() as session:
            rows = await session.fetchall(
                "SELECT user_id FROM notes UNION SELECT user_id FROM scheduled_tasks "
                "UNION SELECT user_id FROM messages ORDER BY 1"
            )
        written = []
        for (user_id,) in rows:
            data = await exporting.gather(runtime.db, int(user_id), clock.now().isoformat())
            written += await asyncio.to_thread(exporting.write, folder, exporting.files(data))
    if not written:
        return "nothing to export: no user has notes, tasks or conversations yet"
    return "exported " + ", ".join(str(path) for path in written)


async def usage(setup: Setup, chart_file: Path | None, out: TextIO) -> None:
    """Everyone's use of the model as a table, and the 30 days as a PNG when asked."""
    config, clock = setup.config, SystemClock()
    if chart_file is not None:
        _can_write(chart_file)
    unit = config.llm.currency if config.budgets.unit == "money" else "tokens"
    async with compose(setup, clock, NoChannel(), NoChannel(), owner=False) as runtime:
        found = await report(runtime.db, clock.now(), config.assistant.timezone, None)
        names = {task.id: task.description for task in await runtime.tasks.operator_list()}
    out.write(usage_text(found, unit, "en", names, everyone=True) + "\n")
    if chart_file is not None:
        from assistant.usage.chart import chart  # matplotlib: loaded when first drawn

        picture = chart(found.days, unit, "en")
        _write(chart_file, picture)
        out.write(f"chart: {chart_file} ({len(picture)} bytes)\n")


def _can_write(chart_file: Path) -> None:
    """Refuse, before any work, a chart file that could not be written."""
    if chart_file.exists():
        raise ConfigError(f"{chart_file} exists; name a new file for the chart")
    if not chart_file.parent.is_dir():
        raise StorageError(
            f"{chart_file}: its folder {chart_file.parent} does not exist; make it or name "
            "another file for the chart."
        )


def _write(chart_file: Path, picture: bytes) -> None:
    """The chart into a new file; a file that is there is never written over."""
    try:
        with chart_file.open("xb") as written:
            written.write(picture)
    except FileExistsError:
        raise ConfigError(f"{chart_file} exists; name a new file for the chart") from None
    except OSError as exc:
        why = (exc.strerror or type(exc).__name__).lower()
        raise StorageError(f"{chart_file}: the chart could not be written ({why})") from None
