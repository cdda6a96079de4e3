"""Updates from people who are not allowed in: remembered boundedly, logged sparingly."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict

log = logging.getLogger(__name__)

STRANGERS_KEPT = 1000
STRANGERS_LOG_EVERY = 60.0


class Strangers:
    """Who was turned away: a bounded memory of ids, and at most one log line a minute."""

    def __init__(self, limit: int = STRANGERS_KEPT, every: float = STRANGERS_LOG_EVERY) -> None:
        self._seen: OrderedDict[int, None] = OrderedDict()
        self._limit = limit
        self._every = every
        self._logged = -every
        self._unlogged = 0

    def ignored(self, who: int) -> None:
        """Note an ignored update; log new ids, no more often than once per ``every`` s."""
        if who in self._seen:
            self._seen.move_to_end(who)
            return
        self._seen[who] = None
        if len(self._seen) > self._limit:
            self._seen.popitem(last=False)
        self._unlogged += 1
        now = time.monotonic()
        if now - self._logged >= self._every:
            log.warning(
                "ignored updates from %d new user(s), the latest %s (not allowed or not private)",
                self._unlogged,
                who,
            )
            self._logged, self._unlogged = now, 0
