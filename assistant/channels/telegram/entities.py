"""Text as Telegram shows it: the message text and its entities, measured in UTF-16 units.

Kept apart from the Markdown reader (``render``), so that what only handles pieces of text
does not import markdown-it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EntityKind = Literal["bold", "italic", "strikethrough", "code", "pre", "text_link", "blockquote"]


@dataclass(frozen=True)
class Entity:
    """A span of a message's text shown a certain way; offsets in UTF-16 code units."""

    kind: EntityKind
    offset: int
    length: int
    url: str = ""
    language: str = ""

    @property
    def end(self) -> int:
        """Where the span ends (exclusive)."""
        return self.offset + self.length


@dataclass(frozen=True)
class Rendered:
    """Text as Telegram shows it, with the entities that format it."""

    text: str
    entities: tuple[Entity, ...] = ()


def units(text: str) -> int:
    """The length of ``text`` in UTF-16 code units, as Telegram counts."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)
