"""The sentence files, one a language: read, checked and expanded into one matcher.

A third language is a new ``sentences/<code>.toml``, not new code.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from assistant.errors import ConfigError
from assistant.intents.matcher import Matcher
from assistant.intents.templates import Ending, Graph

INTENTS = frozenset(
    {"remind", "remind_what", "alarm", "note", "list_tasks", "list_notes", "time_here",
     "time_in", "cancel_task", "pause_task", "resume_task", "delete_note", "set_zone",
     "set_language"}
)  # fmt: skip


def languages() -> list[str]:
    """The languages of the sentence files shipped, by file name (``en``, ``ru``)."""
    return [file.name.removesuffix(".toml") for file in _files()]


def _files() -> list[Traversable]:
    folder = resources.files("assistant.intents") / "sentences"
    return sorted((f for f in folder.iterdir() if f.name.endswith(".toml")), key=lambda f: f.name)


def fillers() -> frozenset[str]:
    """Words that say nothing on their own ("me", "for", "про"): a reminder's words must hold
    more than these. Each file lists its own under ``fillers``."""
    return listed("fillers")


def subjects() -> frozenset[str]:
    """Words a to-do after a schedule never starts with ("the", "у меня", "remind")."""
    return listed("subjects")


def language_names() -> frozenset[str]:
    """The names a person may ask for a language by ("English", "по-русски")."""
    return listed("language_names")


@cache
def listed(key: str) -> frozenset[str]:
    """The words every sentence file lists under ``key``, lower-cased."""
    found: set[str] = set()
    for file in _files():
        found.update(str(word).casefold() for word in _load(file).get(key, []))
    return frozenset(found)


def _load(file: Traversable) -> dict[str, Any]:
    return tomllib.loads(file.read_text("utf-8"))


@cache
def matcher() -> Matcher:
    """The matcher of every sentence file shipped with the assistant."""
    graph = Graph()
    for file in _files():
        read(graph, _load(file), file.name)
    return Matcher(graph)


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
