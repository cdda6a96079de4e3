"""Where a turn that read outside content may still send a request without asking.

Outside content can tell the model to carry what it knows (a note, the history) to a host of
the attacker's, in a URL's path or query. So once a turn's input holds outside content, a
request goes out unasked only to a host the user named in their own words, a host the config
names (the owner's APIs, their secrets' hosts), or to a link that appeared whole in that
outside content (a search result, a page's link): a link given in advance cannot carry
anything the model learned. Anything else waits for the owner's approval.

Reading is linear: words are split on whitespace, never matched by nested patterns.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from assistant.agent.guards.untrusted import is_framed
from assistant.llm.types import Message, ToolMessage, UserMessage

_EDGES = "()[]<>{}\"'`.,;:!?*"


def tainted(
    read_only: bool,
    arguments: Mapping[str, Any],
    messages: Sequence[Message],
    configured: Iterable[str] = (),
) -> str | None:
    """Why a call needs approval in a turn whose input holds outside content, or None."""
    if not read_only:
        return "the conversation holds outside content, and this call changes something"
    url = arguments.get("url")
    if not isinstance(url, str):
        return None
    host = unnamed_host(url, messages, configured)
    if host is None:
        return None
    return (
        f"the conversation holds outside content, and {host} is not a host you named: "
        "the request could carry what I know to it"
    )


def unnamed_host(
    url: str, messages: Sequence[Message], configured: Iterable[str] = ()
) -> str | None:
    """The host of ``url`` when a tainted turn may not reach it unasked, else None."""
    host = _host(url)
    if host is None:
        return None  # not a URL: the tool refuses it by itself
    named = set(configured) | _named_hosts(m.text for m in messages if isinstance(m, UserMessage))
    if any(host == n or host.endswith("." + n) for n in named):
        return None
    outside = (m.content for m in messages if isinstance(m, ToolMessage) and is_framed(m.content))
    if url.rstrip("/") in _links(outside):
        return None
    return host


def _named_hosts(texts: Iterable[str]) -> set[str]:
    hosts = (_host(w) if "://" in w else _bare_host(w) for w in _words(texts))
    return {host for host in hosts if host}


def _links(contents: Iterable[str]) -> set[str]:
    return {w.rstrip("/") for w in _words(contents) if w.startswith(("http://", "https://"))}


def _words(texts: Iterable[str]) -> Iterator[str]:
    for text in texts:
        for word in text.split():
            yield word.strip(_EDGES)


def _host(url: str) -> str | None:
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


def _bare_host(word: str) -> str | None:
    """``example.com`` or ``api.example.com/path`` as a host, if it looks like one."""
    candidate = word.split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0].lower().rstrip(".")
    labels = candidate.split(".")
    if len(labels) < 2 or not labels[-1].isalpha() or len(labels[-1]) < 2:
        return None
    if not all(label and label.replace("-", "").isalnum() for label in labels):
        return None
    return candidate
