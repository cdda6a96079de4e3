"""search_web, fetch_url and api_call through the executor and the guarded client."""

from __future__ import annotations

import ipaddress
import json

import httpx
import pytest
from fakehttp import Reply, fake_server

from assistant.errors import FetchError
from assistant.llm.types import ToolCall
from assistant.memory.audit import AuditLog
from assistant.net import AddressPolicy, GuardedClient, SystemResolver
from assistant.net.search import SearchHit
from assistant.net.secrets import Secret, SecretBook
from assistant.tools import Executor, Registry, ToolContext
from assistant.tools.builtin import builtin_tools
from assistant.tools.services import Services

PAGE = b"""<html><head><title>Lights manual</title></head><body><nav>menu</nav>
<article><h1>How to dim</h1><p>Hold the switch for three seconds to dim the lights slowly.
The lamp remembers the level you chose the next time it is turned on.</p></article></body></html>"""


class FakeSearch:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        if self.fail:
            raise FetchError("the web search failed (RatelimitException); try again later")
        return [
            SearchHit(f"{query} {n}", f"https://r{n}.example/", "snippet")
            for n in range(max_results)
        ]


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


PUBLIC = ipaddress.ip_address("93.184.216.34")


class Routes:
    """Resolves ``site.example`` to a public address, everything else as the system does."""

    async def resolve(self, host: str, port: int) -> list:
        return [PUBLIC] if host == "site.example" else await SystemResolver().resolve(host, port)


class ToFakeServer(httpx.AsyncBaseTransport):
    """Delivers what the guard pinned to the public address to the fake server instead."""

    def __init__(self, port: int) -> None:
        self._port = port
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == str(PUBLIC):
            request.url = request.url.copy_with(host="127.0.0.1", port=self._port)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def site(server, path: str) -> str:
    return f"http://site.example:{server.url.rsplit(':', 1)[1]}{path}"


@pytest.fixture
async def rig(conn, clock, server):
    client = GuardedClient(
        AddressPolicy.allowing(hosts=["localhost"]),
        resolver=Routes(),
        transport=ToFakeServer(int(server.url.rsplit(":", 1)[1])),
    )
    secrets = SecretBook(
        [Secret("HOME_TOKEN", "TEST_HOME_TOKEN", frozenset({"localhost"}))],
        {"TEST_HOME_TOKEN": "hunter2-long-token"},
    )
    services = Services(http=client, search=FakeSearch(), secrets=secrets)
    audit = AuditLog(conn, clock)
    yield (
        Executor(Registry(builtin_tools()), audit),
        ToolContext(1, 1, "r", "UTC", clock, services),
        audit,
    )
    await client.close()


def local(server, path: str) -> str:
    return f"http://localhost:{server.url.rsplit(':', 1)[1]}{path}"


async def run(executor, context, name, **arguments):
    (result,) = await executor.run([ToolCall("c1", name, arguments)], context)
    return result


async def test_fetch_url_gives_the_readable_text_and_title(rig, server):
    executor, context, _ = rig
    server.script(Reply(raw=PAGE, headers={"content-type": "text/html; charset=utf-8"}))
    result = await run(executor, context, "fetch_url", url=site(server, "/manual"))
    assert not result.is_error
    assert (
        '"title": "How to dim"' in result.content and "Hold the switch for three" in result.content
    )
    assert "menu" not in result.content
    assert result.sources == (site(server, "/manual"),)


async def test_fetch_url_refuses_an_address_that_is_not_allowed(rig):
    executor, context, _ = rig
    result = await run(executor, context, "fetch_url", url="http://127.0.0.1:9/x")
    assert result.is_error and "not reachable" in result.content and "loopback" in result.content


