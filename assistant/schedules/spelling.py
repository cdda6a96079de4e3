"""Day names misspelt by one letter, read as the day they name: "wednsday", "по срдам"."""

from __future__ import annotations

from functools import cache

from assistant import locales
from assistant.schedules import languages, vocabulary


def spelled(word: str) -> str | None:
    """The day name a word misspells by one letter ("wednsday", "срдам"), else None; names
    shorter than six letters are never guessed at ("среди" is no "среду")."""
    if len(word) < 5 or word in languages.table() or vocabulary.weekday(word) is not None:
        return None
    return next((name for name in _day_names(locales.current()) if _one_off(word, name)), None)


@cache
def _day_names(packs: locales.Packs) -> tuple[str, ...]:  # once a set of packs
    english = [*vocabulary.DAY_NAMES, *(f"{name}s" for name in vocabulary.DAY_NAMES)]
    names = {name.lower() for name in english}
    names |= {key for key, value in languages.table().items() if value in names}
    return tuple(sorted(name for name in names if len(name) >= 6 and " " not in name))


def _one_off(word: str, name: str) -> bool:
    """Whether one letter added, dropped or changed makes ``word`` into ``name``."""
    if abs(len(word) - len(name)) > 1 or word == name:
        return False
    shorter, longer = sorted((word, name), key=len)
    start = next(
        (i for i, (a, b) in enumerate(zip(shorter, longer, strict=False)) if a != b), len(shorter)
    )
    if len(shorter) == len(longer):
        return shorter[start + 1 :] == longer[start + 1 :]
    return shorter[start:] == longer[start + 1 :]
