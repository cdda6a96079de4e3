"""Telling systemd how the service is doing (``Type=notify``): ready once the bot polls,
stopping when asked to. Without ``$NOTIFY_SOCKET`` (not under systemd) nothing is sent."""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger(__name__)


def notify(state: str) -> bool:
    """Send ``state`` (``READY=1``, ``STOPPING=1``, ``STATUS=…``) to systemd, if it listens."""
    where = os.environ.get("NOTIFY_SOCKET", "")
    if not where:
        return False
    address = "\0" + where[1:] if where.startswith("@") else where  # abstract namespace
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError as exc:
        log.warning("could not tell systemd %s: %s", state.split("=", maxsplit=1)[0], exc)
        return False
    return True
