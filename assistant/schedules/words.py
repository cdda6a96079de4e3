"""Every word the schedule language reads: for a cheap first look at text before reading it,
and to read a word as typed ("tmrw", "wednsday", "завтро") as the one it stands for."""

from __future__ import annotations

import re
from functools import cache

from assistant import locales
from assistant.locales import words
from assistant.locales.spellings import OneEdit, short_forms, spelled
from assistant.schedules import languages, vocabulary

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
    found = set(vocabulary.KNOWN) | set(vocabulary.NUMBER_WORDS) | _REWRITTEN
    found |= set(words.listed("ordinal_endings")) | set(words.listed("day_ordinal_endings"))
    found |= set(words.listed("clock_before"))
    for key, value in languages.table().items():
        found.update(_WORD.findall(key))
        found.update(_WORD.findall(value))
    return frozenset(found)


def may_be_schedule(text: str) -> bool:
    """False when ``text`` holds a word no schedule has, or only joining words and no digit:
    then reading it cannot succeed."""
    folded = text.casefold().replace("ё", "е")
    short = spelled_forms()
    folded = " ".join(short.get(word, word) for word in folded.split())  # "2moro"
    found, known = _WORD.findall(folded), schedule_words()
    if not any(c.isdigit() for c in folded) and all(
        word in _JOINING or word in languages.joining() for word in found
    ):
        return False
    return all(word in known or read_as(word) != word for word in found)


def spelled_forms() -> dict[str, str]:
    """Short forms that hold a digit ("2moro", "b4"): read whole, before words are cut out."""
    return _with_digits(locales.current())


@cache
def _with_digits(packs: locales.Packs) -> dict[str, str]:  # once a set of packs
    return {k: str(v) for k, v in short_forms().items() if any(c.isdigit() for c in k)}


def read_as(word: str) -> str:
    """A word as the schedule reads it: "tmrw" as tomorrow, "wednsday" as wednesday."""
    # A short form's meaning, else the known word it misspells by one letter; a name of five
    # letters is never guessed at ("среди" is no "среду").
    if (short := spelled(word)) != word:
        return short
    if word in languages.table() or vocabulary.weekday(word) is not None:
        return word
    return _near(locales.current()).nearest(word) or word


@cache
def _near(packs: locales.Packs) -> OneEdit:  # once a set of packs
    return OneEdit(schedule_words(), shortest=6)
