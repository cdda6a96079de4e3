"""Photos users send: which of Telegram's sizes to show the model, and the words that go
with it (kept in the history, where the picture itself is not)."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import PhotoSize

MAX_BYTES = 10_000_000
MAX_SIDE = 1600  # larger is no clearer to a model, and costs more of its window
ASK = "What is in this picture?"
TOO_BIG = "That photo is too large for me to look at; please send a smaller one."


def best_size(sizes: Sequence[PhotoSize]) -> PhotoSize | None:
    """The largest size within the side and byte limits (Telegram lists them small first)."""
    fitting = [
        size
        for size in sizes
        if max(size.width, size.height) <= MAX_SIDE and (size.file_size or 0) <= MAX_BYTES
    ]
    if fitting:
        return fitting[-1]
    smallest = sizes[0] if sizes else None
    return smallest if smallest is not None and (smallest.file_size or 0) <= MAX_BYTES else None


def words(caption: str) -> str:
    """The text of a turn with a photo, marked so that later turns know one was sent."""
    return f"[photo] {caption or ASK}"
