"""Scanning helpers shared by the readers of calls written as text: JSON decoded at a position
in time proportional to what is read, and searches that are not repeated once passed."""

from __future__ import annotations

import json
import re
from typing import Any

_FIRST_SLICE = 256
_CUT_MARGIN = 8
_DECODER = json.JSONDecoder()


class Unreadable(Exception):
    """The JSON at a position is invalid; ``pos`` is where reading failed, in the whole text."""

    def __init__(self, msg: str, pos: int) -> None:
        super().__init__(msg)
        self.msg, self.pos = msg, pos


def raw_decode(text: str, begin: int) -> tuple[Any, int]:
    """Decode one JSON value at ``begin`` from growing slices of the text.

    ``JSONDecodeError`` counts lines from the start of the document it was given, so decoding
    from the whole text would cost O(position) per failure; slices keep it O(span read).
    """
    size = _FIRST_SLICE
    while True:
        chunk = text[begin : begin + size]
        try:
            value, end = _DECODER.raw_decode(chunk)
        except json.JSONDecodeError as exc:
            cut = begin + size < len(text) and (
                exc.pos >= len(chunk) - _CUT_MARGIN or exc.msg.startswith("Unterminated string")
            )
            if not cut:
                raise Unreadable(exc.msg, begin + exc.pos) from None
            size *= 4
            continue
        return value, begin + end


def find(text: str, needle: str, start: int) -> int:
    """Where ``needle`` is at or after ``start``; the end of the text when it is not."""
    index = text.find(needle, start)
    return len(text) if index < 0 else index


class Next:
    """The next match of a pattern or string at or after a position, sought again once passed."""

    def __init__(self, needle: re.Pattern[str] | str, text: str) -> None:
        self._needle, self._text, self._at = needle, text, -1

    def at_or_after(self, start: int) -> int:
        """Where the next match begins (the end of the text when there is none)."""
        if self._at < start:
            if isinstance(self._needle, str):
                self._at = find(self._text, self._needle, start)
            else:
                match = self._needle.search(self._text, start)
                self._at = match.start() if match else len(self._text)
        return self._at
