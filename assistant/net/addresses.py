"""Which addresses a tool may reach: public ones, and what the owner allow-listed.

Refused unless allow-listed: loopback, private, link-local (and so cloud metadata), CGNAT,
multicast, reserved, unspecified, and the IPv6 forms that carry an IPv4 address inside
(IPv4-mapped, NAT64, 6to4, Teredo), which are judged by the address they carry.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
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
    if any(address in network for network in _NAT64):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return None
