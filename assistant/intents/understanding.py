"""A message understood: the sentence that reads it whole, its slots checked by the schedule
language (a time, or days waiting for a time) and the table of places."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cache
from typing import Literal

from assistant import locales
from assistant.errors import ScheduleError
from assistant.intents.languages import fillers, matcher, names_language, subjects
from assistant.intents.matcher import MAX_TEXT, Check, Match
from assistant.intents.places import names_zone
from assistant.intents.reader import QUOTES, Reads, named, read_any_order
from assistant.intents.reasons import is_reason, splits, without_reason
from assistant.locales import words
from assistant.schedules import languages
from assistant.schedules.parse import read_schedule, read_span
from assistant.schedules.schedule import is_recurring
from assistant.schedules.words import may_be_schedule, schedule_words

Reading = Literal["once", "recurring", "no time", "ambiguous", "no"]
_DAY_PARTS = frozenset({"am", "pm", "morning", "afternoon", "evening", "night", "tonight"})
_RUN = 5  # words: the most a schedule left at either end of a reminder's words may hold
_MARKS = " ,.;:!?"
_BARE_CLOCK = re.compile(r"(?<![\d:])(\d{1,2}(?::\d{2})?)(?![\d:])(?!\s*[ap]\.?m)")  # "6", "6:30"
_WORDS = frozenset({"what", "todo"})  # the slots of a request's own words
ACTS = frozenset(
    {"remind", "remind_before", "remind_what", "alarm", "note", "cancel_task", "pause_task",
     "resume_task", "delete_note", "set_zone", "set_language"}
)  # fmt: skip  # they change something


def understand(text: str, zone: str, now: datetime, min_interval: timedelta) -> Match | None:
    """What ``text`` asks for, when one sentence reads all of it, or the reader of any word
    order accounts for every word; None leaves it to the model."""
    checks = _checks(zone, now, min_interval)
    if len(text) > MAX_TEXT:
        return _kept(_long(text, checks), text, zone, now, min_interval)
    found = _read(text, checks, zone, now, min_interval)
    if found is not None:
        return _reasonless(found)
    for request, reason in splits(text):
        if is_reason(reason) and not _inside(reason.split(), zone, now, min_interval):
            said = _read(request, checks, zone, now, min_interval)
            if said is not None and said.intent in ("alarm", "remind"):
                return said  # the request alone; its reason is no part of it
    return None


def _reasonless(found: Match) -> Match:
    """A reminder's words without the reason said after them."""
    if found.intent != "remind" or "what" not in found.slots:
        return found
    return replace(found, slots={**found.slots, "what": without_reason(found.slots["what"])})


def _read(
    text: str, checks: Mapping[str, Check], zone: str, now: datetime, min_interval: timedelta
) -> Match | None:
    """The one reading of ``text``: a sentence's, else the any-order reader's."""
    found = _kept(matcher().match(plain(text), checks), text, zone, now, min_interval)
    if found is None:  # no sentence reads it, or the one that does misreads it
        read = _any_order(plain(text), checks, lambda v: reads(v, zone, now, min_interval))
        found = _kept(read, text, zone, now, min_interval)
    return found


def _kept(
    found: Match | None, text: str, zone: str, now: datetime, min_interval: timedelta
) -> Match | None:
    """A reading kept when it asks for what it says, its words and schedule whole; else None."""
    if found is None or not _asked(found, text):
        return None
    found = replace(
        found,
        slots={k: _closed(plain(v), text) if k in _WORDS else v for k, v in found.slots.items()},
    )
    if "item" in found.slots and found.intent in ("cancel_task", "pause_task", "resume_task"):
        found = replace(found, slots={"item": named(found.intent, found.slots["item"])})
    if "what" in found.slots and "when" in found.slots:
        gathered = _gathered(found, text, zone, now, min_interval)
        if gathered is None:
            return None  # a schedule left in the words that joins no reading: a misread
        found = gathered
    return _repeated(found, text)


def _closed(said: str, text: str) -> str:
    """Words with the quote they open closed where the text closes it: a slot ends at its last
    word ('read "Dune')."""
    for opening, closing in (('"', '"'), ("«", "»"), ("“", "”")):
        if said + closing not in text:
            continue
        opened = (
            said.count(opening) % 2
            if opening == closing
            else said.count(opening) - said.count(closing)
        )
        if opened > 0:
            return said + closing
    return said


