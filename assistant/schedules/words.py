"""Every word the schedule language reads, for a cheap first look at text before reading it."""

from __future__ import annotations

import re
from functools import cache

from assistant import locales
from assistant.schedules import languages, spelling, vocabulary
from assistant.schedules.parsed import KNOWN

# Words the rewriting takes that are in no table: parts of the day, clock phrases.
_REWRITTEN = {
    "morning", "afternoon", "evening", "night", "tonight", "from", "now", "quarter", "half",
    "past", "to", "oclock", "o", "clock", "a", "m", "p", "t", "this", "few", "several",
    "other", "second", "except", "but", "weekly", "times", "until", "till", "starting",
    "for", "during", "work", "working", "hours", "business", "christmas", "eve", "new",
    "years", "year's", "day", "first", "third", "fourth", "fifth", "last", "st", "nd", "rd",
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
# Words that join a schedule's parts but name no time, day or count on their own.
_JOINING = frozenset(
    {"in", "at", "on", "the", "of", "and", "every", "each", "next", "this", "a", "an", "for",
     "until", "till", "from", "starting", "to", "st", "nd", "rd", "th"}
)  # fmt: skip


def schedule_words() -> frozenset[str]:
    """The words schedule text may hold, in every language table."""
    return _schedule_words(locales.current())


@cache
def _schedule_words(packs: locales.Packs) -> frozenset[str]:  # once a set of packs
    found = set(KNOWN) | set(vocabulary.NUMBER_WORDS) | _REWRITTEN
    for key, value in languages.table().items():
        found.update(_WORD.findall(key))
        found.update(_WORD.findall(value))
    return frozenset(found)


def may_be_schedule(text: str) -> bool:
    """False when ``text`` holds a word no schedule has, or only joining words and no digit:
    then reading it cannot succeed."""
    folded = text.casefold().replace("ё", "е")
    found, known = _WORD.findall(folded), schedule_words()
    if not any(c.isdigit() for c in folded) and all(
        word in _JOINING or word in languages.joining() for word in found
    ):
        return False
    return all(word in known or spelling.spelled(word) for word in found)
