"""A person's time zone set by name, an IANA zone or a place ("Moscow", "Питер"), and their
tasks moved with it so each keeps its wall-clock time."""

from __future__ import annotations

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
