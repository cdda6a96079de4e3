"""The words of the schedule language in each language people write in, as data: each language
pack's ``words.toml`` maps its words (or short phrases) under ``[schedule]`` to the canonical
English the reader understands. English comes first; other tables apply where their words
appear. Keys are lower case, matched against whole words only.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from assistant import locales
from assistant.locales import words


def table() -> Mapping[str, str]:
    """Every pack's schedule words, to canonical English."""
    return words.table("schedule")


def longest() -> int:
    """The most words a phrase of the table has."""
    return _longest(locales.current())


@cache
def _longest(packs: locales.Packs) -> int:  # once a set of packs
    return max((len(key.split()) for key in table()), default=1)


def joining() -> frozenset[str]:
    """Words of every language that join a schedule's parts but name nothing on their own."""
    return _joining(locales.current())


@cache
def _joining(packs: locales.Packs) -> frozenset[str]:  # once a set of packs
    return frozenset(words.listed("schedule_joining"))
