"""The guarded client against a server on 127.0.0.1 that it must not reach, unless allowed."""

from __future__ import annotations

import asyncio
import gzip
import ipaddress

import httpx
import pytest
from fakehttp import Reply, fake_server

from assistant.errors import BlockedError, FetchError
from assistant.net import AddressPolicy, GuardedClient, Limits
from assistant.net.addresses import why_internal
from assistant.net.pools import Pools

PUBLIC = ipaddress.ip_address("93.184.216.34")


@pytest.fixture
async def target():
    async with fake_server() as server:
        server.script(
            *(Reply(raw=b"secret", headers={"content-type": "text/plain"}) for _ in range(20))
        )
        yield server


@pytest.fixture
async def guarded():
    client = GuardedClient(AddressPolicy())
    yield client
    await client.close()


def port_of(server) -> int:
    return int(server.url.rsplit(":", 1)[1])


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "localhost",
        "2130706433",
        "0177.0.0.1",
        "0x7f000001",
        "0x7f.1",
        "127.1",
        "[::ffff:127.0.0.1]",
        "[::1]",
        "[::ffff:7f00:1]",
        "0.0.0.0",
    ],
)
async def test_loopback_in_any_spelling_is_refused_and_never_reached(target, guarded, host):
    # Blocked after resolving, or (0177.0.0.1, which httpx will not parse) refused as a URL.
    with pytest.raises(FetchError, match="not reachable|not a valid URL"):
        await guarded.request("GET", f"http://{host}:{port_of(target)}/")
    assert target.requests == []


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("10.1.2.3", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("100.64.1.1", "CGNAT"),
        ("100.100.100.200", "metadata"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fd00:ec2::254", "metadata"),
        ("64:ff9b::7f00:1", "loopback"),
        ("64:ff9b::a00:1", "private"),
        ("::ffff:169.254.169.254", "link-local"),
        ("2002:7f00:1::", "loopback"),
    ],
)
def test_every_kind_of_internal_address_is_named(address, kind):
    reason = why_internal(ipaddress.ip_address(address))
    assert reason is not None and kind.lower() in reason.lower()


def test_public_addresses_pass():
    for address in ("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "64:ff9b::5db8:d822"):
        assert why_internal(ipaddress.ip_address(address)) is None


class Rebinding:
    """Answers a public address first and loopback after: the classic rebinding trick."""

    def __init__(self, *answers: list) -> None:
        self.answers = list(answers)
        self.asked = 0

    async def resolve(self, host: str, port: int) -> list:
        self.asked += 1
        return self.answers.pop(0) if self.answers else [ipaddress.ip_address("127.0.0.1")]


def recording_transport(seen: list[httpx.Request], reply=None) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return (
            reply(request)
            if reply
            else httpx.Response(200, text="ok", headers={"content-type": "text/plain"})
        )

    return httpx.MockTransport(handle)


async def test_the_connection_goes_to_the_address_that_was_checked():
    seen: list[httpx.Request] = []
    resolver = Rebinding([PUBLIC])
    client = GuardedClient(AddressPolicy(), resolver=resolver, transport=recording_transport(seen))
    fetched = await client.request("GET", "https://news.example/a")
    assert resolver.asked == 1 and fetched.text() == "ok"
    (request,) = seen
    assert request.url.host == str(PUBLIC) and request.headers["host"] == "news.example"
    assert request.extensions["sni_hostname"] == "news.example"
    await client.close()


async def test_a_host_with_one_private_address_among_public_ones_is_refused():
    resolver = Rebinding([PUBLIC, ipaddress.ip_address("10.0.0.5")])
    client = GuardedClient(AddressPolicy(), resolver=resolver, transport=recording_transport([]))
    with pytest.raises(BlockedError, match="10.0.0.5 is private"):
        await client.request("GET", "http://mixed.example/")
    await client.close()


async def test_a_redirect_into_loopback_is_refused_and_credentials_stay_home(target):
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        if request.headers["host"] == "public.example":
            return httpx.Response(302, headers={"location": "http://other.example/next"})
        return httpx.Response(301, headers={"location": f"http://127.0.0.1:{port_of(target)}/x"})

    resolver = Rebinding([PUBLIC], [PUBLIC], [ipaddress.ip_address("127.0.0.1")])
    client = GuardedClient(
        AddressPolicy(), resolver=resolver, transport=recording_transport(seen, reply)
    )
    with pytest.raises(BlockedError):
        await client.request(
            "GET", "http://public.example/", headers={"Authorization": "Bearer t0ken"}
        )
    assert [r.headers["host"] for r in seen] == ["public.example", "other.example"]
    assert seen[0].headers["authorization"] == "Bearer t0ken"
    assert "authorization" not in seen[1].headers
    assert target.requests == []
    await client.close()


async def test_more_than_five_redirects_are_refused():
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "/again"})

    seen: list[httpx.Request] = []
    client = GuardedClient(
        AddressPolicy(),
        resolver=Rebinding(*[[PUBLIC]] * 10),
        transport=recording_transport(seen, reply),
    )
    with pytest.raises(FetchError, match="more than 5 redirects"):
        await client.request("GET", "http://loop.example/")
    assert len(seen) == 6
    await client.close()


