"""Slash commands and buttons: everything that works without the model, in any channel.

What a reply carries, and the usual buttons, are in ``buttons.py``; a button's data comes back
here through ``press``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
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
    zone_buttons,
)
from assistant.agent.front.editing import edit
from assistant.agent.front.listing import listed
from assistant.agent.front.splitting import Reading, split
from assistant.agent.front.welcome import hello, help_text, which_zone
from assistant.agent.front.zones import set_zone
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.errors import ModelError, ScheduleError
from assistant.intents.places import zone_at
from assistant.locales import ENGLISH, known_language, ntr, spoken, tr
from assistant.memory.audit import AuditLog
from assistant.memory.export import files
from assistant.memory.notes import Found
from assistant.memory.people import People
from assistant.schedules import Parsed
from assistant.schedules.parse import read_schedule
from assistant.schedules.schedule import is_recurring
from assistant.tasks import NewTask, Owner, Task, TaskStore, telling
from assistant.tools.services import Services, need
from assistant.tools.telling import refused


def _stale(language: str) -> Reply:
    return Reply(tr(language, "That button is no longer valid."))


SNOOZES = {"10m": "in 10m", "1h": "in 1h", "tomorrow": "tomorrow 9am"}
LATER, LATER_BY = "later", timedelta(hours=1)  # a one-shot's snooze before it is due


Exporter = Callable[[int], Awaitable[dict[str, Any]]]


Handler = Callable[[Person, str], Awaitable[Reply]]
Costs = Callable[[Sequence[Task], str], Awaitable[dict[str, str]]]


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
        more: Mapping[str, Handler] | None = None,
        costs: Costs | None = None,
    ) -> None:
        self._costs = costs  # what each scheduled agent task costs, told in /tasks
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
            "export": self._export, **(more or {}),
        }  # fmt: skip

    async def handle(self, person: Person, text: str) -> Reply | None:
        """The reply to a slash command, or None when ``text`` is not one."""
        if not text.startswith("/"):
            return None
        name, _, rest = text[1:].partition(" ")
        handler = self._handlers.get(name.split("@")[0].lower())
        if handler is None:
            return Reply(
                tr(_lang(person), "I do not know /{name}. /help lists what I do.", name=name)
            )
        try:
            return await handler(person, rest.strip())
        except ModelError as exc:  # said in the person's language, else in that of their words
            return Reply(refused(exc, spoken(person.language, rest) if rest else _lang(person)))

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
            return _stale(_lang(person))
        try:
            return await handler(person, rest)
        except ModelError as exc:
            return Reply(refused(exc, _lang(person)))

    async def _press_task(self, person: Person, rest: str) -> Reply:
        action, _, task_id = rest.partition(":")  # task:cancel:ab3k9x
        return await self._task_action(person, action, task_id)

    async def _press_page(self, person: Person, rest: str) -> Reply:
        page = rest.removeprefix("page:")  # tasks:page:2
        return (
            await self._tasks(person, "", int(page)) if page.isdecimal() else _stale(_lang(person))
        )

    async def _press_snooze(self, person: Person, rest: str) -> Reply:
        span, _, task_id = rest.partition(":")  # snooze:10m:ab3k9x
        return await self._snooze(person, span, task_id)

    async def _press_done(self, person: Person, rest: str) -> Reply:
        return Reply(tr(_lang(person), "👍 Done."))

    # ---- commands ----------------------------------------------------------------------

    async def _start(self, person: Person, rest: str) -> Reply:
        profile, language = await self._people.get(person.user_id), _lang(person)
        if profile.timezone is not None:
            return Reply(hello(person.name, language))
        said = f"{hello(person.name, language)}\n\n{which_zone(language)}"
        return Reply(said, zone_buttons(self._default_zone))

    async def _help(self, person: Person, rest: str) -> Reply:
        return Reply(help_text(_lang(person)))

    async def _tasks(self, person: Person, rest: str, page: int = 0) -> Reply:
        tasks, language = await self._store().list_tasks(person.user_id), _lang(person)
        shown = tasks[page * PAGE : (page + 1) * PAGE]
        costs = await self._costs(shown, language) if self._costs and shown else {}
        return listed(tasks, page, costs, person.timezone, language)

    async def _remind(self, person: Person, rest: str) -> Reply:
        example = tr(spoken(person.language, rest), "/remind in 10m stretch your legs")
        parsed, words = split(rest, self._reading(person), example)
        return await self._add(person, parsed, words, "add_reminder")

    async def _every(self, person: Person, rest: str) -> Reply:
        example = tr(spoken(person.language, rest), "/every weekdays 9am stand-up")
        parsed, words = split(rest, self._reading(person), example, repeating=True)
        if not is_recurring(parsed.schedule):
            return Reply(
                tr(
                    _lang(person),
                    "That happens once, and /every repeats: say how "
                    "often, e.g. /every 30m drink water, or use /remind for a one-time "
                    "reminder.",
                )
            )
        return await self._add(person, parsed, words, "add_recurring_task")

    async def _add(self, person: Person, parsed: Parsed, words: str, tool: str) -> Reply:
        """The task through the same tool as the model's, with its audit row."""
        if self._acting is None:
            task = await self._store().add(
                NewTask(_owner(person), "reminder", words, parsed, {"text": words})
            )
            language = _lang(person)
            made = telling.made(task, person.timezone, language)
            return Reply(made, (task_buttons(task, language),))
        when = parsed.source if tool == "add_reminder" else self._repeating(parsed, person)
        arguments = (
            {"when": when, "message": words}
            if tool == "add_reminder"
            else {"schedule": when, "description": words}
        )
        return await self._acting.run(person, tool, arguments)

    async def _edit(self, person: Person, rest: str) -> Reply:
        return await edit(self._store(), person, rest, self._reading(person), _lang(person))

    async def _cancel(self, person: Person, rest: str) -> Reply:
        language = _lang(person)
        if not rest:
            return Reply(tr(language, "Which one? /cancel <id>; /tasks shows the ids."))
        task = await self._store().cancel(person.user_id, rest.split(maxsplit=1)[0])
        line = telling.line(task, person.timezone, language)
        return Reply(tr(language, "Cancelled {line}", line=line))

    async def _export(self, person: Person, rest: str) -> Reply:
        language = _lang(person)
        if person.chat_id != person.user_id:  # a group would see one person's data
            return Reply(tr(language, "/export works only in our private chat."))
        if self._exporter is None:
            return Reply(tr(language, "Exporting is not available here."))
        data = await self._exporter(person.user_id)
        notes = ntr(language, "{n} note", "{n} notes", len(data["notes"]))
        tasks = ntr(language, "{n} task", "{n} tasks", len(data["tasks"]))
        said = tr(
            language, "Your data ({notes}, {tasks}, your conversations):", notes=notes, tasks=tasks
        )
        return Reply(said, files=tuple(files(data).items()))

    async def _notes(self, person: Person, rest: str) -> Reply:
        notes = await need(self._services.notes, "note keeping").list_notes(person.user_id, 10)
        lines = [f"{n.id}. {n.content[:200]}" for n in notes]
        if not lines:
            return Reply(tr(_lang(person), "No notes yet. /note <text> saves one."))
        return Reply("\n".join(lines), note_buttons(notes))

    async def _note(self, person: Person, rest: str) -> Reply:
        note = await need(self._services.notes, "note keeping").add(person.user_id, rest)
        return Reply(tr(_lang(person), "Saved note {id}.", id=note.id))

    async def _search(self, person: Person, rest: str) -> Reply:
        language = _lang(person)
        if not rest:
            return Reply(tr(language, "Search for what? /search <words>"))
        notes = need(self._services.notes, "note keeping")
        found = await notes.search(person.user_id, rest, 5)
        if self._services.conversations is not None:
            found += await self._services.conversations.search(person.user_id, rest, None, 5)
        best = sorted(found, key=lambda f: f.rank)[:8]
        lines = [f"{_source(f, language)} ({f.at:%Y-%m-%d}): {f.snippet}" for f in best]
        return Reply("\n".join(lines) or tr(language, "Nothing found for “{words}”.", words=rest))

    async def _lang(self, person: Person, rest: str) -> Reply:
        """The language the person is answered in: shown, or set (/lang ru)."""
        current = spoken(person.language, rest or "en")
        if not rest:
            return Reply(tr(current, "I answer you in English. /lang ru switches to Russian."))
        language = known_language(rest)
        if not language:
            return Reply(tr(current, "I speak English (/lang en) and Russian (/lang ru)."))
        await self._people.set_language(person.user_id, language)
        return Reply(tr(language, "I will answer you in English."))

    async def located(self, person: Person, latitude: float, longitude: float) -> Reply:
        """A shared location: its zone becomes the person's (offline), tasks moved with it."""
        zone = zone_at(latitude, longitude)
        if zone is None:
            return Reply(
                tr(
                    _lang(person),
                    "I could not tell the time zone of that place; send /tz and a city.",
                )
            )
        return await self._tz(person, zone)

    async def _tz(self, person: Person, rest: str) -> Reply:
        if not rest:
            return Reply(
                tr(
                    _lang(person),
                    "Your timezone is {zone}. Change it: /tz Berlin",
                    zone=person.timezone,
                )
            )
        tasks = self._services.tasks
        language = spoken(person.language, rest)
        return await set_zone(self._people, tasks, self._clock, person, rest, language=language)

    async def _clear(self, person: Person, rest: str) -> Reply:
        conversations = need(self._services.conversations, "conversation memory")
        await conversations.clear(person.chat_id, person.user_id)
        return Reply(tr(_lang(person), "Starting afresh. Your notes and tasks are still here."))

    async def _stop(self, person: Person, rest: str) -> Reply:
        stopped = self._turns.stop(person.chat_id)
        language = _lang(person)
        return Reply(
            tr(language, "Stopping.") if stopped else tr(language, "I was not doing anything.")
        )

    async def _audit_list(self, person: Person, rest: str) -> Reply:
        entries = await self._audit.recent(person.user_id, 10)
        lines = [
            f"{e.at:%m-%d %H:%M} {e.tool} → {e.outcome}"
            + (f" (✓ {e.approver})" if e.approver else "")
            for e in entries
            if e.at is not None
        ]
        return Reply("\n".join(lines) or tr(_lang(person), "No tool calls yet."))

    # ---- buttons -----------------------------------------------------------------------

    async def _task_action(self, person: Person, action: str, task_id: str) -> Reply:
        store = self._store()
        moves = {
            "cancel": store.cancel,
            "pause": store.pause,
            "resume": store.resume,
            "run": store.run_now,
        }
        language = _lang(person)
        if action == "open":
            task = await store.get(person.user_id, task_id)
            line = telling.line(task, person.timezone, language)
            return Reply(line, (task_buttons(task, language),))
        if action == "edit":
            return Reply(
                tr(
                    language,
                    "Send /edit {id} and the new time, words or both, e.g. /edit {id} tomorrow 9am",
                    id=task_id,
                )
            )
        move = moves.get(action)
        if move is None:
            return _stale(language)
        task = await move(person.user_id, task_id)
        line = telling.line(task, person.timezone, language)
        done = {
            "cancel": tr(language, "Cancelled {line}", line=line),
            "pause": tr(language, "Paused {line}", line=line),
            "resume": tr(language, "Resumed {line}", line=line),
            "run": tr(language, "Running now: {line}", line=line),
        }
        return Reply(done[action], (task_buttons(task, language),))

    async def _snooze(self, person: Person, span: str, task_id: str) -> Reply:
        when = SNOOZES.get(span)
        if span == LATER:  # a one-shot not yet due: an hour after its own time
            due = (await self._store().get(person.user_id, task_id)).next_run + LATER_BY
            when = f"{due.astimezone(ZoneInfo(person.timezone)):%Y-%m-%d %H:%M}"
        language = _lang(person)
        if when is None:
            return _stale(language)
        parsed = read_schedule(when, person.timezone, self._clock.now())
        task = await self._store().snooze(person.user_id, task_id, parsed)
        line = telling.line(task, person.timezone, language)
        return Reply(
            tr(language, "😴 Snoozed: {line}.", line=line), (task_buttons(task, language),)
        )

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


def _lang(person: Person) -> str:
    """The language a command answers in: the person's, else English (commands are English)."""
    return person.language or ENGLISH


def _source(found: Found, language: str) -> str:
    return tr(language, "note {id}", id=found.id) if found.kind == "note" else found.detail
