"""Connection pools kept apart per host name: a connection verified for one name never
carries a request for another, even when both resolve to the same pinned address."""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx

PoolKey = tuple[str, str, int, str]  # scheme, host name, port, pinned address
MAX_POOLS = 32


class Pools:
    """One ``httpx.AsyncClient`` per (scheme, host, port, address), the idle ones capped."""

    def __init__(self, make: Callable[[], httpx.AsyncClient], limit: int = MAX_POOLS) -> None:
        self._make = make
        self._limit = limit
        self._clients: OrderedDict[PoolKey, httpx.AsyncClient] = OrderedDict()
        self._busy: Counter[PoolKey] = Counter()

    @asynccontextmanager
    async def client(self, key: PoolKey) -> AsyncIterator[httpx.AsyncClient]:
        """The pool for ``key``, held for one request and its response."""
        client = self._clients.pop(key, None) or self._make()
        self._clients[key] = client  # now the most recently used
        self._busy[key] += 1
        try:
            yield client
        finally:
            self._busy[key] -= 1
            await self._trim()

    async def close(self) -> None:
        """Close every pool."""
        clients, self._clients = list(self._clients.values()), OrderedDict()
        for client in clients:
            await client.aclose()

    async def _trim(self) -> None:
        while len(self._clients) > self._limit:
            idle = next((k for k in self._clients if not self._busy[k]), None)
            if idle is None:
                return  # every pool is in use: trim after the next request
            del self._busy[idle]
            await self._clients.pop(idle).aclose()