def _checks(zone: str, now: datetime, min_interval: timedelta) -> dict[str, Check]:
    """What each slot's words must be: a schedule read by the schedule language, a place, a
    reminder's words that hold no time and name no one else."""
    return {
        "when": lambda value: (
            not _unit(value, zone, now) and reads(value, zone, now, min_interval) != "no"
        ),
        "repeat": lambda value: (
            _ends_well(value) and reads(value, zone, now, min_interval) == "recurring"
        ),
        "place": _place,
        "what": lambda value: (
            says_something(value)
            and not _a_time(value, zone, now)
            and not _timely(value)
            and not _addressed(value)
            and value.casefold().split()[-1] not in words.listed("cut_before")
        ),
        "todo": lambda value: says_something(value) and _asks(value),
        "number": lambda value: value.lstrip("#№").isdecimal(),
        "language": names_language,
        "lead": lambda value: read_span(value, zone, now) is not None,
        "event": lambda value: says_something(value) and not _verbs(value) and _ends_well(value),
    }


def _asked(found: Match, text: str) -> bool:
    """Whether a reading asks for what it says: an action not in a question, a quote, the past
    or a condition; a reminder without an alarm's name; a zone a place names."""
    what = found.slots.get("what", "")
    outside = text.replace(what, " ").strip(QUOTES + _MARKS)  # its own words may say anything
    said = {w.norm for w in matcher().words(outside)}
    opens = set(what.casefold().split()[:1])  # "if i asked": a condition, not a reminder's words
    if found.intent in ACTS and (_questioned(text) or _not_asked(outside, said | opens)):
        return False
    if found.intent == "remind" and said & set(words.listed("reader.alarm.heads")):
        return False  # an alarm carries no words: "set an alarm for my roommate at 6am"
    return found.intent != "set_zone" or names_zone(found.slots["place"])


def _any_order(text: str, checks: Mapping[str, Check], read: Reads) -> Match | None:
    """The reader of any word order, its words held to the checks a sentence's would be."""
    found = read_any_order(text, matcher().words(text), read)
    if found is None or not all(checks[k](v) for k, v in found.slots.items() if k in checks):
        return None
    return found


def _long(text: str, checks: Mapping[str, Check]) -> Match | None:
    """A message longer than a sentence is read: a note, when its opening reads as one and its
    words run on to the end ("note that …" with a long text after it); else None."""
    head = (text[:MAX_TEXT].rsplit(None, 1) or [""])[0]
    found = matcher().match(head, checks) if head.strip() else None
    if found is None or found.intent != "note" or not head.endswith(found.slots["what"]):
        return None
    start = len(head) - len(found.slots["what"])
    return replace(found, slots={**found.slots, "what": text[start:].strip()})


def _gathered(
    found: Match, text: str, zone: str, now: datetime, min_interval: timedelta
) -> Match | None:
    """The schedule found anywhere: a day left at either end of a reminder's words joins a
    time that has none, or a time a day that has none ("call Bob tomorrow" + "at 3"), in the
    order the message said them; never a day the words own ("prepare for monday"): that, and
    any other day or time in the words, is a misread (None)."""
    what, when = found.slots["what"], found.slots["when"]
    said = [w.strip(_MARKS) for w in what.split()]
    alone = reads(when, zone, now, min_interval)
    for size in range(min(_RUN, len(said) - 1), 0, -1):
        for run, rest, at in _ends_of(said, size):
            part = " ".join(run)
            if _owned(said, at) or not _names_time(part, zone, now, min_interval):
                continue
            if not says_something(" ".join(rest)) or not _completes(part, alone, zone, now):
                return None
            joined = f"{part} {when}" if text.find(what) < text.find(when) else f"{when} {part}"
            if reads(joined, zone, now, min_interval) != alone.replace("no time", "once"):
                return None
            return replace(found, slots={**found.slots, "what": " ".join(rest), "when": joined})
    return None if _inside(said, zone, now, min_interval) else found


def _ends_of(said: list[str], size: int) -> tuple[tuple[list[str], list[str], int], ...]:
    """The last and the first ``size`` words, each with the rest and where it starts."""
    return (said[-size:], said[:-size], len(said) - size), (said[:size], said[size:], 0)


