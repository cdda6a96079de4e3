"""The one HTTP client tools use: checked addresses, redirects by hand, bounded bodies.

Each hop resolves the host once, checks every address, and connects to the checked address
(the Host header and TLS name stay the host's), so a resolver that answers differently the
second time cannot slip a private address in. Environment proxies are ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx

from assistant.errors import BlockedError, FetchError, RefusedError
from assistant.net.addresses import AddressPolicy, IPAddress
from assistant.net.resolver import Resolver, SystemResolver

REDIRECTS = (301, 302, 303, 307, 308)
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
        self._client = httpx.AsyncClient(
            trust_env=False,
            follow_redirects=False,
            transport=transport,
            timeout=self._limits.timeout,
        )

    async def close(self) -> None:
        """Close the connections."""
        await self._client.aclose()

    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        private: frozenset[str] | set[str] = frozenset(),
    ) -> Fetched:
        """Send a request and read its response within the limits, following redirects.

        ``private`` names headers that, like credentials, never follow a redirect elsewhere.
        """
        dropped = SENSITIVE | {name.lower() for name in private}
        try:
            async with asyncio.timeout(self._limits.timeout):
                return await self._follow(
                    method.upper(), _parse(url), dict(headers or {}), body, dropped
                )
        except TimeoutError:
            raise FetchError(f"no complete answer within {self._limits.timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise FetchError(f"the request failed: {type(exc).__name__}") from None

    async def _follow(
        self,
        method: str,
        url: httpx.URL,
        headers: dict[str, str],
        body: bytes | None,
        dropped: frozenset[str],
    ) -> Fetched:
        for _ in range(self._limits.max_redirects + 1):
            address = await self._check(url)
            response = await self._send(method, url, address, headers, body)
            location = response.headers.get("location")
            if response.status_code not in REDIRECTS or not location:
                return await self._read(response, url)
            await response.aclose()
            following = _parse(str(url.join(location)))
            if _origin(following) != _origin(url):
                headers = {k: v for k, v in headers.items() if k.lower() not in dropped}
            if response.status_code == 303 or (
                response.status_code in (301, 302) and method == "POST"
            ):
                method, body = "GET", None
            url = following
        raise RefusedError(f"more than {self._limits.max_redirects} redirects")

    async def _check(self, url: httpx.URL) -> IPAddress:
        host = url.host
        addresses = await self._resolver.resolve(host, url.port or _default_port(url))
        if not addresses:
            raise FetchError(f"cannot resolve {host!r}")
        if self._policy.host_allowed(host):
            return addresses[0]
        for address in addresses:
            if reason := self._policy.refusal(address):
                raise BlockedError(
                    f"{host} is not reachable: {reason}. Private and local addresses are "
                    "blocked unless the owner allow-lists them in [net]."
                )
        return addresses[0]

    async def _send(
        self,
        method: str,
        url: httpx.URL,
        address: IPAddress,
        headers: Mapping[str, str],
        body: bytes | None,
    ) -> httpx.Response:
        pinned = url.copy_with(host=str(address))
        request = self._client.build_request(
            method,
            pinned,
            headers={**headers, "Host": _host_header(url)},
            content=body,
            extensions={"sni_hostname": url.host} if url.scheme == "https" else {},
        )
        return await self._client.send(request, stream=True)

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


def _parse(url: str) -> httpx.URL:
    try:
        parsed = httpx.URL(url)
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
