"""Fitting a tool's result into the model's budget: first items first, sources kept."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_URL_KEYS = ("url", "link", "href", "source")
_LIST_KEYS = ("results", "items", "entries", "notes", "tasks", "matches")
_ELLIPSIS = "…"
_ZWJ = "\u200d"
_JOINERS = frozenset({_ZWJ, "\ufe0e", "\ufe0f"})


@dataclass(frozen=True)
class Summary:
    """The text the model reads for a result, and the URLs it may cite."""

    text: str
    sources: tuple[str, ...] = ()


def summarize(value: Any, budget: int) -> Summary:
    """Render ``value`` within ``budget`` characters, keeping the URLs of what is shown."""
    header, items = _split(value)
    if items is None:
        text = value if isinstance(value, str) else _dump(value)
        return Summary(cut(text, budget), _own_url(value))
    lines = [header] if header else []
    sources: list[str] = []
    shown = 0
    for index, item in enumerate(items):
        line, url = _line(index + 1, item)
        rest = len(items) - index - 1
        room = budget - _size(lines) - 1 - (len(f"\n(+{rest} more)") if rest else 0)
        if len(line) > room:
            if shown:
                break
            line, url = _line(index + 1, item, limit=room)  # the first item, shortened
        lines.append(line)
        shown += 1
        if url and url not in sources:
            sources.append(url)
    if shown < len(items):
        lines.append(f"(+{len(items) - shown} more)")
    return Summary(cut("\n".join(lines), budget), tuple(sources))


def _own_url(value: Any) -> tuple[str, ...]:
    """The URL of a single result (a fetched page), as its source."""
    if isinstance(value, Mapping):
        url = next((value[k] for k in _URL_KEYS if isinstance(value.get(k), str)), None)
        if url and url.startswith(("http://", "https://")):
            return (url,)
    return ()


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _split(value: Any) -> tuple[str, list[Any] | None]:
    """Find the list of items in a result, and the rest of it as a header line."""
    if isinstance(value, list):
        return "", value
    if isinstance(value, Mapping):
        key = next((k for k in _LIST_KEYS if isinstance(value.get(k), list)), None)
        if key is not None:
            rest = {k: v for k, v in value.items() if k != key}
            return (_dump(rest) if rest else ""), list(value[key])
    return "", None


def _line(number: int, item: Any, limit: int | None = None) -> tuple[str, str | None]:
    url = None
    if isinstance(item, Mapping):
        url = next((item[k] for k in _URL_KEYS if isinstance(item.get(k), str)), None)
        body = _dump({k: v for k, v in item.items() if item.get(k) is not url})
    else:
        body = item if isinstance(item, str) else _dump(item)
    suffix = f" <{url}>" if url else ""
    prefix = f"{number}. "
    if limit is not None:
        body = cut(body, max(1, limit - len(prefix) - len(suffix)))
    return f"{prefix}{body}{suffix}", url


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def cut(text: str, limit: int) -> str:
    """Shorten ``text`` to at most ``limit`` characters at a safe place, marked with an ellipsis."""
    if len(text) <= limit:
        return text
    end = max(0, limit - len(_ELLIPSIS))
    while end > 0 and (_continues(text[end]) or text[end - 1] == _ZWJ):
        end -= 1
    space = text.rfind(" ", int(end * 0.8), end)
    if space > 0:
        end = space
    return text[:end].rstrip() + _ELLIPSIS


def _continues(char: str) -> bool:
    """Whether ``char`` belongs to the character before it (a mark, a joiner, a selector)."""
    return (
        unicodedata.category(char) in ("Mn", "Me", "Mc")
        or char in _JOINERS
        or "\udc00" <= char <= "\udfff"
    )