def _completes(part: str, alone: str, zone: str, now: datetime) -> bool:
    """Whether a day completes a time that names none, or a time a day that has none: never
    a second day or a second time."""
    adds = reads(part, zone, now, timedelta(0))
    return (alone == "no time" and adds in ("once", "ambiguous")) or (
        alone in ("once", "ambiguous") and adds == "no time"
    )


def _owned(said: list[str], at: int) -> bool:
    """Whether a day at ``at`` is the words' own: after, or with, a word that owns it ("for
    monday", «на день»)."""
    owning = words.listed("days_owned_after")
    return said[at].casefold() in owning or (at > 0 and said[at - 1].casefold() in owning)


def _inside(said: list[str], zone: str, now: datetime, min_interval: timedelta) -> bool:
    """Whether a day or a time stands inside a reminder's words ("call at 10 mom", "prepare
    for monday"): a misread, left alone rather than acted on at a time it may not mean."""
    return any(
        _names_time(" ".join(said[start : start + size]), zone, now, min_interval)
        for start in range(len(said))
        for size in range(1, min(_RUN, len(said) - start) + 1)
    )


def _names_time(part: str, zone: str, now: datetime, min_interval: timedelta) -> bool:
    """Whether words name a time or a day: not a unit alone («день рождения»), not words of
    three letters alone ("the sun", "sat down")."""
    if not any(len(w) > 3 or w[:1].isdigit() for w in part.split()):
        return False
    reading = reads(part, zone, now, min_interval)
    return reading != "no" and not (reading == "no time" and _unit(part, zone, now))


def _unit(part: str, zone: str, now: datetime) -> bool:
    """A unit of time alone names no day ("день рождения" is a birthday, not a day)."""
    return " " not in part and read_span(part, zone, now) is not None


def _repeated(found: Match, text: str) -> Match:
    """«напоминай через день»: after a verb that asks for a repeat, the pack's repeating
    meaning of the schedule's words (every other day, not in a day)."""
    when = found.slots.get("when", "")
    meaning = words.table("schedule_repeating").get(when.casefold())
    verbs = set(words.listed("repeating_verbs"))
    if meaning is None or not verbs.intersection(text.casefold().split()):
        return found
    return replace(found, slots={**found.slots, "when": meaning})


def reads(value: str, zone: str, now: datetime, min_interval: timedelta) -> Reading:
    """How ``value`` reads as a schedule: once, recurring, days without a time, or not."""
    if not may_be_schedule(value):
        return "no"
    try:
        parsed = read_schedule(value, zone, now, min_interval)
    except ScheduleError as exc:
        if exc.reason == "ambiguous_hour":
            return "ambiguous"
        return "no time" if missing_time(exc) else "no"
    return "recurring" if is_recurring(parsed.schedule) else "once"


def alarm_time(when: str, zone: str, now: datetime) -> str:
    """An alarm's schedule, its bare hour the morning's ("wake me up tomorrow at 6" is 06:00)."""
    # Only an hour a day makes ambiguous, or one read as the afternoon's: a part of the day, a
    # 24-hour time or noon says which already.
    morning = _BARE_CLOCK.sub(r"\1 am", when, count=1)
    if reads(morning, zone, now, timedelta(0)) != "once":
        return when
    try:
        parsed = read_schedule(when, zone, now, timedelta(0))
    except ScheduleError as exc:
        return morning if exc.reason == "ambiguous_hour" else when
    return morning if parsed.read_as else when


def missing_time(error: ScheduleError) -> bool:
    """Whether the schedule named days but no time of day."""
    return error.reason == "no_time"


def _questioned(text: str) -> bool:
    """A question that is not a polite request: "remember that time we...?" acts on nothing."""
    return text.rstrip().endswith("?") and not _polite().match(text.strip())


def _not_asked(text: str, said: set[str]) -> bool:
    """A message that asks nothing of its owner whatever its words (``said``): a quote, a
    forward ("> …"), the past or a condition (each pack's ``not_requests``: "if", «если»)."""
    if any(mark in text for mark in QUOTES) or text.lstrip().startswith(">"):
        return True
    return bool(said & set(words.listed("not_requests")))


