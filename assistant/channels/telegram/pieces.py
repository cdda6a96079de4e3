"""Rendered text cut into messages Telegram accepts: at most 4096 UTF-16 code units each.

A cut falls at a paragraph break, then a line break, then a space, outside code and links
where one is near enough; an entity that must be cut goes on in the next piece. The whitespace
at a cut is dropped (Telegram would trim it); no other character is lost.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from assistant.channels.telegram.entities import Entity, Rendered

LIMIT = 4096
# A cut nearer the start than this share of a piece is not worth keeping a block whole.
NEAREST = 4
_SEPARATORS = ("\n\n", "\n", " ")
_WHOLE = ("pre", "code", "text_link")  # cut inside only when nothing else is near


def pieces(rendered: Rendered, limit: int = LIMIT) -> list[Rendered]:
    """``rendered`` as messages of at most ``limit`` UTF-16 units, none empty."""
    text = rendered.text
    at = [0, *accumulate(2 if ord(c) > 0xFFFF else 1 for c in text)]  # UTF-16 offset of each
    whole = [(e.offset, e.end) for e in rendered.entities if e.kind in _WHOLE]
    out: list[Rendered] = []
    spans = _Spans(rendered.entities)
    start = _skip_space(text, 0)
    while start < len(text):
        end = bisect_right(at, at[start] + limit) - 1
        if end >= len(text):
            cut = len(text)
        else:
            near = [(a, b) for a, b in whole if b > at[start] and a < at[end]]
            cut = _cut(text, start, end, at, near)
        last = len(text[start:cut].rstrip()) + start
        if last > start:
            out.append(Rendered(text[start:last], spans.within(at[start], at[last])))
        start = _skip_space(text, cut)
    return out


def plain_pieces(text: str, limit: int = LIMIT) -> list[str]:
    """Plain text in pieces of at most ``limit`` UTF-16 units."""
    return [piece.text for piece in pieces(Rendered(text), limit)]


def _cut(
    text: str, start: int, end: int, at: Sequence[int], whole: Sequence[tuple[int, int]]
) -> int:
    """Where the piece from ``start`` ends: the best break at or before ``end``."""
    nearest = start + max(1, (end - start) // NEAREST)
    for keep_whole in (True, False):
        for separator in _SEPARATORS:
            found = _last_break(text, separator, (nearest, end), at, whole if keep_whole else ())
            if found is not None:
                return found
    return end if end > start else start + 1


def _last_break(
    text: str,
    separator: str,
    window: tuple[int, int],
    at: Sequence[int],
    whole: Sequence[tuple[int, int]],
) -> int | None:
    nearest, end = window
    position = text.rfind(separator, nearest, end + 1)
    while position > 0:
        if not any(a < at[position] < b for a, b in whole):
            return position
        position = text.rfind(separator, nearest, position)
    return None


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


class _Spans:
    """The entities, handed out piece by piece in one pass: those starting before a piece's
    end are taken in once, and dropped once they end within a piece."""

    def __init__(self, entities: Sequence[Entity]) -> None:
        self._waiting = sorted(entities, key=lambda e: (e.offset, -e.length))
        self._next = 0
        self._open: list[Entity] = []

    def within(self, low: int, high: int) -> tuple[Entity, ...]:
        """The parts of the entities between ``low`` and ``high``, offsets from ``low``."""
        while self._next < len(self._waiting) and self._waiting[self._next].offset < high:
            self._open.append(self._waiting[self._next])
            self._next += 1
        parts = []
        for entity in self._open:
            first, last = max(entity.offset, low), min(entity.end, high)
            if last > first:
                parts.append(
                    Entity(entity.kind, first - low, last - first, entity.url, entity.language)
                )
        self._open = [e for e in self._open if e.end > high]
        return tuple(parts)
