"""The web and the user's own HTTP APIs, all through the guarded client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from assistant.errors import ToolError
from assistant.net import Fetched, GuardedClient
from assistant.net.secrets import SecretBook
from assistant.tools.services import need, services_of
from assistant.tools.tool import ToolContext, tool

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
PAGE_CHARS = 6000
RESPONSE_CHARS = 3000


def _not_a_get(arguments: Mapping[str, Any]) -> str | None:
    method = arguments.get("method", "GET")
    return None if method == "GET" else f"an HTTP {method} can change things on the other side"


@tool(read_only=True, untrusted=True, timeout=30.0, summary_chars=2000)
async def search_web(
    context: ToolContext, query: str, max_results: int = 5
) -> list[dict[str, str]]:
    """Search the web; gives titles, URLs and snippets.

    Args:
        query: what to search for
        max_results: how many results (1-10)
    """
    backend = need(services_of(context).search, "web search")
    hits = await backend.search(query, max(1, min(max_results, 10)))
    return [{"title": h.title, "url": h.url, "snippet": h.snippet} for h in hits]


@tool(read_only=True, untrusted=True, timeout=30.0, summary_chars=PAGE_CHARS + 300)
async def fetch_url(context: ToolContext, url: str) -> dict[str, str]:
    """Read a web page: its title and readable text.

    Args:
        url: the page's http or https address
    """
    client = need(services_of(context).http, "web access")
    fetched = await client.request("GET", url, headers={"Accept": "text/html, text/plain, */*"})
    if fetched.status >= 400:
        raise ToolError(f"the page answered HTTP {fetched.status}")
    title, text = await asyncio.to_thread(readable, fetched)
    cut = text[:PAGE_CHARS] + (" …(cut)" if len(text) > PAGE_CHARS else "")
    return {"title": title, "url": fetched.url, "text": cut}


@tool(untrusted=True, risk="medium", timeout=30.0, approval_when=_not_a_get)
async def api_call(
    context: ToolContext,
    url: str,
    method: Method = "GET",
    headers: dict[str, str] | None = None,
    body: str | dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Call one of the user's own HTTP APIs (home automation, webhooks).

    Args:
        url: the endpoint
        method: GET, POST, PUT, PATCH or DELETE
        headers: extra headers; credentials only as "secret:NAME" from the config
        body: text, or an object sent as JSON
    """
    services = services_of(context)
    client = need(services.http, "HTTP access")
    request = ApiRequest(url, method, headers or {}, body)
    answer = await call_api(client, services.secrets, request)
    return {"status": answer.status, "content_type": answer.content_type, "body": answer.body}


@dataclass(frozen=True)
class ApiRequest:
    """A call to one of the user's APIs, with secrets still as ``secret:NAME`` references."""

    url: str
    method: str = "GET"
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ApiAnswer:
    """How a user's API answered, with secrets scrubbed out and the body cut to size."""

    status: int
    content_type: str
    body: str

    @property
    def transient(self) -> bool:
        """Whether the server may answer differently later (timeouts, rate limits, 5xx)."""
        return self.status >= 500 or self.status in (408, 429)


async def call_api(client: GuardedClient, secrets: SecretBook, call: ApiRequest) -> ApiAnswer:
    """Send a user's API call with its secrets filled in; the answer has them scrubbed out."""
    url, method, headers, body = call.url, call.method, call.headers, call.body
    filled = secrets.fill(headers, _host(url))
    content: bytes | None = None
    if isinstance(body, Mapping):
        content = json.dumps(body, ensure_ascii=False).encode()
        filled.setdefault("Content-Type", "application/json")
    elif body is not None:
        content = body.encode()
    private = {name for name, value in headers.items() if "secret:" in value}
    fetched = await client.request(
        method, url, headers=filled, body=content, private=private, reach="owner"
    )
    text = secrets.scrub(fetched.text())
    cut = text[:RESPONSE_CHARS] + (" …(cut)" if len(text) > RESPONSE_CHARS else "")
    return ApiAnswer(fetched.status, fetched.content_type, cut)


def _host(url: str) -> str:
    try:
        return httpx.URL(url).host if url.startswith(("http://", "https://")) else ""
    except httpx.InvalidURL:
        return ""  # no secret is filled in; the guarded client refuses the URL itself


def readable(fetched: Fetched) -> tuple[str, str]:
    """The title and main text of a page (plain text stays as it is)."""
    if not fetched.content_type.lower().startswith(("text/html", "application/xhtml")):
        return "", fetched.text()
    import trafilatura

    html = fetched.text()
    text = trafilatura.extract(html, url=fetched.url, include_comments=False) or ""
    metadata = trafilatura.extract_metadata(html)
    title = metadata.title if metadata is not None and metadata.title else ""
    return title, text