def _addressed(value: str) -> bool:
    """Whether a reminder's words open with someone else to remind ("him", «жене забрать»):
    a pronoun the packs list, or a word that is neither a verb nor a connector before one."""
    said = value.casefold().split()
    if not said or said[0] in words.listed("addressees"):
        return bool(said)
    language = locales.language_of(value)
    endings = tuple(words.of(language, "verb_endings") or ())
    joins = (words.of(language, "reader") or {}).get("connectors", [])
    if not endings or said[0].endswith(endings) or said[0] in joins:
        return False  # a language whose verbs the pack cannot tell, or words opening with one
    return len(said) > 1 and (said[1].endswith(endings) or said[1] in joins)


def _polite() -> re.Pattern[str]:
    """A polite opening of a request ("could you…", "пожалуйста, можешь…"), from the packs."""
    return _polite_in(locales.current())


@cache
def _polite_in(packs: locales.Packs) -> re.Pattern[str]:  # once a set of packs
    before, asks = words.pattern("guards.polite"), words.pattern("guards.polite_asks")
    return re.compile(rf"(?:(?:{before}),? )?(?:{asks})\b", re.IGNORECASE)


def says_something(value: str) -> bool:
    """Words of a reminder or a note that hold more than fillers ("me", "for", "to") and
    numbers ("30" of a time cut in two)."""
    empty = fillers()
    words = re.findall(r"[^\W\d_]+", value.casefold())
    return any(word not in empty for word in words)


def _asks(value: str) -> bool:
    """Whether words after a schedule ask for something ("water the plants") rather than
    state a fact ("the dog barks", "у меня бассейн"): a statement starts with its subject."""
    first = re.findall(r"[^\W_]+(?:'[^\W_]+)?", value.casefold())[:1]
    word = first[0] if first else ""
    if not word.isalpha() or word in subjects() or word in fillers():
        return False
    if word in schedule_words() and word not in languages.joining():
        return False  # a schedule's own word ("every monday at 9" + "утра у нас…"): cut short
    return not _stated(value)


def _stated(value: str) -> bool:
    """Whether the first or second word is a verb that states ("начинается с кофе", "кот
    ест"), by the endings of such verbs each pack lists under ``statement_endings``."""
    said = value.casefold().split()
    return len(said) > 1 and _ends_in(said[:2], "statement_endings")


def _timely(value: str) -> bool:
    """Whether a reminder's words open with a part of the day («утра», "evening"): the
    schedule before them was cut short."""
    first = value.casefold().split()[:1]
    return bool(first) and languages.table().get(first[0], first[0]) in _DAY_PARTS


def _verbs(value: str) -> bool:
    """Whether an event's words hold a verb of the request ("встречи взять"), by the
    infinitive endings each language pack lists."""
    return _ends_in(value.casefold().split(), "verb_endings")


def _ends_in(said: list[str], key: str) -> bool:
    """Whether a word ends as one of the endings the packs list under ``key``."""
    endings = words.listed(key)
    return bool(endings) and any(word.endswith(endings) for word in said)


def _ends_well(value: str) -> bool:
    """A schedule that does not end on a word the reader would pass over ("at 7 the")."""
    last = value.casefold().split()[-1:]
    return bool(last) and last[0] not in subjects() and last[0] not in fillers()


def _a_time(value: str, zone: str, now: datetime) -> bool:
    """Whether a reminder's words are only a time ("at 9am"): the request gave no words."""
    return reads(value, zone, now, timedelta(0)) in ("once", "recurring")


def _place(value: str) -> bool:
    """A known place or zone, or a name that looks like one (said unknown rather than
    misread)."""
    return names_zone(value) or all(word[:1].isupper() for word in value.split())


def plain(said: str) -> str:
    """The words without a closing "please", "thx" or "пжлст" (each pack's ``tails``) and
    their punctuation."""
    text, tails = said.rstrip(_MARKS), words.listed("tails")
    while cut := next((t for t in tails if _ends_with(text.casefold(), t)), None):
        text = text[: len(text) - len(cut)].rstrip(_MARKS)
    return text or said


def _ends_with(text: str, tail: str) -> bool:
    return text == tail or (text.endswith(tail) and text[-len(tail) - 1] in _MARKS)
