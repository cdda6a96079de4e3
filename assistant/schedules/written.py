"""Clock times as people write them, before the rewriting reads them: «в 16.00», «9.30»,
«на 6 утра», «на воскресенье»."""

from __future__ import annotations

import re

from assistant.locales import words
from assistant.schedules import vocabulary

_DOTTED = re.compile(r"(\d{1,2})\.(\d{2})")
_PARTS = ("am", "pm", "morning", "afternoon", "evening", "night", "tonight")


def dotted(tokens: list[str]) -> list[str]:
    """«в 16.00», «9.30» are clock times where no month could be (a day and a month need one of
    1 to 12); "1.25 hours" stays a span."""
    return [
        _clock_of(t) if at(tokens, i + 1) not in vocabulary.UNITS else t
        for i, t in enumerate(tokens)
    ]


def _clock_of(token: str) -> str:
    found = _DOTTED.fullmatch(token)
    if found is None:
        return token
    hour, minute = int(found[1]), int(found[2])
    return f"{hour}:{found[2]}" if hour <= 23 and (minute == 0 or 12 < minute <= 59) else token


def at_clocks(tokens: list[str]) -> list[str]:
    """«на 12:00», «на 6 утра», «на воскресенье» are ``at 12:00``, ``at 6 am``, ``sunday``: a
    word each pack lists (``clock_before``) means "at" only before a clock time, written or with
    its part of the day, or a day (where "at" goes)."""
    before = words.listed("clock_before")
    return [
        "at" if t in before and (_clock_at(tokens, i + 1) or _a_day(at(tokens, i + 1))) else t
        for i, t in enumerate(tokens)
    ]


def _a_day(word: str) -> bool:
    """Whether a word is one day: today, tomorrow, a weekday (not "day" or "every")."""
    return word in ("today", "tomorrow") or vocabulary.weekday(word) is not None


def at(tokens: list[str], index: int) -> str:
    """The token at ``index``, or "" past the end."""
    return tokens[index] if index < len(tokens) else ""


def _clock_at(tokens: list[str], start: int) -> bool:
    """Whether a clock time starts at ``tokens[start]``: ``12:00``, or an hour before am or pm."""
    said = tokens[start : start + 2]
    if said and re.fullmatch(r"\d{1,2}:\d{2}", said[0]):
        return True
    return len(said) == 2 and re.fullmatch(r"\d{1,2}", said[0]) is not None and said[1] in _PARTS
