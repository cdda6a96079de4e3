"""The names outside tools are offered under: ``server__tool``, as every provider accepts them."""

from __future__ import annotations

import hashlib
import re
from fnmatch import fnmatchcase

MAX_NAME = 64
_REFUSED = re.compile(r"[^A-Za-z0-9_-]")
_DIGEST = 6


def exposed_name(server: str, tool: str) -> str:
    """``server__tool`` when it is short and plain; else cut, cleaned and given a short hash of
    the real names, so two tools never share a name and a name stays the same across starts."""
    plain = f"{server}__{tool}"
    clean = _REFUSED.sub("_", plain)
    if clean == plain and len(plain) <= MAX_NAME:
        return plain
    digest = hashlib.sha256(plain.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST]
    return f"{clean[: MAX_NAME - _DIGEST - 1]}_{digest}"


def offered(tool: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """Whether a server's tool passes its ``tools`` and ``deny`` globs."""
    if any(fnmatchcase(tool, pattern) for pattern in exclude):
        return False
    return not include or any(fnmatchcase(tool, pattern) for pattern in include)
