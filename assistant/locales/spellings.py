"""Words as people type them, read as the words the packs know: each pack's short forms and
chat spellings (``[spellings]``: "tmrw", "2moro", "u", "завтро"), and a misspelling one edit
away from a known word ("remnid", "minuts").

A misspelling is guessed only for a word of five letters or more, never in its first letter
(«ключи» is no «включи») or its last (an ending is grammar: "deleted", "reminded", «напомнил»),
never for a number, a word the packs know, or a word one edit from a negation ("never" is no
"fever"): a changed meaning must never turn into an action. The look-up is an index of each
known word with one letter cut (by where it was cut), so a word is checked in time linear in
its length.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

from assistant.locales.packs import Packs, current
from assistant.locales.words import listed, table

SHORTEST = 5  # letters: a shorter word is never guessed at ("at" is no "it")


def short_forms() -> Mapping[str, str]:
    """Every pack's short forms and chat spellings, to the word they stand for."""
    return table("spellings")


def spelled(word: str) -> str:
    """``word`` (lower case) as the packs spell it: its short form's meaning, else itself."""
    found = short_forms().get(word)
    return found if isinstance(found, str) else word


class OneEdit:
    """Known words, each found from a word one letter added, dropped, changed or two letters
    swapped away; a word that two known words are as near to is left alone."""

    def __init__(self, known: Iterable[str], *, shortest: int = SHORTEST) -> None:
        self._known = frozenset(known)
        self._shortest = shortest
        self._cut: dict[tuple[str, int], str | None] = {}
        for name in sorted(w for w in self._known if len(w) >= shortest and w.isalpha()):
            self._add((name, -1), name)
            for at in range(1, len(name)):  # the first letter is never the mistyped one
                shorter = name[:at] + name[at + 1 :]
                self._add((shorter, at), name)
                self._add((shorter, -2), name)
        self._blocked = _near_negations()

    def _add(self, key: tuple[str, int], name: str) -> None:
        if key in self._cut and self._cut[key] != name:
            self._cut[key] = None  # two words as near: no guess
        else:
            self._cut[key] = name

    def __contains__(self, word: str) -> bool:
        return word in self._known

    def nearest(self, word: str) -> str | None:
        """The one known word ``word`` misspells, else None."""
        if len(word) < SHORTEST or not word.isalpha() or word in self._known:  # a typed word
            return None
        if word in self._blocked or word in _real_words():
            return None
        found = self._swapped(word) or self._edited(word)
        return found if found and found not in self._blocked else None

    def _edited(self, word: str) -> str | None:
        for at in range(1, len(word) - 1):  # never the last letter: an ending is grammar
            shorter = word[:at] + word[at + 1 :]  # ("deleted", "reminded", «напомнил»)
            found = self._cut.get((shorter, at)) or self._cut.get((shorter, -1))
            if found:
                return found  # a letter changed, or one added
        return self._cut.get((word, -2))  # a letter dropped

    def _swapped(self, word: str) -> str | None:
        for at in range(1, len(word) - 2):  # neither the first letter nor the last
            swapped = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
            if swapped != word and swapped in self._known and len(swapped) >= self._shortest:
                return swapped
        return None


def _real_words() -> frozenset[str]:
    """Words one edit from a known one that are words of their own ("remote", "parse"): each
    pack's ``not_misspelt``; never read as another."""
    return frozenset(listed("not_misspelt"))


def _near_negations() -> frozenset[str]:
    return _negations_of(current())


@cache
def _negations_of(packs: Packs) -> frozenset[str]:  # once a set of packs
    """The negations of every pack and every word one edit from one."""
    found: set[str] = set()
    for word in listed("negations"):
        found.add(word)
        for at in range(len(word) + 1):
            for letter in "abcdefghijklmnopqrstuvwxyzабвгдежзийклмнопрстуфхцчшщъыьэюя":
                found.add(word[:at] + letter + word[at:])
                found.add(word[:at] + letter + word[at + 1 :])
            found.add(word[:at] + word[at + 1 :])
    return frozenset(found)
