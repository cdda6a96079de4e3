"""The sentence files, one a language pack: read, checked and expanded into one matcher.

A third language is a new pack folder with its ``sentences.toml``, not new code.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from assistant import locales
from assistant.errors import ConfigError
from assistant.intents.matcher import Matcher
from assistant.intents.templates import Ending, Graph
from assistant.locales import spellings
from assistant.locales.naming import language_named
from assistant.schedules.words import schedule_words

INTENTS = frozenset(
    {"remind", "remind_before", "remind_what", "alarm", "note", "list_tasks", "list_notes",
     "time_here", "time_in", "cancel_task", "pause_task", "resume_task", "delete_note", "set_zone",
     "set_language", "usage"}
)  # fmt: skip


def languages() -> list[str]:
    """The languages whose packs have sentences (``en``, ``ru``)."""
    return [pack.code for pack in _packs()]


def _packs() -> list[locales.Pack]:
    return [p for p in locales.current().all if p.file("sentences.toml") is not None]


def fillers() -> frozenset[str]:
    """Words that say nothing on their own ("me", "for", "про"): a reminder's words must hold
    more than these. Each file lists its own under ``fillers``."""
    return listed("fillers")


def subjects() -> frozenset[str]:
    """Words a to-do after a schedule never starts with ("the", "у меня", "remind")."""
    return listed("subjects")


def names_language(value: str) -> bool:
    """Whether ``value`` names a language ("English", "по-русски", «немецком»), spoken here or
    not: a request for one not spoken is answered, not left to the model."""
    return language_named(value) != ""


def listed(key: str) -> frozenset[str]:
    """The words every sentence file lists under ``key``, lower-cased."""
    return _listed(locales.current(), key)


@cache
def _listed(packs: locales.Packs, key: str) -> frozenset[str]:  # once a set of packs
    found: set[str] = set()
    for pack in _packs():
        found.update(str(word).casefold() for word in pack.toml("sentences.toml").get(key, []))
    return frozenset(found)


def matcher() -> Matcher:
    """The matcher of every pack's sentences."""
    return _matcher(locales.current())


@cache
def _matcher(packs: locales.Packs) -> Matcher:  # once a set of packs
    graph = Graph()
    for pack in _packs():
        read(graph, pack.toml("sentences.toml"), f"{pack.code}/sentences.toml")
    return Matcher(graph, Speller(graph).read)


class Speller:
    """A message's word as the sentences know it: a short form's meaning, the sentences' or
    the schedule's word it misspells by one letter, else itself."""

    def __init__(self, graph: Graph) -> None:
        literals = {e.label for edges in graph.edges for e in edges if e.kind == "word"}
        known = literals | schedule_words() | set(spellings.short_forms().values()) | _read()
        self._near = spellings.OneEdit(known)

    def read(self, word: str) -> str:
        """``word`` (as matched: lower case) as the sentences spell it."""
        if (short := spellings.spelled(word)) != word:
            return short
        return self._near.nearest(word) or word


def _read() -> set[str]:
    """Every word the reader of any word order takes (``[reader]`` in each pack)."""
    found: set[str] = set()
    for pack in locales.current().words.values():
        for value in pack.get("reader", {}).values():
            lists = value.values() if isinstance(value, dict) else [value]
            found.update(str(word) for listed in lists for word in listed)
    return found


def read(graph: Graph, data: dict[str, Any], name: str) -> None:
    """Add one language file's sentences to ``graph``; a clear error names what is wrong."""
    language = data.get("language")
    if not isinstance(language, str) or not language:
        raise ConfigError(f'{name}: say which language it is: language = "en"')
    rules = data.get("rules", {})
    for intent, body in data.get("intents", {}).items():
        if intent not in INTENTS:
            known = ", ".join(sorted(INTENTS))
            raise ConfigError(f"{name}: unknown intent {intent!r}; known: {known}")
        for template in body.get("sentences", []):
            graph.add(template, rules, Ending(intent, language))
