"""Which addresses a tool may reach: public ones, and what the owner allow-listed.

Refused unless allow-listed: every block of the IANA IPv4 and IPv6 Special-Purpose Address
Registries (even the few anycast ones marked globally reachable: an assistant has no business
there), deprecated site-local ``fec0::/10``, multicast, and whatever Python does not count as
global. The IPv6 forms that carry an IPv4 address inside (IPv4-mapped, NAT64 ``64:ff9b::/96``,
6to4, Teredo) are judged by the address they carry.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# The IANA Special-Purpose Address Registries (IPv4 and IPv6, as of 2024), and site-local.
SPECIAL_PURPOSE: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "“this network”"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "shared (CGNAT)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local (cloud metadata lives here)"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation (TEST-NET-1)"),
    ("192.31.196.0/24", "AS112"),
    ("192.52.193.0/24", "AMT"),
    ("192.88.99.0/24", "deprecated 6to4 relay anycast"),
    ("192.168.0.0/16", "private"),
    ("192.175.48.0/24", "AS112 direct delegation"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation (TEST-NET-2)"),
    ("203.0.113.0/24", "documentation (TEST-NET-3)"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::/96", "deprecated IPv4-compatible"),
    ("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),
    ("100::/64", "discard-only"),
    ("100:0:0:1::/64", "dummy IPv6 prefix"),
    ("2001::/23", "IETF protocol assignments"),
    ("2001:db8::/32", "documentation"),
    ("2620:4f:8000::/48", "AS112 direct delegation"),
    ("3fff::/20", "documentation"),
    ("5f00::/16", "segment routing"),
    ("fc00::/7", "private (unique local)"),
    ("fe80::/10", "link-local (cloud metadata lives here)"),
    ("fec0::/10", "deprecated site-local"),
    ("ff00::/8", "multicast"),
)
_SPECIAL = tuple((ipaddress.ip_network(block), name) for block, name in SPECIAL_PURPOSE)
_METADATA = frozenset(
    {ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254")}
)


@dataclass(frozen=True)
class AddressPolicy:
    """Public addresses pass; others only when their host or network is allow-listed."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = field(default_factory=tuple)

    @classmethod
    def allowing(cls, hosts: Iterable[str] = (), networks: Iterable[str] = ()) -> AddressPolicy:
        """A policy from the config's lists; a bad network is a ValueError naming it."""
        parsed = tuple(ipaddress.ip_network(n, strict=False) for n in networks)
        return cls(frozenset(h.lower().rstrip(".") for h in hosts), parsed)

    def host_allowed(self, host: str) -> bool:
        """Tell whether the owner allow-listed this host name."""
        return host.lower().rstrip(".") in self.hosts

    def refusal(self, address: IPAddress) -> str | None:
        """Why this address may not be reached, or None when it may."""
        if any(address in network for network in self.networks):
            return None
        reason = why_internal(address)
        return f"{address} is {reason}" if reason else None


def why_internal(address: IPAddress) -> str | None:
    """What kind of non-public address this is, or None for a public one."""
    inner = embedded_ipv4(address)
    if inner is not None:
        return why_internal(inner)
    if address in _METADATA:
        return "a cloud metadata address"
    special = next((name for block, name in _SPECIAL if address in block), None)
    if special is not None:
        return special
    checks = (
        ("loopback", address.is_loopback),
        ("link-local (cloud metadata lives here)", address.is_link_local),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("reserved", address.is_reserved),
        ("shared (CGNAT)", address in ipaddress.IPv4Network("100.64.0.0/10")),
        ("private", address.is_private),
        ("not globally routable", not address.is_global),
    )
    return next((name for name, hit in checks if hit), None)


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside an IPv6 one (mapped, NAT64, 6to4, Teredo), if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return None
