"""Slash commands and buttons: everything that works without the model, in any channel.

What a reply carries, and the usual buttons, are in ``buttons.py``; a button's data comes back
here through ``press``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from assistant.agent.dialog.turns import Turns
from assistant.agent.front.acting import Acting
from assistant.agent.front.buttons import (
    PAGE,
    Reply,
    note_buttons,
    task_buttons,
    task_list_buttons,
    zone_buttons,
)
from assistant.agent.front.phrases import known_language, language_of, say, spoken
from assistant.agent.front.splitting import Reading, split
from assistant.agent.front.zones import set_zone
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.errors import ModelError, ScheduleError
from assistant.intents.places import zone_at
from assistant.memory.audit import AuditLog
from assistant.memory.export import files
from assistant.memory.notes import Found
from assistant.memory.people import People
from assistant.schedules import Parsed
from assistant.schedules.parse import read_schedule
from assistant.schedules.schedule import is_recurring
from assistant.tasks import NewTask, Owner, Task, TaskStore
from assistant.tools.builtin.tasks import edited, local_time, said_once, task_line
from assistant.tools.services import Services, need

STALE = "That button is no longer valid."
MENU: dict[str, str] = {
    "start": "say hello and set things up",
    "help": "what I can do",
    "tasks": "your reminders and tasks, with buttons",
    "remind": "/remind <when> <text>: a reminder",
    "every": "/every <schedule> <text>: a recurring reminder",
    "edit": "/edit <id> <when and/or text>: change a task",
    "cancel": "/cancel <id>: cancel a task",
    "notes": "your latest notes",
    "note": "/note <text>: save a note",
    "search": "/search <words>: search notes and past chats",
    "tz": "/tz <city or Area/City>: set your timezone",
    "lang": "/lang en|ru: the language I answer you in",
    "clear": "start the conversation afresh (notes and tasks stay)",
    "stop": "stop what I am doing",
    "audit": "the tools I used lately",
    "export": "your notes, tasks and conversations as files",
}
SNOOZES = {"10m": "in 10m", "1h": "in 1h", "tomorrow": "tomorrow 9am"}
LATER, LATER_BY = "later", timedelta(hours=1)  # a one-shot's snooze before it is due


Exporter = Callable[[int], Awaitable[dict[str, Any]]]


Handler = Callable[[Person, str], Awaitable[Reply]]


class Commands:
    """Runs slash commands and button presses for a person."""

    def __init__(
        self,
        services: Services,
        people: People,
        audit: AuditLog,
        turns: Turns,
        clock: Clock,
        *,
        exporter: Exporter | None = None,
        acting: Acting | None = None,
        default_zone: str = "UTC",
    ) -> None:
        self._services = services
        self._default_zone = default_zone  # the config's, offered first at /start
        self._acting = acting  # tool calls, audited; without it the store is written directly
        self._exporter = exporter
        self._people = people
        self._audit = audit
        self._turns = turns
        self._clock = clock
        self._handlers: dict[str, Handler] = {
            "start": self._start, "help": self._help, "tasks": self._tasks,
            "remind": self._remind, "every": self._every, "cancel": self._cancel,
            "edit": self._edit,
            "notes": self._notes, "note": self._note, "search": self._search, "tz": self._tz,
            "lang": self._lang,
            "clear": self._clear, "stop": self._stop, "audit": self._audit_list,
            "export": self._export,
        }  # fmt: skip

    async def handle(self, person: Person, text: str) -> Reply | None:
        """The reply to a slash command, or None when ``text`` is not one."""
        if not text.startswith("/"):
            return None
        name, _, rest = text[1:].partition(" ")
        handler = self._handlers.get(name.split("@")[0].lower())
        if handler is None:
            return Reply(f"I do not know /{name}. /help lists what I do.")
        try:
            return await handler(person, rest.strip())
        except ModelError as exc:
            return Reply(str(exc))

    async def press(self, person: Person, data: str) -> Reply:
        """What a button press does; the task is the presser's own or not found. Each prefix
        has its handler, which reads the rest of the data it made."""
        kind, _, rest = data.partition(":")
        buttons: dict[str, Handler] = {
            "task": self._press_task, "tasks": self._press_page, "snooze": self._press_snooze,
            "done": self._press_done, "tz": self._tz,
        }  # fmt: skip
        handler = buttons.get(kind)
        if handler is None:
            return Reply(STALE)
        try:
            return await handler(person, rest)
        except ModelError as exc:
            return Reply(str(exc))

    async def _press_task(self, person: Person, rest: str) -> Reply:
        action, _, task_id = rest.partition(":")  # task:cancel:ab3k9x
        return await self._task_action(person, action, task_id)

    async def _press_page(self, person: Person, rest: str) -> Reply:
        page = rest.removeprefix("page:")  # tasks:page:2
        return await self._tasks(person, "", int(page)) if page.isdecimal() else Reply(STALE)

    async def _press_snooze(self, person: Person, rest: str) -> Reply:
        span, _, task_id = rest.partition(":")  # snooze:10m:ab3k9x
        return await self._snooze(person, span, task_id)

    async def _press_done(self, person: Person, rest: str) -> Reply:
        return Reply("👍 Done.")

    # ---- commands ----------------------------------------------------------------------

    async def _start(self, person: Person, rest: str) -> Reply:
        profile = await self._people.get(person.user_id)
        hello = f"Hello{', ' + person.name if person.name else ''}! I keep your reminders and "
        hello += "tasks, notes, and answer questions with my tools. /help shows the commands."
        if profile.timezone is not None:
            return Reply(hello)
        hello += (
            "\n\nWhich time zone are you in? Press yours, share your location, or send a city: "
            "/tz Berlin."
        )
        return Reply(hello, zone_buttons(self._default_zone))

    async def _help(self, person: Person, rest: str) -> Reply:
        lines = [f"/{name} — {about}" for name, about in MENU.items()]
        lines.append("\nOr just write: “remind me in 20 minutes to take the pizza out”.")
        return Reply("\n".join(lines))

    async def _tasks(self, person: Person, rest: str, page: int = 0) -> Reply:
        tasks = await self._store().list_tasks(person.user_id)
        if not tasks:
            return Reply("You have no tasks. Try /remind in 10m stretch")
        shown = tasks[page * PAGE : (page + 1) * PAGE]
        lines = [f"• {task_line(t, person.timezone)}" for t in shown]
        if page:
            lines.insert(0, f"(tasks {page * PAGE + 1} to {page * PAGE + len(shown)})")
        return Reply("\n".join(lines), task_list_buttons(tasks, page))

    async def _remind(self, person: Person, rest: str) -> Reply:
        parsed, words = split(rest, self._reading(person), "/remind in 10m stretch your legs")
        return await self._add(person, parsed, words, "add_reminder")

    async def _every(self, person: Person, rest: str) -> Reply:
        example = "/every weekdays 9am stand-up"
        parsed, words = split(rest, self._reading(person), example, repeating=True)
        if not is_recurring(parsed.schedule):
            raise ScheduleError(
                f"{parsed.description} happens once, and /every repeats: say how often, "
                "e.g. /every 30m drink water, /every weekdays 9am stand-up, or use /remind "
                "for a one-time reminder"
            )
        return await self._add(person, parsed, words, "add_recurring_task")

    async def _add(self, person: Person, parsed: Parsed, words: str, tool: str) -> Reply:
        """The task through the same tool as the model's, with its audit row."""
        if self._acting is None:
            task = await self._store().add(
                NewTask(_owner(person), "reminder", words, parsed, {"text": words})
            )
            return Reply(_confirm(task, parsed, person.timezone), (task_buttons(task),))
        when = parsed.source if tool == "add_reminder" else self._repeating(parsed, person)
        arguments = (
            {"when": when, "message": words}
            if tool == "add_reminder"
            else {"schedule": when, "description": words}
        )
        return await self._acting.run(person, tool, arguments)

    async def _edit(self, person: Person, rest: str) -> Reply:
        task_id, _, change = rest.partition(" ")
        if not task_id or not change.strip():
            return Reply(
                "Which task, and what change? /edit <id> <new time and/or words>, "
                "e.g. /edit k3x9 tomorrow 9am"
            )
        store = self._store()
        before = await store.get(person.user_id, task_id)
        parsed, words = self._change(change.strip(), person)
        task = await store.edit(person.user_id, task_id, parsed, words or None)
        return Reply(edited(before, task, person.timezone), (task_buttons(task),))

    def _change(self, change: str, person: Person) -> tuple[Parsed | None, str]:
        """A new schedule, new words after it, or only new words."""
        now = self._clock.now()
        try:
            return read_schedule(change, person.timezone, now, self._services.min_interval), ""
        except ScheduleError:
            pass
        try:
            return split(change, self._reading(person), "/edit k3x9 tomorrow 9am")
        except ScheduleError:
            return None, change

    async def _cancel(self, person: Person, rest: str) -> Reply:
        if not rest:
            return Reply("Which one? /cancel <id>; /tasks shows the ids.")
        task = await self._store().cancel(person.user_id, rest.split(maxsplit=1)[0])
        return Reply(f"Cancelled {task.id}: {task.description}")

    async def _export(self, person: Person, rest: str) -> Reply:
        if person.chat_id != person.user_id:  # a group would see one person's data
            return Reply("/export works only in our private chat.")
        if self._exporter is None:
            return Reply("Exporting is not available here.")
        data = await self._exporter(person.user_id)
        counts = f"{len(data['notes'])} notes, {len(data['tasks'])} tasks"
        return Reply(f"Your data ({counts}, your conversations):", files=tuple(files(data).items()))

    async def _notes(self, person: Person, rest: str) -> Reply:
        notes = await need(self._services.notes, "note keeping").list_notes(person.user_id, 10)
        lines = [f"{n.id}. {n.content[:200]}" for n in notes]
        if not lines:
            return Reply("No notes yet. /note <text> saves one.")
        return Reply("\n".join(lines), note_buttons(notes))

    async def _note(self, person: Person, rest: str) -> Reply:
        note = await need(self._services.notes, "note keeping").add(person.user_id, rest)
        return Reply(f"Saved note {note.id}.")

    async def _search(self, person: Person, rest: str) -> Reply:
        if not rest:
            return Reply("Search for what? /search <words>")
        notes = need(self._services.notes, "note keeping")
        found = await notes.search(person.user_id, rest, 5)
        if self._services.conversations is not None:
            found += await self._services.conversations.search(person.user_id, rest, None, 5)
        best = sorted(found, key=lambda f: f.rank)[:8]
        lines = [f"{_source(f)} ({f.at:%Y-%m-%d}): {f.snippet}" for f in best]
        return Reply("\n".join(lines) or f"Nothing found for {rest!r}.")

    async def _lang(self, person: Person, rest: str) -> Reply:
        """The language the person is answered in: shown, or set (/lang ru)."""
        current = spoken(person.language, rest or "en")
        if not rest:
            return Reply(say(current, "lang_is"))
        language = known_language(rest)
        if not language:
            return Reply(say(current, "lang_unknown"))
        await self._people.set_language(person.user_id, language)
        return Reply(say(language, "lang_set"))

    async def located(self, person: Person, latitude: float, longitude: float) -> Reply:
        """A shared location: its zone becomes the person's (offline), tasks moved with it."""
        zone = zone_at(latitude, longitude)
        if zone is None:
            return Reply("I could not tell the time zone of that place; send /tz and a city.")
        return await self._tz(person, zone)

    async def _tz(self, person: Person, rest: str) -> Reply:
        if not rest:
            return Reply(f"Your timezone is {person.timezone}. Change it: /tz Europe/Berlin")
        tasks = self._services.tasks
        language = language_of(rest)
        return await set_zone(self._people, tasks, self._clock, person, rest, language=language)

    async def _clear(self, person: Person, rest: str) -> Reply:
        conversations = need(self._services.conversations, "conversation memory")
        await conversations.clear(person.chat_id, person.user_id)
        return Reply("Starting afresh. Your notes and tasks are still here.")

    async def _stop(self, person: Person, rest: str) -> Reply:
        stopped = self._turns.stop(person.chat_id)
        return Reply("Stopping." if stopped else "I was not doing anything.")

    async def _audit_list(self, person: Person, rest: str) -> Reply:
        entries = await self._audit.recent(person.user_id, 10)
        lines = [
            f"{e.at:%m-%d %H:%M} {e.tool} → {e.outcome}"
            + (f" (by {e.approver})" if e.approver else "")
            for e in entries
            if e.at is not None
        ]
        return Reply("\n".join(lines) or "No tool calls yet.")

    # ---- buttons -----------------------------------------------------------------------

    async def _task_action(self, person: Person, action: str, task_id: str) -> Reply:
        store = self._store()
        moves = {
            "cancel": store.cancel,
            "pause": store.pause,
            "resume": store.resume,
            "run": store.run_now,
        }
        if action == "open":
            task = await store.get(person.user_id, task_id)
            return Reply(task_line(task, person.timezone), (task_buttons(task),))
        if action == "edit":
            return Reply(
                f"Send /edit {task_id} and the new time, words or both, "
                f"e.g. /edit {task_id} tomorrow 9am"
            )
        move = moves.get(action)
        if move is None:
            return Reply(STALE)
        task = await move(person.user_id, task_id)
        done = {"cancel": "Cancelled", "pause": "Paused", "resume": "Resumed", "run": "Running now"}
        return Reply(f"{done[action]}: {task.id} {task.description}", (task_buttons(task),))

    async def _snooze(self, person: Person, span: str, task_id: str) -> Reply:
        when = SNOOZES.get(span)
        if span == LATER:  # a one-shot not yet due: an hour after its own time
            due = (await self._store().get(person.user_id, task_id)).next_run + LATER_BY
            when = f"{due.astimezone(ZoneInfo(person.timezone)):%Y-%m-%d %H:%M}"
        if when is None:
            return Reply(STALE)
        parsed = read_schedule(when, person.timezone, self._clock.now())
        task = await self._store().snooze(person.user_id, task_id, parsed)
        when = said_once(task, parsed.description, person.timezone)
        return Reply(f"😴 Snoozed: {task.description} — {when}.", (task_buttons(task),))

    # ---- helpers -----------------------------------------------------------------------

    def _reading(self, person: Person) -> Reading:
        return Reading(person.timezone, self._clock.now(), self._services.min_interval)

    def _repeating(self, parsed: Parsed, person: Person) -> str:
        """Schedule text the recurring tool reads as /every did: "30m" is every 30 minutes."""
        try:
            alone = read_schedule(
                parsed.source, person.timezone, self._clock.now(), self._services.min_interval
            )
        except ScheduleError:
            return f"every {parsed.source}"
        return parsed.source if is_recurring(alone.schedule) else f"every {parsed.source}"

    def _store(self) -> TaskStore:
        return need(self._services.tasks, "the task scheduler")


def _owner(person: Person) -> Owner:
    return Owner(person.user_id, person.chat_id)


def _confirm(task: Task, parsed: Parsed, zone: str) -> str:
    note = f" ({parsed.note})" if parsed.note else ""
    when = local_time(task.next_run, zone)
    return f"✅ {task.id}: {task.description} — {parsed.description}; next {when}{note}"


def _source(found: Found) -> str:
    return f"note {found.id}" if found.kind == "note" else found.detail