async def test_api_call_fills_a_named_secret_only_on_the_wire(rig, server):
    executor, context, audit = rig
    server.script(
        lambda request: Reply(
            raw=json.dumps({"echo": request.headers["authorization"]}).encode(),
            headers={"content-type": "application/json"},
        )
    )
    result = await run(
        executor,
        context,
        "api_call",
        url=local(server, "/lights/off"),
        method="POST",
        headers={"Authorization": "Bearer secret:HOME_TOKEN"},
        body={"room": "hall"},
    )
    assert not result.is_error
    (sent,) = server.requests
    assert sent.headers["authorization"] == "Bearer hunter2-long-token" and sent.json() == {
        "room": "hall"
    }
    assert "hunter2" not in result.content and "[secret:HOME_TOKEN]" in result.content
    (row,) = await audit.recent(1)
    assert "hunter2" not in json.dumps(row.arguments) + row.result


async def test_a_secret_is_not_sent_to_another_host(rig, server):
    executor, context, _ = rig
    result = await run(
        executor,
        context,
        "api_call",
        url="https://example.org/x",
        headers={"X-Key": "secret:HOME_TOKEN"},
    )
    assert result.is_error and "may not be sent to example.org" in result.content
    result = await run(
        executor, context, "api_call", url=local(server, "/"), headers={"X-Key": "secret:NOPE"}
    )
    assert result.is_error and "no secret named 'NOPE'" in result.content
    assert server.requests == []


async def test_a_malformed_url_is_an_error_the_model_can_fix(rig):
    executor, context, _ = rig
    result = await run(executor, context, "api_call", url="http://[::1/x")
    assert result.is_error and "not a valid URL" in result.content
    assert "internal" not in result.content


def test_an_api_call_other_than_get_needs_approval():
    tool = {t.name: t for t in builtin_tools()}["api_call"]
    assert tool.approval_reason({"method": "GET"}) is None
    assert "DELETE" in (tool.approval_reason({"method": "DELETE"}) or "")


async def test_search_web_gives_titles_urls_and_snippets(rig):
    executor, context, _ = rig
    result = await run(executor, context, "search_web", query="lamps", max_results=2)
    assert "lamps 0" in result.content and result.sources == (
        "https://r0.example/",
        "https://r1.example/",
    )


async def test_a_failing_search_backend_is_a_clear_error(conn, clock):
    executor = Executor(Registry(builtin_tools()), AuditLog(conn, clock))
    context = ToolContext(1, 1, "r", "UTC", clock, Services(search=FakeSearch(fail=True)))
    result = await run(executor, context, "search_web", query="x")
    assert result.is_error and "try again later" in result.content


async def test_system_stats_reads_the_machine(rig):
    executor, context, _ = rig
    result = await run(executor, context, "system_stats")
    assert not result.is_error and "memory_used_percent" in result.content


async def test_a_public_page_cannot_redirect_fetch_url_to_an_allow_listed_local_service(
    rig, server
):
    executor, context, _ = rig
    inside = local(server, "/admin")
    server.script(
        Reply(302, headers={"location": inside}),
        Reply(302, headers={"location": inside}),
        Reply(raw=b"the owner's own API", headers={"content-type": "text/plain"}),
    )
    result = await run(executor, context, "fetch_url", url=site(server, "/start"))
    assert result.is_error and "public addresses only" in result.content
    assert [r.path for r in server.requests] == ["/start"]
    # The owner's own api_call may follow the same redirect: the allow-list is for it.
    result = await run(executor, context, "api_call", url=site(server, "/start"))
    assert not result.is_error and "the owner's own API" in result.content


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org/a b",
        "http://example.org/x HTTP/1.1\r\nHost: evil",
        "http://example.org/\nx",
        "http://example.org/\x00",
        "http://example.org/\x7f",
    ],
)
async def test_control_characters_in_a_url_are_a_bad_argument(rig, url):
    executor, context, _ = rig
    for tool in ("fetch_url", "api_call"):
        result = await run(executor, context, tool, url=url)
        assert result.is_error and "spaces or control characters" in result.content
        assert "internal" not in result.content


async def test_a_redirect_with_spaces_or_control_characters_is_refused(rig, server):
    executor, context, _ = rig
    server.script(Reply(302, headers={"location": "/next HTTP/1.1 X: y"}))
    result = await run(executor, context, "fetch_url", url=site(server, "/start"))
    assert result.is_error and "spaces or control characters" in result.content
    assert [r.path for r in server.requests] == ["/start"]
