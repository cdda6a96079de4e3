"""/healthz and /metrics over loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from assistant.app.health import serve_health
from assistant.config import parse_config
from assistant.errors import ConfigError
from assistant.metrics import TOOL_CALLS


@pytest.fixture
async def endpoint() -> AsyncIterator[Callable[..., object]]:
    problems: list[str] = []
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    server = asyncio.create_task(
        serve_health("127.0.0.1", 0, [lambda: problems[0] if problems else None], port.set_result)
    )
    url = f"http://127.0.0.1:{await port}"
    async with httpx.AsyncClient(base_url=url) as client:
        yield client, problems, url
    server.cancel()
    with pytest.raises(asyncio.CancelledError):
        await server


async def test_healthz_is_ok_then_names_the_problem(endpoint):
    client, problems, _ = endpoint
    ok = await client.get("/healthz")
    assert (ok.status_code, ok.text) == (200, "ok\n")
    problems.append("not polling Telegram")
    down = await client.get("/healthz")
    assert (down.status_code, down.text) == (503, "not polling Telegram\n")


async def test_metrics_are_in_the_prometheus_text_format(endpoint):
    client, _, _ = endpoint
    TOOL_CALLS.labels("save_note", "ok").inc()
    answer = await client.get("/metrics")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    assert 'assistant_tool_calls_total{outcome="ok",tool="save_note"}' in answer.text
    assert "# TYPE assistant_task_lateness_seconds histogram" in answer.text


async def test_anything_else_is_refused_plainly(endpoint):
    client, _, url = endpoint
    assert (await client.get("/")).status_code == 404
    assert (await client.post("/healthz")).status_code == 405
    head = await client.head("/healthz")
    assert head.status_code == 200 and head.content == b""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"x" * 10_000 + b"\r\n\r\n")  # a head longer than any real one
    await writer.drain()
    assert (await reader.read()).startswith(b"HTTP/1.1 400")
    writer.close()


@pytest.mark.parametrize("listen", ["9870", "localhost", "127.0.0.1:99999", "host:port"])
def test_a_bad_listen_address_is_a_config_error(listen):
    with pytest.raises(ConfigError, match="health.listen"):
        parse_config({"health": {"listen": listen}})
