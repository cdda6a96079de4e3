"""What a reply carries (text, rows of buttons, files) and the usual buttons: under a task,
and under a fired reminder. A button's data (``task:cancel:ab3k9x``) comes back through
``press``; channels render buttons their way (inline keyboards, numbered hints)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assistant.errors import AssistantError
from assistant.locales import ENGLISH, tr
from assistant.memory.notes import Note
from assistant.scheduler import Notice
from assistant.tasks import Task
from assistant.tools import Attachment


@dataclass(frozen=True)
class Button:
    """A button: its label and the data it sends back."""

    text: str
    data: str


@dataclass(frozen=True)
class Reply:
    """What a command answers: text, rows of buttons, and files (name and content)."""

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    files: tuple[tuple[str, bytes], ...] = ()
    images: tuple[Attachment, ...] = ()
    failure: AssistantError | None = None  # ours (a write failed), not a refusal: an exit


def task_buttons(task: Task, language: str = ENGLISH) -> tuple[Button, ...]:
    """The buttons that fit a task: cancel and edit always; a one-shot can be put off an hour
    (snoozed); a repeating one paused or resumed and run now."""
    cancel = Button(tr(language, "✖ Cancel {id}", id=task.id), f"task:cancel:{task.id}")
    edit = Button(tr(language, "✏️ Edit"), f"task:edit:{task.id}")
    if task.schedule_kind == "once":
        return (cancel, Button("😴 +1 h", f"snooze:later:{task.id}"), edit)
    toggle = (
        Button(tr(language, "Resume"), f"task:resume:{task.id}")
        if task.status == "paused"
        else Button(tr(language, "Pause"), f"task:pause:{task.id}")
    )
    return (
        cancel,
        toggle,
        Button(tr(language, "▶ Run now"), f"task:run:{task.id}"),
        edit,
    )


PAGE = 8  # tasks a page of /tasks


def task_list_buttons(
    tasks: Sequence[Task], page: int, language: str = ENGLISH
) -> tuple[tuple[Button, ...], ...]:
    """One button a task on this page (it opens the task's own buttons), and "more"."""
    shown = tasks[page * PAGE : (page + 1) * PAGE]
    buttons = [Button(f"⚙ {task.id}", f"task:open:{task.id}") for task in shown]
    rows = [tuple(buttons[at : at + 4]) for at in range(0, len(buttons), 4)]
    if len(tasks) > (page + 1) * PAGE:
        rows.append((Button(tr(language, "More ▸"), f"tasks:page:{page + 1}"),))
    return tuple(rows)


def note_buttons(notes: Sequence[Note]) -> tuple[tuple[Button, ...], ...]:
    """A 🗑 button a note, five to a row."""
    buttons = [Button(f"🗑 {note.id}", f"note:delete:{note.id}") for note in notes]
    return tuple(tuple(buttons[at : at + 5]) for at in range(0, len(buttons), 5))


def notice_buttons(notice: Notice) -> tuple[tuple[Button, ...], ...]:
    """The buttons a scheduler notice carries: a fired reminder's, or none."""
    if notice.kind == "reminder" and notice.task_id:
        return reminder_buttons(notice.task_id, notice.language)
    return ()


def reminder_buttons(task_id: str, language: str = ENGLISH) -> tuple[tuple[Button, ...], ...]:
    """The buttons under a fired reminder: snooze 10 minutes, an hour, until tomorrow; done."""
    return (
        (
            Button(tr(language, "😴 10 min"), f"snooze:10m:{task_id}"),
            Button(tr(language, "😴 1 hour"), f"snooze:1h:{task_id}"),
            Button(tr(language, "😴 Tomorrow"), f"snooze:tomorrow:{task_id}"),
        ),
        (Button(tr(language, "✅ Done"), f"done:{task_id}"),),
    )


LIKELY_ZONES = (
    "Europe/London", "Europe/Berlin", "Europe/Moscow", "Asia/Yekaterinburg", "Asia/Dubai",
    "Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo", "America/New_York", "America/Chicago",
    "America/Los_Angeles", "Australia/Sydney",
)  # fmt: skip


def zone_buttons(first: str) -> tuple[tuple[Button, ...], ...]:
    """Likely zones to press at /start, the config's first, three to a row."""
    zones = [first, *(z for z in LIKELY_ZONES if z != first)][: len(LIKELY_ZONES)]
    buttons = [Button(z.rpartition("/")[2].replace("_", " "), f"tz:{z}") for z in zones]
    return tuple(tuple(buttons[at : at + 3]) for at in range(0, len(buttons), 3))
