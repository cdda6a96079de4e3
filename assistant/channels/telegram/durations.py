"""Durations as the Bot API gives them."""

from __future__ import annotations


def seconds(value: object) -> float:
    """A Bot API duration as seconds: PTB gives an int or a timedelta (0 for anything else)."""
    total = getattr(value, "total_seconds", None)
    if callable(total):
        return float(total())
    return float(value) if isinstance(value, int | float) else 0.0
