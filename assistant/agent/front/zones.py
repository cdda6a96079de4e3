"""A person's time zone set by name, an IANA zone, a place ("Moscow", "Питер") or an offset
("UTC+3"), and their tasks moved with it so each keeps its wall-clock time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from assistant.agent.front.buttons import Reply
from assistant.agent.person import Person
from assistant.clock import Clock, zone_or_none
from assistant.intents import zone_of
from assistant.locales import dates, ntr, tr
from assistant.memory.people import People
from assistant.schedules.offsets import Offset, is_abbreviation, offset_of
from assistant.tasks import TaskStore

# A city whose zone keeps each offset of a part of an hour, to name instead (no fixed zone
# keeps one); minutes east of UTC.
PART_HOUR_CITIES = {
    -210: "St Johns", 210: "Tehran", 270: "Kabul", 330: "Kolkata", 345: "Kathmandu",
    390: "Yangon", 570: "Darwin", 630: "Adelaide",
}  # fmt: skip
SHOWN_AT_MOST = 40  # characters of a name that is no zone, said back


@dataclass(frozen=True)
class Named:
    """The zone a name names (with its offset when it was one), or why it names none."""

    zone: str = ""
    offset: Offset | None = None
    refusal: str = ""


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
    found = named(name, language)
    if found.refusal:
        return Reply(found.refusal)
    zone = await people.set_timezone(person.user_id, found.zone)
    moved = 0
    if tasks is not None and zone != person.timezone:
        moved = await tasks.rezone(person.user_id, person.timezone, zone, clock.now())
    text = _set(found, clock.now().astimezone(ZoneInfo(zone)), language)
    if moved:
        text += " " + ntr(
            language,
            "{n} task moved to it, at the same time of day.",
            "{n} tasks moved to it, each at the same time of day.",
            moved,
        )
    return Reply(text)


def named(name: str, language: str) -> Named:
    """The zone ``name`` names: an offset, an IANA name or a place in either language; an
    abbreviation (EST) or anything else names none, said in ``language``."""
    wanted = name.strip()
    if (offset := offset_of(wanted)) is not None:
        return _fixed(offset, language)
    if is_abbreviation(wanted):
        return Named(refusal=_abbreviation(wanted, language))
    zone = zone_or_none(wanted)
    found = zone.key if zone is not None else zone_of(wanted)  # a city or a country
    if found is None:
        return Named(refusal=_unknown(wanted, language))
    return Named(found)


def _fixed(offset: Offset, language: str) -> Named:
    """IANA's fixed zone of a whole-hour offset; a part of an hour has none, so a city."""
    if offset.zone is not None:
        return Named(offset.zone, offset if offset.minutes else None)
    if offset.minutes % 60:
        city = PART_HOUR_CITIES.get(offset.minutes, "Berlin")  # the form, where no city has it
        return Named(
            refusal=tr(
                language,
                "{offset} is not a whole number of hours, and a fixed offset can only be "
                "one; tell me your city instead, e.g. /tz {city}.",
                offset=offset.label,
                city=city,
            )
        )
    return Named(
        refusal=tr(
            language,
            "No place is {offset}: offsets run from UTC-12 to UTC+14.",
            offset=offset.label,
        )
    )


def _abbreviation(name: str, language: str) -> str:
    return tr(
        language,
        "{name} is an abbreviation, not a time zone; tell me your city, e.g. /tz New York.",
        name=name,
    )


def _unknown(name: str, language: str) -> str:
    shown = name if len(name) <= SHOWN_AT_MOST else name[: SHOWN_AT_MOST - 1] + "…"
    return tr(
        language,
        "“{name}” is not a timezone I know; name a city (/tz Berlin), an IANA zone "
        "(/tz Europe/Berlin) or an offset (/tz UTC+3).",
        name=shown,
    )


def _set(found: Named, local: datetime, language: str) -> str:
    """What the person is told of their new zone; a fixed offset says that it is one."""
    if found.offset is None:
        return tr(
            language,
            "Timezone set to {zone}; it is {clock} there now.",
            zone=found.zone,
            clock=dates.clock(local, language),
        )
    return tr(
        language,
        "Timezone set to {offset}, a fixed offset with no daylight saving ({zone} in the IANA "
        "names); it is {clock} there now.",
        offset=found.offset.label,
        zone=found.zone,
        clock=dates.clock(local, language),
    )


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
    """The time in a place (or at an offset, "UTC+3"), and how far it is from the person's own."""
    offset = offset_of(place)
    zone = zone_of(place) or (offset.zone if offset is not None else None)
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
