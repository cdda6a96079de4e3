"""``/tasks``: a person's tasks a page at a time, each on its line with its cost where it has
one, and a button to open each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assistant.agent.front.buttons import PAGE, Reply, task_list_buttons
from assistant.locales import ntr, tr
from assistant.tasks import Task, telling


def listed(
    tasks: Sequence[Task], page: int, costs: Mapping[str, str], zone: str, language: str
) -> Reply:
    """Page ``page`` of ``tasks``, headed by how many there are."""
    if not tasks:
        return Reply(tr(language, "You have no tasks. Try /remind in 10m stretch"))
    shown = tasks[page * PAGE : (page + 1) * PAGE]
    lines = [f"• {telling.line(t, zone, language)}" for t in shown]
    lines = [
        f"{line} ({costs[t.id]})" if t.id in costs else line
        for t, line in zip(shown, lines, strict=True)
    ]
    head = ntr(language, "{n} task", "{n} tasks", len(tasks))
    if page:
        head = tr(
            language,
            "{count}; from {first} to {last}",
            count=head,
            first=page * PAGE + 1,
            last=page * PAGE + len(shown),
        )
    return Reply("\n".join([head + ":", *lines]), task_list_buttons(tasks, page, language))