async def test_a_303_turns_a_post_into_a_get_without_its_body():
    seen: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(303, headers={"location": "/done"})
        return httpx.Response(200, text="done", headers={"content-type": "text/plain"})

    client = GuardedClient(
        AddressPolicy(),
        resolver=Rebinding([PUBLIC], [PUBLIC]),
        transport=recording_transport(seen, reply),
    )
    await client.request("POST", "http://api.example/", body=b'{"a": 1}')
    assert [(r.method, r.content) for r in seen] == [("POST", b'{"a": 1}'), ("GET", b"")]
    await client.close()


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://example.org/x", "gopher://x", "http:///nohost", "not a url"],
)
async def test_only_http_and_https_urls_with_a_host_are_taken(guarded, url):
    with pytest.raises(FetchError):
        await guarded.request("GET", url)


async def test_the_allow_listed_local_service_is_reached(target):
    client = GuardedClient(AddressPolicy.allowing(hosts=["localhost"]))
    fetched = await client.request(
        "GET", f"http://localhost:{port_of(target)}/lights/off", reach="owner"
    )
    assert fetched.status == 200 and fetched.body == b"secret"
    assert target.requests[0].path == "/lights/off"
    await client.close()


async def test_an_allow_listed_network_is_reached_and_environment_proxies_are_ignored(
    target, monkeypatch
):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    client = GuardedClient(AddressPolicy.allowing(networks=["127.0.0.0/8"]))
    fetched = await client.request("GET", f"http://127.0.0.1:{port_of(target)}/", reach="owner")
    assert fetched.body == b"secret"
    await client.close()


async def test_a_gzip_bomb_is_cut_at_the_decoded_size_cap():
    bomb = gzip.compress(b"\0" * 50_000_000)
    async with fake_server() as server:
        server.script(
            Reply(raw=bomb, headers={"content-type": "text/plain", "content-encoding": "gzip"})
        )
        client = GuardedClient(
            AddressPolicy.allowing(networks=["127.0.0.0/8"]), limits=Limits(max_bytes=100_000)
        )
        fetched = await client.request("GET", f"{server.url}/bomb", reach="owner")
        await client.close()
    assert len(bomb) < 100_000 and fetched.truncated and len(fetched.body) == 100_000


async def test_a_slow_body_hits_the_time_cap():
    async with fake_server() as server:
        never = asyncio.Event()
        server.script(Reply(raw=b"x" * 1000, headers={"content-type": "text/plain"}, trickle=never))
        client = GuardedClient(
            AddressPolicy.allowing(networks=["127.0.0.0/8"]), limits=Limits(timeout=0.2)
        )
        with pytest.raises(FetchError, match=r"within 0.2 s"):
            await client.request("GET", f"{server.url}/slow", reach="owner")
        never.set()
        await client.close()


