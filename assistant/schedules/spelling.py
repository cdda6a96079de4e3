"""Day names misspelt by one letter, read as the day they name: "wednsday", "по срдам"."""

from __future__ import annotations

from functools import cache

from assistant import locales
from assistant.schedules import languages, vocabulary


def spelled(word: str) -> str | None:
    """The day name a word misspells by one letter added, dropped or changed ("wednsday",
    "срдам"), else None; names shorter than six letters are never guessed at ("среди" is no
    "среду")."""
    if len(word) < 5 or word in languages.table() or vocabulary.weekday(word) is not None:
        return None
    index = _index(locales.current())
    for cut in range(len(word)):
        shorter = word[:cut] + word[cut + 1 :]
        if found := index.get((shorter, cut)) or index.get((shorter, -1)):
            return found  # one letter changed, or one added
    return index.get((word, -2))  # one letter dropped


@cache
def _index(packs: locales.Packs) -> dict[tuple[str, int], str]:  # once a set of packs
    """Each day name with one letter cut: by where (a letter changed), as the name itself (-1:
    a letter added to it), and with no place (-2: a letter dropped from it)."""
    index: dict[tuple[str, int], str] = {}
    for name in _day_names():
        index.setdefault((name, -1), name)
        for cut in range(len(name)):
            shorter = name[:cut] + name[cut + 1 :]
            index.setdefault((shorter, cut), name)
            index.setdefault((shorter, -2), name)
    return index


def _day_names() -> list[str]:
    english = [*vocabulary.DAY_NAMES, *(f"{name}s" for name in vocabulary.DAY_NAMES)]
    names = {name.lower() for name in english}
    names |= {key for key, value in languages.table().items() if value in names}
    return sorted(name for name in names if len(name) >= 6 and " " not in name)
