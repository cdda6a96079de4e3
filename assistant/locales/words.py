"""The words every pack's ``words.toml`` lists under one key, merged over the packs in use:
the schedule language's words, the guards' vocabularies, the tool search's synonyms."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from assistant.locales.packs import Packs, current


def table(key: str) -> Mapping[str, Any]:
    """``key``'s tables of every pack merged into one, the first pack's entry winning (English
    comes first): ``schedule``, word → canonical English."""
    return _table(current(), key)


def listed(key: str) -> tuple[str, ...]:
    """``key``'s lists of every pack, in pack order, each word once."""
    return _listed(current(), key)


def pattern(*keys: str) -> str:
    """A regex alternation of every pack's words under ``keys``, escaped, longest first."""
    return _pattern(current(), keys)


@cache
def _pattern(packs: Packs, keys: tuple[str, ...]) -> str:
    found = {word.casefold() for key in keys for word in _listed(packs, key)}
    return "|".join(re.escape(word) for word in sorted(found, key=len, reverse=True))


def of(language: str, key: str) -> Any:
    """``key`` in one pack's words, or None."""
    return current().words.get(language, {}).get(key)


@cache
def _table(packs: Packs, key: str) -> Mapping[str, Any]:
    merged: dict[str, Any] = {}
    for words in packs.words.values():
        for word, meaning in (_at(words, key) or {}).items():
            merged.setdefault(word, meaning)
    return MappingProxyType(merged)


@cache
def _listed(packs: Packs, key: str) -> tuple[str, ...]:
    merged: dict[str, None] = {}
    for words in packs.words.values():
        merged.update(dict.fromkeys(str(w) for w in _at(words, key) or ()))
    return tuple(merged)


def _at(words: dict[str, Any], key: str) -> Any:
    """A dotted key's value: ``guards.claims``."""
    found: Any = words
    for part in key.split("."):
        found = found.get(part) if isinstance(found, dict) else None
    return found
