"""A message as words: lower case, ``ё`` as ``е``, apostrophes and punctuation gone, each word
with the span of the text it came from, so that a slot's value is the person's own text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

# A word is letters or digits, joined by apostrophes or hyphens inside it; one pass, no
# nested quantifiers, so reading is linear in the text.
_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*")
_JOINERS = str.maketrans({"'": None, "’": None, "ё": "е"})


@dataclass(frozen=True)
class Word:
    """One word: as matched (``norm``) and where it stands in the text."""

    norm: str
    start: int
    end: int


def words(text: str) -> list[Word]:
    """The words of ``text``, in order."""
    return [Word(normal(m.group()), m.start(), m.end()) for m in _WORD.finditer(text)]


def glued(text: str, found: list[Word]) -> list[bool]:
    """Whether each word and the next are written as one ("12:15am" is "12" and "15am"): no
    slot, schedule or run of words may end between them."""
    return [not any(c.isspace() for c in text[a.end : b.start]) for a, b in pairwise(found)]


def normal(word: str) -> str:
    """A word as templates and messages are compared: ``What's`` → ``whats``."""
    return word.casefold().translate(_JOINERS)
