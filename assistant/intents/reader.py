"""A second way to read a request, in any word order, when no sentence reads it whole.

Each pack names, for a few intents, the words that make the request (``[reader.<intent>]``:
its ``heads``, one of which must be there, and the words ``around`` them) and the courtesy
that may stand anywhere. The request is the run of those words around a head; what is left is
the one schedule (read by the schedule language, never guessed) and the one run of the
request's own words. A message is read only when every word is accounted for that way and
exactly one intent reads it; a negation, a quote or a second run of words leaves it alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assistant.intents.languages import names_language
from assistant.intents.matcher import Match
from assistant.intents.places import names_zone, zone_of
from assistant.intents.words import Word, glued
from assistant.locales import language_of, words

# Intents read this way: those whose words are few and whose mistakes are one press from undone.
INTENTS = ("remind", "alarm", "cancel_task", "pause_task", "resume_task", "list_tasks",
           "list_notes", "usage", "set_zone", "time_here", "time_in", "set_language")  # fmt: skip
_TIMED = frozenset({"remind", "alarm"})
_NAMED = frozenset({"cancel_task", "pause_task", "resume_task"})
_VALUED = {"set_zone": "place", "time_in": "place", "set_language": "language"}  # checked words
_SLOTTED = _NAMED | frozenset(_VALUED)  # intents that name something: a task, a place, a language
_LONGEST_SCHEDULE = 12  # words
_MARKS = " ,.;:!?"
QUOTES = '"«»“”„'  # a quote: someone's words, not a request (an apostrophe is no quote)
Reads = Callable[[str], str]  # schedule text -> "once", "recurring", "no time", "ambiguous", "no"


@dataclass(frozen=True)
class _Message:
    """The message being read: its text, its words as matched (and their norms), its
    language, and how schedules read."""

    text: str
    said: list[Word]
    norms: list[str]
    language: str
    reads: Reads
    joined: list[bool]  # each word and the next written as one

    def span(self, first: int, last: int) -> str:
        return self.text[self.said[first].start : self.said[last].end]

    def whole(self, run: list[int]) -> bool:
        """Whether a run of words ends where the text's pieces end, not inside "12:15am"."""
        before = run[0] > 0 and self.joined[run[0] - 1]
        return not before and not (run[-1] < len(self.joined) and self.joined[run[-1]])


def read_any_order(text: str, said: list[Word], reads: Reads) -> Match | None:
    """The one intent the message's words read as in any order, with its slots; else None."""
    norms = [w.norm for w in said]
    if not said or any(c in text for c in QUOTES) or set(norms) & _negations():
        return None
    message = _Message(text, said, norms, language_of(text), reads, glued(text, said))
    found = [m for intent in INTENTS if (m := _fits(intent, message)) is not None]
    return found[0] if len(found) == 1 else None


def _fits(intent: str, message: _Message) -> Match | None:
    around = _around(intent)
    norms, language = message.norms, message.language
    asked = _asking(intent, norms, around)
    runs = _runs([i for i in range(len(norms)) if i not in asked])
    if not asked or not all(message.whole(run) for run in runs):
        return None
    if intent in _TIMED:
        return _timed(intent, message, runs, language, max(asked))
    if not runs:
        return None if intent in _SLOTTED else Match(intent, language, {})
    if len(runs) != 1 or intent not in _SLOTTED:
        return None
    named = _words(message, _trimmed(runs[0], norms, around))
    slot = _VALUED.get(intent, "item")
    if not named or (slot != "item" and not _known(intent, slot, named)):
        return None
    return Match(intent, language, {slot: named})


def _asking(intent: str, norms: list[str], around: set[str]) -> set[int]:
    """The words that ask for ``intent``: a head's run, with one of the words it needs."""
    heads = set(words.listed(f"reader.{intent}.heads"))
    needs = set(words.listed(f"reader.{intent}.needs"))
    # a task's kind is a request word wherever it stands ("scrap the laundry reminder")
    asked = _request(norms, heads | needs if intent in _NAMED else heads, around)
    said = {norms[i] for i in asked}
    return asked if said & heads and (not needs or needs & said) else set()


