"""Places people name, in English and Russian, and the IANA zone each is in.

The table (``data/places.tsv``) holds the 1,000 largest cities, every city an IANA zone is
named after and the countries, from GeoNames; ``docs/places_from_geonames.py`` builds it. A
name is looked up as written and then in the forms its language pack's ``place_cases`` give
(``в Москве`` → Москва, ``в Казани`` → Казань, ``в Германии`` → Германия).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from zoneinfo import available_timezones

from timezonefinder import TimezoneFinder

from assistant.clock import zone_or_none
from assistant.locales import words
from assistant.schedules.offsets import is_abbreviation, offset_of

_ARTICLES = ("the ",)


@cache
def _table() -> dict[str, str]:
    text = (resources.files("assistant.intents") / "data" / "places.tsv").read_text("utf-8")
    lines = (line for line in text.splitlines() if line and line[0] != "#")
    return dict(line.split("\t", 1) for line in lines)


def zone_of(place: str) -> str | None:
    """The IANA zone of a city or country named in English or Russian, or of an IANA name
    ("Europe/London"), or None."""
    if "/" in place:
        written = place.strip(" .,!?")
        zone = zone_or_none(written) or zone_or_none(_zones().get(written.casefold(), ""))
        return zone.key if zone is not None else None
    name = " ".join(place.casefold().replace("ё", "е").replace("’", "'").strip(" .,!?").split())
    table = _table()
    if name in table:
        return table[name]
    for article in _ARTICLES:
        name = name.removeprefix(article)
    for ending, nominatives in _cases():
        if name.endswith(ending):
            stem = name[: -len(ending)]
            for nominative in nominatives:
                if (found := table.get(stem + nominative)) is not None:
                    return found
    return None


@cache
def _zones() -> dict[str, str]:
    """The IANA names as typed in any case ("america/chicago" is America/Chicago)."""
    return {name.casefold(): name for name in available_timezones()}


def names_zone(said: str) -> bool:
    """Whether words name a zone to set: a place, an IANA name, an offset ("UTC+3"), or an
    abbreviation (EST), which is answered with a question for the city."""
    return zone_of(said) is not None or offset_of(said) is not None or is_abbreviation(said)


def _cases() -> list[tuple[str, list[str]]]:
    """The endings a place's name takes in a sentence ("в Москве") and the ones it may come
    from, longest first: each pack's ``place_cases``."""
    cases = words.table("place_cases")
    return sorted(cases.items(), key=lambda case: len(case[0]), reverse=True)


def zone_at(latitude: float, longitude: float) -> str | None:
    """The IANA zone of a point on the earth (a shared location), offline; None at sea or for
    coordinates that are not on the earth."""
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        return None
    zone: str | None = _finder().timezone_at(lat=latitude, lng=longitude)
    return zone


@cache
def _finder() -> TimezoneFinder:
    return TimezoneFinder(in_memory=False)


def count() -> int:
    """How many names the table knows."""
    return len(_table())
