"""Hiding secrets from text (log lines, error messages) and from argument mappings (audit rows)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

MASK = "[REDACTED]"

SENSITIVE_WORDS = frozenset(
    {"password", "passwd", "api_key", "apikey", "secret", "token", "key", "authorization", "cookie"}
)

# Each pattern is linear: bounded character classes, no nested quantifiers.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Telegram bot tokens, bare or in Bot API URLs: bot123456:AA...
    (re.compile(r"\b(bot)?\d{5,}:[A-Za-z0-9_-]{20,}"), r"\1" + MASK),
    # OpenAI-style and Anthropic-style keys.
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), MASK),
    # Authorization headers in any rendering: "Authorization: Bearer x", ('authorization', 'x').
    (
        re.compile(
            r"(?i)(authorization['\"]?\s*[:=,]\s*['\"]?)(?:(?:bearer|basic|token)\s+)?"
            r"[^\s'\",)}\]]+"
        ),
        r"\1" + MASK,
    ),
    # Query and form parameters: api_key=..., token=..., access_token=..., password=...
    (
        re.compile(r"(?i)\b((?:api[_-]?key|access[_-]?token|token|password|secret)=)[^&\s'\"]+"),
        r"\1" + MASK,
    ),
)


# Every pattern above needs one of these in the text: one linear scan rules all of them out.
_MAYBE = re.compile(r"[:=]|sk-|(?i:authorization)")

MIN_SECRET = 6
_values: set[str] = set()  # the configured secrets, masked wherever they appear
_longest_first: list[str] = []


def remember_secrets(values: Iterable[str]) -> None:
    """Mask these values (from the variables the config names) in everything redacted."""
    for raw in values:
        value = raw.strip()
        if len(value) >= MIN_SECRET:
            _values.update({value, quote(value, safe=""), quote(value)})
    _longest_first[:] = sorted(_values, key=len, reverse=True)


def forget_secrets() -> None:
    """Forget every remembered value (a test's, or before the config is read again)."""
    _values.clear()
    _longest_first.clear()


def redact_known(text: str) -> str:
    """``text`` with every remembered secret value masked, whatever its shape."""
    for value in _longest_first:
        if value in text:
            text = text.replace(value, MASK)
    return text


def redact_text(text: str) -> str:
    """Return ``text`` with every known kind of secret replaced by a mask."""
    text = redact_known(text)
    if not _MAYBE.search(text):
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def is_sensitive_key(name: str) -> bool:
    """Tell whether an argument or header name suggests a secret value."""
    lowered = name.lower().replace("-", "_")
    if lowered in SENSITIVE_WORDS:
        return True
    return any(part in SENSITIVE_WORDS for part in lowered.split("_"))


def redact_value(value: Any) -> Any:
    """Return a copy of a JSON-like value with sensitive keys masked and secrets in text hidden."""
    if isinstance(value, str):  # the usual leaf first: a Mapping check is an ABC's, slower
        return redact_text(value)
    if isinstance(value, dict | Mapping):
        return {
            str(k): MASK if is_sensitive_key(str(k)) else redact_value(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value


# One encoder for every call: ``json.dumps`` with any option set builds a new one each time.
_JSON = json.JSONEncoder(ensure_ascii=False, default=str)


def redacted_json(value: Any) -> str:
    """A JSON-like value as JSON text, redacted as ``redact_value`` does it."""
    return _JSON.encode(redact_value(value))