def named(intent: str, item: str) -> str:
    """A task's naming words without the request's own words at either end ("my vitamins
    reminder for now" names "vitamins"); the words as they were when nothing else is left."""
    around = _around(intent)
    said = item.split()
    while said and said[0].casefold().strip(_MARKS) in around:
        said = said[1:]
    while said and said[-1].casefold().strip(_MARKS) in around:
        said = said[:-1]
    return " ".join(said) or item


def _around(intent: str) -> set[str]:
    """The words a request for ``intent`` may be made of: its heads, the words around them and
    the courtesy anywhere."""
    heads = set(words.listed(f"reader.{intent}.heads"))
    return heads | set(words.listed(f"reader.{intent}.around")) | _courtesy()


def _known(intent: str, slot: str, value: str) -> bool:
    """A place the table knows (not one that only looks like one; a zone to set may be an
    offset or an abbreviation too), or a language's name."""
    if slot == "place":
        return names_zone(value) if intent == "set_zone" else zone_of(value) is not None
    return names_language(value)


def _request(norms: list[str], heads: set[str], around: set[str]) -> set[int]:
    """The words of the request: each head and the run of request words it stands in."""
    asked: set[int] = set()
    for at, norm in enumerate(norms):
        if norm not in heads:
            continue
        left, right = at, at
        while left > 0 and norms[left - 1] in around:
            left -= 1
        while right + 1 < len(norms) and norms[right + 1] in around:
            right += 1
        asked.update(range(left, right + 1))
    return asked


def _runs(indexes: list[int]) -> list[list[int]]:
    """Consecutive indexes, grouped."""
    runs: list[list[int]] = []
    for index in indexes:
        if runs and runs[-1][-1] + 1 == index:
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def _timed(
    intent: str, message: _Message, runs: list[list[int]], language: str, asked_end: int
) -> Match | None:
    """A reminder or an alarm: one schedule at either end of a run, and at most one run of
    words besides it (none for an alarm)."""
    for number, run in enumerate(runs):
        for size in range(min(len(run), _LONGEST_SCHEDULE), 0, -1):
            for part, left in ((run[:size], run[size:]), (run[-size:], run[:-size])):
                when = message.span(part[0], part[-1])
                if not message.whole(part) or message.reads(when) == "no":
                    continue
                others = [r for r in (*runs[:number], left, *runs[number + 1 :]) if r]
                return _with_words(intent, message, when, others, language, asked_end=asked_end)
    return None


def _with_words(
    intent: str,
    message: _Message,
    when: str,
    others: list[list[int]],
    language: str,
    *,
    asked_end: int,
) -> Match | None:
    if not others:
        return Match("alarm" if intent == "alarm" else "remind_what", language, {"when": when})
    if intent == "alarm" or len(others) > 1 or others[0][0] < asked_end:
        return None  # a reminder's words follow its request ("i told him to remind me…")
    what = _words(message, others[0])
    if not what:  # only a connector ("set me a reminder for monday at noon")
        return Match("remind_what", language, {"when": when})
    return Match("remind", language, {"when": when, "what": what})


def _words(message: _Message, run: list[int]) -> str:
    """A run's own words, without the connector that opens it ("to", «про»)."""
    connectors = set(words.listed("reader.connectors"))
    while run and message.norms[run[0]] in connectors:
        run = run[1:]
    return message.span(run[0], run[-1]) if run else ""


def _trimmed(run: list[int], norms: list[str], around: set[str]) -> list[int]:
    """A task's naming words without the request's own words at either end ("поставь
    напоминалку про витамины" names «витамины»)."""
    while run and norms[run[0]] in around:
        run = run[1:]
    while run and norms[run[-1]] in around:
        run = run[:-1]
    return run


def _courtesy() -> set[str]:
    return set(words.listed("reader.courtesy"))


def _negations() -> set[str]:
    return set(words.listed("negations"))
