"""Name resolution as a seam: the system's resolver, or a test's."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import Protocol

from assistant.net.addresses import IPAddress


class Resolver(Protocol):
    """Turns a host name into the addresses it stands for."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        """Every address of ``host``; an empty list when it has none."""
        ...


class SystemResolver:
    """The operating system's resolver, numeric forms such as ``0x7f.1`` included."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        """Every address of ``host``; an empty list when it has none."""
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError):
            return []
        found: list[IPAddress] = []
        for info in infos:
            address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
            if address not in found:
                found.append(address)
        return found
