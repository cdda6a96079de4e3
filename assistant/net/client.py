"""The one HTTP client tools use: checked addresses, redirects by hand, bounded bodies.

Each hop resolves the host once, checks every address, and connects to the checked address
(the Host header and TLS name stay the host's), so a resolver that answers differently the
second time cannot slip a private address in. Environment proxies are ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

import httpx

from assistant.errors import BlockedError, FetchError, RefusedError
from assistant.net.addresses import AddressPolicy, IPAddress, why_internal
from assistant.net.pools import Pools
from assistant.net.resolver import Resolver, SystemResolver

REDIRECTS = (301, 302, 303, 307, 308)
Reach = Literal["public", "owner"]
_WHY = {
    "public": "Pages and searches reach public addresses only; the owner's allow-list in [net] "
    "is for their own APIs (api_call).",
    "owner": "Private and local addresses are blocked unless the owner allow-lists them in [net].",
}
SENSITIVE = frozenset({"authorization", "proxy-authorization", "cookie"})
TEXT_TYPES = (
    "text/",
    "application/json",
    "application/ld+json",
    "application/xml",
    "application/xhtml+xml",
    "application/rss+xml",
    "application/atom+xml",
)


@dataclass(frozen=True)
class Limits:
    """Bounds on one request: decoded body size, total time, redirects, content types."""

    max_bytes: int = 2_000_000
    timeout: float = 20.0
    max_redirects: int = 5
    content_types: tuple[str, ...] = TEXT_TYPES


@dataclass(frozen=True)
class Fetched:
    """A response as read within the limits."""

    url: str
    status: int
    content_type: str
    body: bytes
    truncated: bool = False
    headers: Mapping[str, str] = field(default_factory=dict)

    def text(self) -> str:
        """The body as text, in the charset the response named (UTF-8 otherwise)."""
        charset = "utf-8"
        for part in self.content_type.split(";")[1:]:
            key, _, value = part.strip().partition("=")
            if key.lower() == "charset" and value:
                charset = value.strip('"')
        try:
            return self.body.decode(charset, errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")


class GuardedClient:
    """Makes requests for tools, refusing what the address policy forbids."""

    def __init__(
        self,
        policy: AddressPolicy,
        *,
        resolver: Resolver | None = None,
        limits: Limits | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._policy = policy
        self._resolver = resolver or SystemResolver()
        self._limits = limits or Limits()
        self._pools = Pools(
            lambda: httpx.AsyncClient(
                trust_env=False,
                follow_redirects=False,
                transport=transport,
                timeout=self._limits.timeout,
            )
        )

    async def close(self) -> None:
        """Close the connections."""
        await self._pools.close()

    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        private: frozenset[str] | set[str] = frozenset(),
        reach: Reach = "public",
    ) -> Fetched:
        """Send a request and read its response within the limits, following redirects.

        ``private`` names headers that, like credentials, never follow a redirect elsewhere.
        ``reach`` is the rule of the tool that asked, applied to every hop: "public" addresses
        only (pages, searches), or also the "owner"'s allow-listed services (their own APIs).
        """
        dropped = SENSITIVE | {name.lower() for name in private}
        hop = _Hop(method.upper(), dict(headers or {}), body, dropped, reach)
        try:
            async with asyncio.timeout(self._limits.timeout):
                return await self._follow(hop, _parse(url))
        except TimeoutError:
            raise FetchError(f"no complete answer within {self._limits.timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise FetchError(f"the request failed: {type(exc).__name__}") from None

    async def _follow(self, hop: _Hop, url: httpx.URL) -> Fetched:
        for _ in range(self._limits.max_redirects + 1):
            address = await self._check(url, hop.reach)
            key = (url.scheme, url.host, url.port or _default_port(url), str(address))
            async with self._pools.client(key) as client:
                response = await _send(client, hop, url, address)
                location = response.headers.get("location")
                if response.status_code not in REDIRECTS or not location:
                    return await self._read(response, url)
                await response.aclose()
            following = _parse(location, base=url)
            hop = hop.redirected(
                response.status_code, same_origin=_origin(following) == _origin(url)
            )
            url = following
        raise RefusedError(f"more than {self._limits.max_redirects} redirects")

    async def _check(self, url: httpx.URL, reach: Reach) -> IPAddress:
        host = url.host
        addresses = await self._resolver.resolve(host, url.port or _default_port(url))
        if not addresses:
            raise FetchError(f"cannot resolve {host!r}")
        owner = reach == "owner"
        if owner and self._policy.host_allowed(host):
            return addresses[0]
        for address in addresses:
            reason = self._policy.refusal(address) if owner else _public_only(address)
            if reason:
                raise BlockedError(f"{host} is not reachable: {reason}. {_WHY[reach]}")
        return addresses[0]

    async def _read(self, response: httpx.Response, url: httpx.URL) -> Fetched:
        try:
            content_type = response.headers.get("content-type", "")
            kind = content_type.split(";")[0].strip().lower()
            if kind and not kind.startswith(self._limits.content_types):
                raise RefusedError(f"{kind} content is not read (only text, HTML, JSON, XML)")
            body, truncated = bytearray(), False
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > self._limits.max_bytes:
                    del body[self._limits.max_bytes :]
                    truncated = True
                    break
        finally:
            await response.aclose()
        return Fetched(
            str(url),
            response.status_code,
            content_type,
            bytes(body),
            truncated,
            dict(response.headers),
        )


@dataclass(frozen=True)
class _Hop:
    """What is sent on each hop, and under which tool's rule."""

    method: str
    headers: dict[str, str]
    body: bytes | None
    dropped: frozenset[str]
    reach: Reach

    def redirected(self, status: int, *, same_origin: bool) -> _Hop:
        """The next hop: credentials stay home, a 303 (or a 301/302 after POST) turns GET."""
        headers = self.headers
        if not same_origin:
            headers = {k: v for k, v in headers.items() if k.lower() not in self.dropped}
        method, body = self.method, self.body
        if status == 303 or (status in (301, 302) and method == "POST"):
            method, body = "GET", None
        return replace(self, method=method, headers=headers, body=body)


