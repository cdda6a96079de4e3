"""Python's switch interval, short while any scheduler runs and restored when the last stops.

Python on the database thread keeps the GIL for up to the switch interval (5 ms by default)
while a run falls due; while a scheduler runs, the loop waits for it 1 ms at most.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


class _Switches:
    """How many hold the interval short, and what it was before the first of them."""

    def __init__(self) -> None:
        self.holders = 0
        self.before = sys.getswitchinterval()


_SWITCHES = _Switches()


@contextmanager
def short_switches(interval: float) -> Iterator[None]:
    """Keep the switch interval at most ``interval`` inside; the last to leave restores it."""
    if _SWITCHES.holders == 0:
        _SWITCHES.before = sys.getswitchinterval()
    _SWITCHES.holders += 1
    sys.setswitchinterval(min(sys.getswitchinterval(), interval))
    try:
        yield
    finally:
        _SWITCHES.holders -= 1
        if _SWITCHES.holders == 0:
            sys.setswitchinterval(_SWITCHES.before)
