"""A person's time zone set by name, an IANA zone or a place ("Moscow", "Питер"), and their
tasks moved with it so each keeps its wall-clock time."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from assistant.agent.front.buttons import Reply
from assistant.agent.person import Person
from assistant.clock import Clock, zone_or_none
from assistant.intents import zone_of
from assistant.locales import dates, ntr, tr
from assistant.memory.people import People
from assistant.tasks import TaskStore


async def set_zone(
    people: People,
    tasks: TaskStore | None,
    clock: Clock,
    person: Person,
    name: str,
    *,
    language: str = "en",
) -> Reply:
    """Set the zone ``name`` names; the person's tasks in the old zone keep their times."""
    wanted = name.strip()
    if zone_or_none(wanted) is None:
        wanted = zone_of(wanted) or wanted  # a city or a country, in either language
    zone = await people.set_timezone(person.user_id, wanted)  # an unknown name: a clear error
    moved = 0
    if tasks is not None and zone != person.timezone:
        moved = await tasks.rezone(person.user_id, person.timezone, zone, clock.now())
    local = clock.now().astimezone(ZoneInfo(zone))
    text = tr(
        language,
        "Timezone set to {zone}; it is {clock} there now.",
        zone=zone,
        clock=dates.clock(local, language),
    )
    if moved:
        text += " " + ntr(
            language,
            "{n} task moved to it, at the same time of day.",
            "{n} tasks moved to it, each at the same time of day.",
            moved,
        )
    return Reply(text)


def time_here(now: datetime, zone: str, language: str) -> str:
    """The time and day in the person's zone."""
    local = now.astimezone(ZoneInfo(zone))
    return tr(
        language,
        "It is {clock} on {day} ({zone}).",
        clock=dates.clock(local, language),
        day=dates.day(local, language),
        zone=zone,
    )


def time_in(now: datetime, mine: str, place: str, language: str) -> str:
    """The time in a place, and how far it is from the person's own."""
    zone = zone_of(place)
    if zone is None:
        return tr(
            language,
            "I do not know where “{place}” is. Name a city or a country, e.g. “what time "
            "is it in Tokyo”.",
            place=place,
        )
    there, here = now.astimezone(ZoneInfo(zone)), now.astimezone(ZoneInfo(mine))
    gap = _offset_minutes(there) - _offset_minutes(here)
    return tr(
        language,
        "In {place} it is {clock} on {day} ({zone}); {offset}.",
        place=place,
        clock=dates.clock(there, language),
        day=dates.day(there, language),
        zone=zone,
        offset=dates.offset(gap, language),
    )


def _offset_minutes(moment: datetime) -> int:
    return round((moment.utcoffset() or timedelta()).total_seconds() / 60)
