"""The next message of a chat, read first as the answer to the question the chat waits on.

"At what time?" is answered by "7:30", "at 7:30", "в 7:30" or "tomorrow 7:30"; "what should I
remind you of?" by the words. A message that is not an answer (a request of its own, a
command) is a new message: the question stays open and the message is handled as usual.
"""

from __future__ import annotations

import re

from assistant.agent.front.buttons import Reply
from assistant.agent.front.local import LocalFirst, plain
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.errors import ScheduleError
from assistant.intents.understanding import says_something, understand
from assistant.memory.questions import Question, Questions
from assistant.schedules.parse import read_schedule
from assistant.tools.services import Services

_AT = {"en": "at", "ru": "в"}  # "tomorrow" and "3" make "tomorrow at 3"
SHORT = 4  # words: an answer to "at what time?" is a few words, not a request
_LEAD = re.compile(r"^\s*(?:to|that|about|of|чтобы|что|про|о|об)\s+", re.IGNORECASE)


class Answers:
    """Reads a message as the answer to its chat's pending question, and finishes the request."""

    def __init__(
        self, questions: Questions, local: LocalFirst, services: Services, clock: Clock
    ) -> None:
        self._questions = questions
        self._local = local
        self._services = services
        self._clock = clock

    async def answer(self, person: Person, text: str) -> Reply | None:
        """The reply when ``text`` answers the chat's open question; None when it is a new
        message (the question then stays open)."""
        if text.lstrip().startswith("/"):
            return None
        asked = await self._questions.pending(person.chat_id, person.user_id)
        if asked is None:
            return None
        if asked.kind == "which_time":
            return await self._time(person, asked, text)
        if asked.kind == "what_text":
            return await self._words(person, asked, text)
        return None

    async def _time(self, person: Person, asked: Question, text: str) -> Reply | None:
        """A time (or a day and a time) that completes the days the request named."""
        said = text.strip().rstrip(".!")
        if not said or len(said.split()) > SHORT or not any(c.isdigit() for c in said):
            return None
        days, at = asked.data["when"], _AT.get(asked.language, "at")
        for when in (f"{days} {said}", f"{days} {at} {said}", said):  # the days first
            try:
                self._read(when, person)
            except ScheduleError as exc:
                if exc.reason == "ambiguous_hour":  # an answer, but which hour: ask again
                    return Reply(str(exc))
                continue
            return await self._local.complete(person, asked, when)
        return None

    async def _words(self, person: Person, asked: Question, text: str) -> Reply | None:
        """The words of the reminder, unless the message is a request of its own."""
        now, least = self._clock.now(), self._services.min_interval
        if understand(text, person.timezone, now, least) is not None:
            return None
        words = plain(_LEAD.sub("", text.strip()))
        if not says_something(words):
            return None
        return await self._local.complete(person, asked, asked.data["when"], words)

    def _read(self, when: str, person: Person) -> None:
        read_schedule(when, person.timezone, self._clock.now(), self._services.min_interval)
