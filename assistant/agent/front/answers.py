"""The next message of a chat, read first as the answer to the question the chat waits on.

"At what time?" is answered by "7:30", "at 7:30", "в 7:30" or "tomorrow 7:30"; "what should I
remind you of?" by the words. A message that is not an answer (a request of its own, a
command) is a new message: the question stays open and the message is handled as usual.
"""

from __future__ import annotations

import re

from assistant.agent.approving.desk import ApprovalDesk
from assistant.agent.front.buttons import Reply
from assistant.agent.front.local import LocalFirst
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.errors import ScheduleError
from assistant.intents.understanding import plain, says_something, understand
from assistant.locales import words
from assistant.memory.questions import Question, Questions
from assistant.schedules.parse import read_schedule
from assistant.tools.services import Services
from assistant.tools.telling import refusal


def yes_or_no(text: str) -> bool | None:
    """True for a yes, False for a no (each pack's ``answers``), None for anything else: a new
    message, not a "no"."""
    word = text.strip().strip(".!").casefold()
    if word in words.listed("answers.yes"):
        return True
    return False if word in words.listed("answers.no") else None


SHORT = 4  # words: an answer to "at what time?" is a few words, not a request
_LEAD = re.compile(r"^\s*(?:to|that|about|of|чтобы|что|про|о|об)\s+", re.IGNORECASE)


class Answers:
    """Reads a message as the answer to its chat's pending question, and finishes the request."""

    def __init__(
        self,
        questions: Questions,
        local: LocalFirst,
        services: Services,
        clock: Clock,
        approvals: ApprovalDesk | None = None,
    ) -> None:
        self._questions = questions
        self._local = local
        self._services = services
        self._clock = clock
        self._approvals = approvals

    async def decided(self, person: Person, text: str) -> Reply | None:
        """A typed yes or no that answers the approval shown where the person speaks from and
        still the last thing asked there, as its button would; else None, and whatever the
        message is, it was said since: a later yes is not for those approvals."""
        approve = yes_or_no(text)
        if approve is not None and (said := await self._decide(person, approve)):
            return said
        if self._approvals is not None:
            await self._approvals.said_since(person.chat_id, person.user_id, person.channel)
        return None

    async def answer(self, person: Person, text: str) -> Reply | None:
        """The reply when ``text`` answers the person's open question in the chat; None when
        it is a new message (the question then stays open)."""
        if text.lstrip().startswith("/"):
            return None
        asked = await self._questions.pending(person.chat_id, person.user_id)
        if asked is None:
            return None
        if asked.kind in ("which_time", "event_time"):
            return await self._time(person, asked, text)
        if asked.kind == "what_text":
            return await self._words(person, asked, text)
        return await self._pick(person, asked, text)

    async def _decide(self, person: Person, approve: bool) -> Reply | None:
        if self._approvals is None:
            return None
        waiting = await self._approvals.typed_in(person.chat_id, person.user_id, person.channel)
        if len(waiting) != 1:
            return None  # none: a new message; several: their buttons say which
        return Reply(await self._approvals.answer(waiting[0], person.user_id, approve))

    async def _pick(self, person: Person, asked: Question, text: str) -> Reply | None:
        """One of the listed tasks or notes: its number, its place in words, or its words."""
        ids = asked.data["ids"].split(",")
        chosen = pick(text, ids)
        if chosen is None:
            return None
        return await self._local.chosen(person, asked, chosen)

    async def _time(self, person: Person, asked: Question, text: str) -> Reply | None:
        """A time (or a day and a time) that completes the days the request named."""
        said = text.strip().rstrip(".!")
        if not said or len(said.split()) > SHORT or not any(c.isdigit() for c in said):
            return None
        days, at = asked.data["when"], words.of(asked.language, "clock_at") or "at"
        tries = (f"{days} {said}", f"{days} {at} {said}", said) if days else (said, f"{at} {said}")
        for when in tries:  # the days first
            try:
                self._read(when, person)
            except ScheduleError as exc:
                if exc.reason == "ambiguous_hour":  # an answer, but which hour: ask again
                    return Reply(refusal(exc, asked.language))
                continue
            return await self._local.complete(person, asked, when)
        return None

    async def _words(self, person: Person, asked: Question, text: str) -> Reply | None:
        """The words of the reminder, unless the message is a request of its own."""
        now, least = self._clock.now(), self._services.min_interval
        if understand(text, person.timezone, now, least) is not None:
            return None
        said = plain(_LEAD.sub("", text.strip()))
        if not says_something(said):
            return None
        return await self._local.complete(person, asked, asked.data["when"], said)

    def _read(self, when: str, person: Person) -> None:
        read_schedule(when, person.timezone, self._clock.now(), self._services.min_interval)


def pick(text: str, ids: list[str]) -> str | None:
    """Which of ``ids`` an answer names: "2", "#2", "the second one", "вторую", or an id."""
    said: list[str] = re.findall(r"[^\W_]+", text.casefold())
    if len(said) > SHORT or not said:
        return None
    places = words.table("answers.places")
    for word in said:
        if word in ids:
            return word
        if word.isdecimal() and 0 < int(word) <= len(ids):
            return ids[int(word) - 1]
        for stem, place in places.items():
            if word.startswith(stem) and place <= len(ids):
                return ids[place - 1] if place > 0 else ids[-1]
    return None
