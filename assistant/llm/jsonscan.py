"""Scanning helpers shared by the readers of calls written as text: JSON decoded at a position
in time proportional to what is read, and searches that are not repeated once passed."""

from __future__ import annotations

import json
import re
from typing import Any

_FIRST_SLICE = 256
_CUT_MARGIN = 8
_DECODER = json.JSONDecoder()
CALL_KEY = r'"(?:tool|name|type|function|args|arguments|parameters|input)"\s*+:'
CALL_KEYS = re.compile(CALL_KEY)
# The object that a call key opens: "{" or "[{" just before it, within a bounded look-back.
_OPENING = re.compile(r"(?:\[\s*+)?\{\s*+\Z")
_LOOK_BACK = 64
MAX_UNREADABLE = 16  # broken objects read per reply before the rest is taken as prose


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
        self._needle, self._text, self._at, self._end = needle, text, -1, len(text)

    def at_or_after(self, start: int) -> int:
        """Where the next match begins (the end of the text when there is none)."""
        if start > self._end:  # noqa: PLR1730 (past the end is the end; cheaper than min())
            start = self._end
        if self._at < start:
            if isinstance(self._needle, str):
                self._at = find(self._text, self._needle, start)
            else:
                match = self._needle.search(self._text, start)
                self._at = match.start() if match else len(self._text)
        return self._at


def call_opening(text: str, key: int, floor: int) -> int | None:
    """Where the object that the call key at ``key`` opens begins, not before ``floor``."""
    match = _OPENING.search(text, max(floor, key - _LOOK_BACK), key)
    return None if match is None else match.start()


def has_call_key(text: str) -> bool:
    """Whether the text holds a JSON call key anywhere, in one C-speed search."""
    return CALL_KEYS.search(text) is not None


class Objects:
    """The JSON values that call keys open, left to right, each decoded at most once.

    Their strings are data: a model marker inside one is an argument's text, not markup.
    """

    def __init__(self, text: str) -> None:
        self._text, self._keys = text, Next(CALL_KEYS, text)
        self._read_to, self._unreadable = 0, 0

    def next_key(self, start: int) -> int:
        """Where the next call key is, at or after ``start`` (past the values already read)."""
        return self._keys.at_or_after(start)

    def before(self, start: int, stop: int) -> tuple[int, int] | None:
        """The span of the first such value beginning in ``[start, stop)``, if there is one.

        A value that cannot be decoded spans what the decoder read of it.
        """
        start = max(start, self._read_to)
        while self._unreadable < MAX_UNREADABLE:
            key = self._keys.at_or_after(start)
            if key >= stop:
                return None
            begin = call_opening(self._text, key, start)
            if begin is None:
                start = key + 1
                continue
            try:
                end = raw_decode(self._text, begin)[1]
            except Unreadable as exc:
                self._unreadable += 1
                end = max(exc.pos, key + 1)
            except RecursionError:
                self._unreadable = MAX_UNREADABLE
                return None
            self._read_to = end
            return begin, end
        return None
