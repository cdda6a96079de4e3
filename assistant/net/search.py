"""Web search behind a small interface; DuckDuckGo through ``ddgs`` by default."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from assistant.errors import FetchError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearchHit:
    """One search result."""

    title: str
    url: str
    snippet: str


class SearchBackend(Protocol):
    """Something that answers a web search."""

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        """The top results for ``query``; a failure is a ``FetchError``."""
        ...


class DuckDuckGo:
    """DuckDuckGo and friends through the maintained ``ddgs`` client (run off the loop)."""

    def __init__(self, timeout: float = 15.0, region: str = "wt-wt") -> None:
        self._timeout = timeout
        self._region = region

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        """The top results for ``query``; a failure is a ``FetchError``."""
        try:
            async with asyncio.timeout(self._timeout):
                rows = await asyncio.to_thread(self._search, query, max_results)
        except TimeoutError:
            raise FetchError(f"the web search did not answer within {self._timeout:g} s") from None
        except Exception as exc:  # the client raises its own kinds, and network errors
            log.warning("web search failed: %s: %s", type(exc).__name__, exc)
            raise FetchError(
                f"the web search failed ({type(exc).__name__}); try again later"
            ) from None
        return [hit for row in rows if (hit := _hit(row)) is not None][:max_results]

    def _search(self, query: str, max_results: int) -> list[dict[str, Any]]:
        from ddgs import DDGS

        return DDGS(timeout=int(self._timeout)).text(
            query, region=self._region, max_results=max_results
        )


def _hit(row: Any) -> SearchHit | None:
    if not isinstance(row, dict) or not isinstance(row.get("href"), str):
        return None
    return SearchHit(str(row.get("title", "")), row["href"], str(row.get("body", "")))
