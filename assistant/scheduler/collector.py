"""Python's cyclic collector held off while a burst of runs is in memory, and let go after it.

A burst of tens of thousands of tasks due at once is held as values (reserved tasks, claimed
runs, outcomes waiting to be written), and each of them is an object the collector tracks.
While they grow, the collector's full passes walk all of them again and again: at 100,000
tasks due at once those passes took seconds, longer than the firing itself. None of those
values holds a cycle, and refcounting frees them as they go; so while a burst is held the
collector waits, and it runs again once the burst is written and let go.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger(__name__)


class Collector:
    """Holds the cyclic collector off while ``held`` says a burst is in memory."""

    def __init__(self, threshold: int) -> None:
        self._threshold = threshold
        self._paused = False

    @property
    def paused(self) -> bool:
        """Whether this collector holds the cyclic collector off now."""
        return self._paused

    def held(self, count: int) -> None:
        """Say how many burst values are in memory: at the threshold or past it, collection
        waits; below it, collection resumes."""
        if count >= self._threshold:
            self._pause()
        else:
            self.resume()

    def resume(self) -> None:
        """Let the cyclic collector run again, if this one held it off."""
        if self._paused:
            self._paused = False
            gc.enable()
            log.debug("burst written: cyclic collection resumed")

    def _pause(self) -> None:
        if not self._paused and gc.isenabled():  # someone else's disable is theirs to undo
            self._paused = True
            gc.disable()
            log.debug("burst in memory: cyclic collection waits")
