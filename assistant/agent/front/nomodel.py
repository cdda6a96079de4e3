"""What a person is told when only a model could answer and none is set up: the owner once a
day that there is none and where the rest is said (``assistant doctor``), everyone else (and
the owner the rest of that day) one line with no setup in it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from zoneinfo import ZoneInfo

from assistant.clock import Clock, zone_or_none
from assistant.llm.types import Payer
from assistant.locales import ENGLISH, spoken, tr

Languages = Callable[[int], Awaitable[str]]


class NoModel:
    """The line for a request that needs the model there is not."""

    def __init__(
        self, reason: str, owner: int, clock: Clock, languages: Languages | None = None
    ) -> None:
        self.reason = reason  # why there is none, with how to set one up: the operator's words
        self._owner = owner
        self._clock = clock
        self._languages = languages  # a person's kept language, for a turn that has none
        self._told_on: date | None = None  # the owner's day it was explained (in memory only)

    def line(self, user_id: int, language: str, zone: str) -> str:
        """The owner's explanation, the first time on their day; else the plain line."""
        if user_id == self._owner and self._told_on != (today := self._today(zone)):
            self._told_on = today
            return tr(
                language,
                "I have no language model, so I do only what works without one: reminders, "
                "notes, your lists, the time and /help; `assistant doctor` says how to set one "
                "up.",
            )
        return tr(language, "That needs a language model, and none is set up here.")

    def explained(self, text: str, language: str = "") -> str:
        """What works with no model, and how to set one up: for the command line, whose
        person is the operator (else the line, once a day, points to ``assistant doctor``)."""
        return tr(
            spoken(language, text),
            "I have no language model, so I understood only what I can do without one: "
            "reminders (“remind me in 10 minutes to stretch”, “every weekday at 6pm water the "
            "plants”), notes (“note that the locker code is 4312”), your lists (“what are my "
            "reminders”, “show my notes”), the time (“what time is it in Tokyo”) and the slash "
            "commands (/help). For anything else, set up a model: {why}",
            why=self.reason,
        )

    async def said(self, payer: Payer | None) -> str:
        """The line for a model call that could not be made, in its person's language."""
        if payer is None:
            return tr(ENGLISH, "That needs a language model, and none is set up here.")
        language = await self._languages(payer.user_id) if self._languages else ""
        return self.line(payer.user_id, language or ENGLISH, payer.zone)

    def _today(self, zone: str) -> date:
        return self._clock.now().astimezone(zone_or_none(zone) or ZoneInfo("UTC")).date()