async def _send(
    client: httpx.AsyncClient, hop: _Hop, url: httpx.URL, address: IPAddress
) -> httpx.Response:
    pinned = url.copy_with(host=str(address))
    request = client.build_request(
        hop.method,
        pinned,
        headers={**hop.headers, "Host": _host_header(url)},
        content=hop.body,
        extensions={"sni_hostname": url.host} if url.scheme == "https" else {},
    )
    return await client.send(request, stream=True)


def _public_only(address: IPAddress) -> str | None:
    reason = why_internal(address)
    return f"{address} is {reason}" if reason else None


def _parse(url: str, base: httpx.URL | None = None) -> httpx.URL:
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in url):
        raise RefusedError(
            "the URL holds spaces or control characters; percent-encode them (%20, %0A)"
        )
    try:
        parsed = base.join(url) if base is not None else httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise RefusedError(f"not a valid URL: {url!r} ({exc})") from None
    if parsed.scheme not in ("http", "https"):
        raise RefusedError(f"only http and https URLs are allowed, not {parsed.scheme or 'none'!r}")
    if not parsed.host:
        raise RefusedError(f"the URL has no host: {url!r}")
    return parsed


def _default_port(url: httpx.URL) -> int:
    return 443 if url.scheme == "https" else 80


def _origin(url: httpx.URL) -> tuple[str, str, int]:
    return (url.scheme, url.host, url.port or _default_port(url))


def _host_header(url: httpx.URL) -> str:
    host = f"[{url.host}]" if ":" in url.host else url.host
    return host if url.port is None else f"{host}:{url.port}"