async def test_binary_content_is_not_read(target):
    async with fake_server() as server:
        server.script(Reply(raw=b"\x89PNG", headers={"content-type": "image/png"}))
        client = GuardedClient(AddressPolicy.allowing(networks=["127.0.0.0/8"]))
        with pytest.raises(FetchError, match="image/png content is not read"):
            await client.request("GET", f"{server.url}/pic", reach="owner")
        await client.close()


# The IANA IPv4 and IPv6 Special-Purpose Address Registries, every entry as published (2024),
# copied here independently of the guard's own table.
IANA_IPV4 = """0.0.0.0/8 0.0.0.0/32 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12
192.0.0.0/24 192.0.0.0/29 192.0.0.8/32 192.0.0.9/32 192.0.0.10/32 192.0.0.170/32 192.0.0.171/32
192.0.2.0/24 192.31.196.0/24 192.52.193.0/24 192.88.99.0/24 192.168.0.0/16 192.175.48.0/24
198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 240.0.0.0/4 255.255.255.255/32"""
IANA_IPV6 = """::1/128 ::/128 64:ff9b:1::/48 100::/64 100:0:0:1::/64 2001::/23 2001:1::1/128
2001:1::2/128 2001:1::3/128 2001:2::/48 2001:3::/32 2001:4:112::/48 2001:10::/28 2001:20::/28
2001:30::/28 2001:db8::/32 2620:4f:8000::/48 3fff::/20 5f00::/16 fc00::/7 fe80::/10"""
# These carry an IPv4 address and are judged by it (tested below with inner addresses).
CARRIERS = "::ffff:0:0/96 64:ff9b::/96 2001::/32 2002::/16"


def edges(block: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    network = ipaddress.ip_network(block)
    middle = network.network_address + network.num_addresses // 2
    return [network.network_address, middle, network.broadcast_address]


@pytest.mark.parametrize("block", [*IANA_IPV4.split(), *IANA_IPV6.split(), "fec0::/10"])
def test_every_special_purpose_block_is_refused_at_its_edges_and_middle(block):
    carriers = [ipaddress.ip_network(c) for c in CARRIERS.split()]
    for address in edges(block):
        if any(address in carrier for carrier in carriers):
            continue  # judged by what it carries
        assert why_internal(address) is not None, f"{address} in {block} passed the guard"


@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("::ffff:10.0.0.1", True),
        ("::ffff:93.184.216.34", False),
        ("64:ff9b::192.168.0.1", True),
        ("64:ff9b::93.184.216.34", False),
        ("2002:c0a8:0001::1", True),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", True),  # Teredo carrying 192.0.2.45
        ("2001:0:4136:e378:8000:63bf:a247:27dd", False),  # Teredo carrying 93.184.216.34
    ],
)
def test_addresses_that_carry_ipv4_are_judged_by_it(address, refused):
    inner = ipaddress.ip_address(address)
    assert (why_internal(inner) is not None) == refused


async def test_connections_are_pooled_per_host_name_not_per_pinned_address():
    seen: list[httpx.Request] = []
    client = GuardedClient(
        AddressPolicy(), resolver=Rebinding([PUBLIC], [PUBLIC], [PUBLIC]),
        transport=recording_transport(seen),
    )  # fmt: skip
    for host in ("a.example", "b.example", "a.example"):
        await client.request("GET", f"https://{host}/x")
    pools = client._pools._clients
    assert list(pools) == [
        ("https", "b.example", 443, str(PUBLIC)),
        ("https", "a.example", 443, str(PUBLIC)),
    ]
    assert [r.extensions["sni_hostname"] for r in seen] == ["a.example", "b.example", "a.example"]
    await client.close()


async def test_idle_pools_are_capped_and_closed():
    made: list[httpx.AsyncClient] = []

    def make() -> httpx.AsyncClient:
        made.append(httpx.AsyncClient())
        return made[-1]

    pools = Pools(make, limit=2)
    for n in range(4):
        async with pools.client(("https", f"h{n}.example", 443, "1.2.3.4")):
            pass
    assert len(made) == 4 and [c.is_closed for c in made] == [True, True, False, False]
    await pools.close()
    assert all(c.is_closed for c in made)
