"""``/healthz`` and ``/metrics`` over plain HTTP, for monitoring (``[health] listen``).

``/healthz`` answers 200 while updates come in and the scheduler loop runs, else 503 with
the reasons; ``/metrics`` is the Prometheus text format. Nothing else is served, nothing is
read beyond the request line and headers, and a slow client is cut off.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from assistant.metrics import CONTENT_TYPE, exposition

log = logging.getLogger(__name__)

Check = Callable[[], str | None]  # the problem it sees, or None
READ_SECONDS = 5.0
MAX_HEAD = 8192


async def serve_health(
    host: str, port: int, checks: Sequence[Check], listening: Callable[[int], None] | None = None
) -> None:
    """Serve until cancelled; ``listening`` hears the port (port 0 picks a free one)."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(READ_SECONDS):
                head = await reader.readuntil(b"\r\n\r\n")
            status, kind, body = respond(head[:MAX_HEAD], checks)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            head, status, kind, body = b"", "400 Bad Request", "text/plain", b"bad request\n"
        except ConnectionError:
            return
        shown = b"" if head.startswith(b"HEAD ") else body  # HEAD: the headers alone
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + shown
        )
        try:
            await writer.drain()
        finally:
            writer.close()

    server = await asyncio.start_server(answer, host, port, limit=MAX_HEAD)
    port = server.sockets[0].getsockname()[1]
    log.info("health and metrics at http://%s:%d/healthz and /metrics", host, port)
    if listening is not None:
        listening(port)
    async with server:
        await server.serve_forever()


def respond(head: bytes, checks: Sequence[Check]) -> tuple[str, str, bytes]:
    """The status line, content type and body for one request head."""
    method, _, rest = head.decode("latin-1").partition(" ")
    path = rest.partition(" ")[0].partition("?")[0]
    if method not in ("GET", "HEAD"):
        return "405 Method Not Allowed", "text/plain", b"only GET\n"
    if path == "/metrics":
        return "200 OK", CONTENT_TYPE, exposition()
    if path == "/healthz":
        problems = [problem for check in checks if (problem := check()) is not None]
        if problems:
            return "503 Service Unavailable", "text/plain", ("\n".join(problems) + "\n").encode()
        return "200 OK", "text/plain", b"ok\n"
    return "404 Not Found", "text/plain", b"/healthz or /metrics\n"
