"""The local step: everyday requests understood from sentence templates, before the model.

A message that one sentence of a language file reads whole (a reminder, a note, the lists,
the time here or in a place, cancelling or pausing a task by its words) is acted on here, with
no model: through the same tools, checks and audit as a model's call, its call id starting with
``local-`` so the audit says it was understood locally. Cancelling and pausing always ask
first, with the approval buttons. Days without a time ask for the time, with buttons.
Anything else goes on to the model, or, when there is none, gets one honest line.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from zoneinfo import ZoneInfo

from assistant.agent.approving.human import deleting, verb
from assistant.agent.front.acting import Acting
from assistant.agent.front.before import event_time, event_when, lead_time
from assistant.agent.front.buttons import Button, Reply
from assistant.agent.front.naming import (
    cut,
    expired,
    names,
    no_note,
    no_task,
    not_spoken,
    task_named,
    without_hour,
)
from assistant.agent.front.nomodel import NoModel
from assistant.agent.front.spending import Spending
from assistant.agent.front.zones import set_zone, time_here, time_in
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.errors import ScheduleError
from assistant.intents import Match
from assistant.intents.understanding import alarm_time, missing_time, plain, understand
from assistant.llm.types import AssistantMessage, Message, UserMessage
from assistant.locales import dates, known_language, spoken, tr
from assistant.locales.naming import language_named
from assistant.memory.conversation import Conversations
from assistant.memory.notes import Note
from assistant.memory.people import People
from assistant.memory.questions import Question, Questions
from assistant.schedules import Parsed
from assistant.schedules.parse import read_schedule, read_span
from assistant.schedules.rewriting import rewrite
from assistant.schedules.schedule import is_recurring
from assistant.tasks import Task, telling
from assistant.tools.services import Services
from assistant.tools.telling import refusal

log = logging.getLogger(__name__)
HOURS = ("08:00", "09:00", "12:00", "18:00", "21:00")
_LOOKS = {"note": "save_note", "list_tasks": "list_tasks", "list_notes": "list_notes"}
_STATES = {  # the tasks each change can name
    "cancel_task": ("active", "paused"), "pause_task": ("active",), "resume_task": ("paused",),
}  # fmt: skip
NOTES_LOOKED_AT = 500  # the latest notes searched by their words
PICK_AT_MOST = 9  # listed to pick from, each with its number


class LocalFirst:
    """Acts on requests a sentence template reads whole; None leaves a message to the model."""

    def __init__(
        self,
        acting: Acting,
        services: Services,
        conversations: Conversations,
        clock: Clock,
        *,
        questions: Questions,
        people: People | None = None,
        no_model: NoModel | None = None,
        spending: Spending | None = None,
    ) -> None:
        self._spending = spending
        self._people = people
        self._acting = acting
        self._services = services
        self._conversations = conversations
        self._questions = questions
        self._clock = clock
        self._no_model = no_model  # what is said when there is no model

    async def answer(self, person: Person, text: str) -> Reply | None:
        """The reply to a request understood locally; else the honest line when there is no
        model, or None for the model to answer."""
        reply = await self.understood(person, text)
        if reply is None and self._no_model is not None:
            language = spoken(person.language, text)
            return Reply(self._no_model.line(person.user_id, language, person.timezone))
        return reply

    async def understood(self, person: Person, text: str) -> Reply | None:
        """The reply to a request a sentence reads whole, acted on; None when none does."""
        now, least = self._clock.now(), self._services.min_interval
        try:
            found = understand(text, person.timezone, now, least)
        except Exception:  # a bug here must not cost the message: the model still has it
            log.exception("the local step failed on a message; it goes on to the model")
            return None
        if found is None:
            return None
        if person.language:  # the person's language, whatever the sentence's
            found = replace(found, language=person.language)
        if found.intent in _STATES and not await self._named(person, found, text):
            return None  # "pause the music" names no task of theirs: the model's, or the line
        reply = await self._act(person, found)
        await self._remember(person, text, reply.text)
        return reply

    async def _named(self, person: Person, found: Match, text: str) -> bool:
        """Whether a change names a task: one of theirs by its words, or a task as one ("the
        reminder to …"), which is then told that none matches."""
        if task_named(text):
            return True
        tasks = self._services.tasks
        mine = await tasks.list_tasks(person.user_id) if tasks else []
        return any(names(found.slots["item"], f"{t.description} {t.id}") for t in mine)

    def without_model(self, text: str, language: str = "") -> str:
        """What works with no model, and how to set one up, in the person's language (else
        the one of ``text``): for the command line."""
        return self._no_model.explained(text, language) if self._no_model else ""

    async def press(self, person: Person, data: str) -> Reply:
        """A time-of-day button under a reminder that named days but no time."""
        _, _, rest = data.partition(":")
        key, _, clock = rest.partition(":")
        asked = await self._questions.pending(person.chat_id, person.user_id)
        if asked is None or asked.key != key or asked.kind != "which_time":
            return Reply(expired(asked.language if asked else "en"))
        return await self.complete(person, asked, f"{asked.data['when']} {clock}")

    async def complete(self, person: Person, asked: Question, when: str, what: str = "") -> Reply:
        """Finish the reminder a question waited for, once its answer has been read."""
        if not await self._questions.drop(person.chat_id, asked.key):
            return Reply(expired(asked.language))
        what = what or asked.data.get("what", "")
        if asked.kind == "event_time":  # the event's time: the reminder comes its lead before
            event = event_time(when, lambda words: self._read(words, person))
            if event is not None:
                when = lead_time(event, int(asked.data["lead"]), person.timezone)
        reply = await self._remind(person, when, what, asked.language)
        await self._remember(person, f"{when} {what}", reply.text)
        return reply

    def _read(self, when: str, person: Person) -> Parsed:
        return read_schedule(when, person.timezone, self._clock.now(), self._services.min_interval)

    async def _act(self, person: Person, found: Match) -> Reply:
        slots, language = found.slots, found.language
        if found.intent in ("remind", "remind_what", "alarm", "remind_before"):
            return await self._reminder(person, found)
        if found.intent in _STATES:
            return await self._change(person, found.intent, slots["item"], language)
        if found.intent == "delete_note":
            return await self._forget(person, slots, language)
        if found.intent in ("time_here", "time_in", "set_zone"):
            return await self._time_and_zone(person, found)
        if found.intent in ("usage", "set_language"):
            return await self._own(person, found)
        tool, arguments = _LOOKS[found.intent], {}
        if found.intent == "note":
            arguments = {"content": slots["what"]}  # its tails cut where it was understood
        return await self._acting.run(person, tool, arguments, language)

    async def _own(self, person: Person, found: Match) -> Reply:
        """What the person asks about themselves: the language they are answered in, what
        the model cost them."""
        if found.intent == "usage":
            if self._spending is None:
                return Reply(tr(found.language, "Nothing is counted here yet."))
            return await self._spending.usage(person, language=found.language)
        named = found.slots.get("language", "")
        language = known_language(named)
        if not language:  # a language no pack speaks: say which are spoken, change nothing
            return Reply(not_spoken(language_named(named), found.language))
        if self._people is not None:
            await self._people.set_language(person.user_id, language)
        return Reply(tr(language, "I will answer you in English."))

    async def _time_and_zone(self, person: Person, found: Match) -> Reply:
        """The time here or in a place, or the person's zone set by a place's name."""
        language, place = found.language, found.slots.get("place", "")
        now = self._clock.now()
        if found.intent == "time_here":
            return Reply(time_here(now, person.timezone, language))
        if found.intent == "time_in" or self._people is None:
            return Reply(time_in(now, person.timezone, place, language))
        tasks = self._services.tasks
        return await set_zone(self._people, tasks, self._clock, person, place, language=language)

    async def _reminder(self, person: Person, found: Match) -> Reply:
        """A reminder; one with no words asks for them, an alarm is called one."""
        slots, language = found.slots, found.language
        if found.intent == "remind_before":
            return await self._before(person, slots, language)
        when = slots.get("when") or slots["repeat"]
        if found.intent == "remind_what":
            return await self._what_text(person, when, language)
        words = slots.get("what") or slots.get("todo", "")
        if found.intent == "alarm":
            when = alarm_time(when, person.timezone, self._clock.now())
            return await self._remind(person, when, tr(language, "⏰ alarm"), language)
        return await self._remind(person, when, words, language)

    async def _before(self, person: Person, slots: Mapping[str, str], language: str) -> Reply:
        """A reminder a span before an event: at the event's time less it, else asked."""
        lead = read_span(slots["lead"], person.timezone, self._clock.now())
        event = slots["event"]
        found = event_when(event, lambda words: self._read(words, person))
        at = found[0] if found else None
        what = slots.get("what") or plain(found[1] if found and found[1] else event)
        if lead is None or at is not None:
            when = lead_time(at, lead, person.timezone) if at and lead else slots["lead"]
            return await self._remind(person, when, what, language)
        data = {"when": "", "what": what, "lead": str(lead)}
        await self._ask_back(person, Question(person.user_id, "event_time", language, data))
        return Reply(
            tr(
                language,
                "When is “{event}”? Say its time, e.g. “15:00” or “tomorrow at 10”, and I will "
                "remind you {lead} before it.",
                event=event,
                lead=dates.span(timedelta(seconds=lead), language),
            )
        )

    async def _remind(self, person: Person, when: str, what: str, language: str) -> Reply:
        try:
            parsed = self._read(when, person)
        except ScheduleError as exc:
            if missing_time(exc):
                return await self._which_time(person, when, what, language)
            if exc.reason == "ambiguous_hour":
                return await self._which_hour(person, when, what, exc, language)
            return Reply(refusal(exc, language))
        if is_recurring(parsed.schedule):
            arguments = {"schedule": when, "description": what}
            return await self._acting.run(person, "add_recurring_task", arguments, language)
        arguments = {"when": when, "message": what}
        reply = await self._acting.run(person, "add_reminder", arguments, language)
        if parsed.read_as and reply.buttons:  # made: "at 3:30" was read as 15:30, said so
            clock = f"{parsed.first_run.astimezone(ZoneInfo(person.timezone)):%H:%M}"
            said = tr(language, "{said} is read as {clock}.", said=parsed.read_as, clock=clock)
            return replace(reply, text=f"{reply.text} {said}")
        return reply

    async def _which_time(self, person: Person, when: str, what: str, language: str) -> Reply:
        data = {"when": when, "what": what}
        asked = await self._ask_back(person, Question(person.user_id, "which_time", language, data))
        example = f"{when} 9:00"
        text = tr(
            language,
            "At what time should I remind you of “{what}” ({when})? Pick one, or say it with "
            "the time, e.g. “{example}”.",
            what=what,
            when=when,
            example=example,
        )
        return Reply(text, (tuple(Button(h, f"local:{asked.key}:{h}") for h in HOURS),))

    async def _which_hour(
        self, person: Person, when: str, what: str, error: ScheduleError, language: str
    ) -> Reply:
        """A bare hour with a day ("tomorrow at 3"): night or day is asked, with a button each;
        the answer completes the day the request named."""
        days = without_hour(rewrite(when, person.timezone, self._clock.now()).text, error.words)
        data = {"when": days, "what": what}
        asked = await self._ask_back(person, Question(person.user_id, "which_time", language, data))
        hour, minutes = error.words.partition(":")[::2]
        choices = (
            [f"{int(hour) + h:02d}:{minutes or '00'}" for h in (0, 12)] if hour.isdecimal() else []
        )
        buttons = tuple(Button(c, f"local:{asked.key}:{c}") for c in choices)
        return Reply(refusal(error, language), (buttons,) if buttons else ())

    async def _what_text(self, person: Person, when: str, language: str) -> Reply:
        await self._ask_back(
            person, Question(person.user_id, "what_text", language, {"when": when})
        )
        return Reply(
            tr(language, "What should I remind you of ({when})? Say it in a few words.", when=when)
        )

    async def _ask_back(self, person: Person, question: Question) -> Question:
        return await self._questions.ask(person.chat_id, question)

    async def _change(self, person: Person, intent: str, item: str, language: str) -> Reply:
        """Cancel, pause or resume a task named by its words: always confirmed first."""
        tasks = self._services.tasks
        mine = await tasks.list_tasks(person.user_id) if tasks else []
        wanted = _STATES[intent]
        matching = [
            t for t in mine if t.status in wanted and names(item, f"{t.description} {t.id}")
        ]
        if not matching:
            return Reply(no_task(language, item))
        if len(matching) > 1:
            lines = [telling.line(t, person.timezone, language) for t in matching[:PICK_AT_MOST]]
            return await self._which(person, intent, [t.id for t in matching], lines, language)
        return await self._confirm_task(person, intent, matching[0], language)

    async def _confirm_task(self, person: Person, intent: str, task: Task, language: str) -> Reply:
        action = f"{verb(intent, language)} {telling.line(task, person.timezone, language)}"
        return await self._acting.confirm(person, intent, {"task_id": task.id}, action, language)

    async def _forget(self, person: Person, slots: Mapping[str, str], language: str) -> Reply:
        """Delete a note named by its number or its words: always confirmed first."""
        notes = self._services.notes
        if notes is None:
            return Reply(no_note(language, ""))
        if number := slots.get("number"):
            found = await notes.get(person.user_id, int(number.lstrip("#№")))
            matching = [found] if found else []
        else:
            mine = await notes.list_notes(person.user_id, NOTES_LOOKED_AT)
            matching = [n for n in mine if names(slots["item"], n.content)]
        if not matching:
            return Reply(no_note(language, number or slots.get("item", "")))
        if len(matching) > 1:
            lines = [f"{n.id}: “{cut(n.content)}”" for n in matching[:PICK_AT_MOST]]
            ids = [str(n.id) for n in matching]
            return await self._which(person, "delete_note", ids, lines, language)
        return await self._confirm_note(person, matching[0], language)

    async def _confirm_note(self, person: Person, note: Note, language: str) -> Reply:
        action = deleting(note.id, cut(note.content), language)
        return await self._acting.confirm(
            person, "delete_note", {"note_id": note.id}, action, language
        )

    async def _which(
        self, person: Person, intent: str, ids: list[str], lines: list[str], language: str
    ) -> Reply:
        """Several match: a numbered list, a button each, and the question which one."""
        ids = ids[:PICK_AT_MOST]
        data = {"intent": intent, "ids": ",".join(ids)}
        asked = await self._ask_back(person, Question(person.user_id, "which_task", language, data))
        listed = "\n".join(f"{n}. {line}" for n, line in enumerate(lines, 1))
        buttons = tuple(Button(str(n), f"pick:{asked.key}:{i}") for n, i in enumerate(ids, 1))
        which = tr(language, "Which one? Say its number, or press it.")
        return Reply(f"{which}\n{listed}", (buttons,))

    async def chosen(self, person: Person, asked: Question, chosen: str) -> Reply:
        """The task or note the person picked from a list: confirmed as if named alone."""
        if not await self._questions.drop(person.chat_id, asked.key):
            return Reply(expired(asked.language))
        intent, language = asked.data["intent"], asked.language
        if intent == "delete_note":
            notes = self._services.notes
            note = (
                await notes.get(person.user_id, int(chosen))
                if notes and chosen.isdecimal()
                else None
            )
            if note is None:
                return Reply(no_note(language, chosen))
            return await self._confirm_note(person, note, language)
        tasks = self._services.tasks
        task = await tasks.get(person.user_id, chosen) if tasks else None
        if task is None:
            return Reply(no_task(language, chosen))
        return await self._confirm_task(person, intent, task, language)

    async def press_pick(self, person: Person, data: str) -> Reply:
        """A numbered button under "which one?"."""
        _, key, chosen = [*data.split(":", 2), "", ""][:3]
        asked = await self._questions.pending(person.chat_id, person.user_id)
        if asked is None or asked.key != key or asked.kind != "which_task":
            return Reply(expired(asked.language if asked else "en"))
        return await self.chosen(person, asked, chosen)

    async def press_note(self, person: Person, data: str) -> Reply:
        """A note's 🗑 button: the note is deleted through the tool, audited."""
        number = data.rpartition(":")[2]
        if not number.isdecimal():
            return Reply(expired("en"))
        return await self._acting.run(person, "delete_note", {"note_id": int(number)})

    async def _remember(self, person: Person, text: str, reply: str) -> None:
        """The exchange joins the conversation, so the model later knows what was done."""
        turn = f"local-{uuid.uuid4().hex[:12]}"
        messages: list[Message] = [UserMessage(text), AssistantMessage(reply)]
        try:
            await self._conversations.append(person.chat_id, person.user_id, turn, messages)
        except Exception:  # what was done stands; only the model's memory of it is missing
            log.exception("could not store the local exchange %s", turn)
