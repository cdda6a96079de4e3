"""``/edit <id> <change>``: a task's new time, new words, or both; a time alone keeps a
one-shot's day ("/edit k3x9 8:15"), and a bare hour on it is asked, night or day."""

from __future__ import annotations

from assistant.agent.front.buttons import Reply, task_buttons
from assistant.agent.front.splitting import Reading, split
from assistant.agent.person import Person
from assistant.errors import ScheduleError
from assistant.locales import tr
from assistant.locales.dates import moment
from assistant.schedules import Parsed
from assistant.schedules.parse import read_schedule
from assistant.tasks import Task, TaskStore, telling
from assistant.tools.builtin.tasks import on_its_day


async def edit(
    store: TaskStore, person: Person, rest: str, reading: Reading, language: str
) -> Reply:
    """Change the task ``rest`` names as the words after its id say; the reply shows it now."""
    task_id, _, change = rest.partition(" ")
    if not task_id or not change.strip():
        return Reply(
            tr(
                language,
                "Which task, and what change? /edit <id> <new time and/or "
                "words>, e.g. /edit k3x9 tomorrow 9am",
            )
        )
    before = await store.get(person.user_id, task_id)
    parsed, words = _change(change.strip(), before, reading, language)
    task = await store.edit(person.user_id, task_id, parsed, words or None)
    said = tr(language, "✏️ Changed {line}", line=telling.line(task, person.timezone, language))
    if before.next_run != task.next_run:
        was = moment(before.next_run, person.timezone, language)
        said += tr(language, "; it was due {when}", when=was)
    return Reply(said, (task_buttons(task, language),))


def _change(
    change: str, before: Task, reading: Reading, language: str
) -> tuple[Parsed | None, str]:
    """A new schedule (a time alone keeps a one-shot's day), new words after it, or only
    new words."""

    def read(text: str) -> Parsed:
        return read_schedule(text, reading.zone, reading.now, reading.least)

    try:
        return on_its_day(before, change, read, reading.zone), ""
    except ScheduleError as exc:
        if exc.reason == "ambiguous_hour":
            raise
    try:
        return split(change, reading, tr(language, "/edit k3x9 tomorrow 9am"))
    except ScheduleError:
        return None, change
