"""Named secrets for the user's own APIs: ``"secret:HOME_TOKEN"`` in a header, never the value.

The config names each secret, the environment variable that holds it and the hosts it may be
sent to; a secret asked for another host is refused, so an injected prompt cannot send it
elsewhere. Values never reach the model, the audit or a task row: only the names do.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from assistant.errors import ToolError

_REFERENCE = re.compile(r"secret:([A-Za-z0-9_]+)")


@dataclass(frozen=True)
class Secret:
    """A named secret: where its value is, and where it may go."""

    name: str
    env: str
    hosts: frozenset[str]


class SecretBook:
    """Fills secret references in headers for allowed hosts, and scrubs values from text."""

    def __init__(
        self, secrets: Iterable[Secret] = (), environ: Mapping[str, str] | None = None
    ) -> None:
        self._secrets = {s.name: s for s in secrets}
        self._environ = environ if environ is not None else os.environ

    def fill(self, headers: Mapping[str, str], host: str) -> dict[str, str]:
        """Headers with every ``secret:NAME`` replaced by its value, if it may go to ``host``."""
        return {
            k: _REFERENCE.sub(lambda m: self._value(m.group(1), host), v)
            for k, v in headers.items()
        }

    def scrub(self, text: str) -> str:
        """``text`` with any secret value replaced by its name."""
        for secret in self._secrets.values():
            value = self._environ.get(secret.env, "")
            if len(value) >= 4:
                text = text.replace(value, f"[secret:{secret.name}]")
        return text

    def _value(self, name: str, host: str) -> str:
        secret = self._secrets.get(name)
        if secret is None:
            known = ", ".join(self._secrets) or "none configured"
            raise ToolError(f"there is no secret named {name!r} (known: {known})")
        if host.lower().rstrip(".") not in secret.hosts:
            raise ToolError(
                f"secret {name!r} may not be sent to {host}; only to {sorted(secret.hosts)}"
            )
        value = self._environ.get(secret.env, "")
        if not value:
            raise ToolError(f"secret {name!r} is empty: its variable ${secret.env} is not set")
        return value
