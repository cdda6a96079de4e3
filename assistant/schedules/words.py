"""Every word the schedule language reads, for a cheap first look at text before reading it."""

from __future__ import annotations

import re
from functools import cache

from assistant.schedules import vocabulary
from assistant.schedules.languages import TABLES
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


@cache
def schedule_words() -> frozenset[str]:
    """The words schedule text may hold, in every language table."""
    found = set(KNOWN) | set(vocabulary.NUMBER_WORDS) | _REWRITTEN
    for table in TABLES:
        for key, value in table.items():
            found.update(_WORD.findall(key))
            found.update(_WORD.findall(value))
    return frozenset(found)


def may_be_schedule(text: str) -> bool:
    """False when ``text`` holds a word no schedule has: then reading it cannot succeed."""
    known = schedule_words()
    return all(word in known for word in _WORD.findall(text.casefold().replace("ё", "е")))
