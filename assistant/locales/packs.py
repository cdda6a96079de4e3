"""Language packs: one folder a language, found by its name, read once.

A pack's folder (``assistant/locales/<code>/``) holds ``sentences.toml`` (what the local step
understands), ``words.toml`` (the words the schedule language, the guards and the tool search
know) and ``messages.po`` (every reply, a gettext catalog). A third language is a new folder.
"""

from __future__ import annotations

import gettext
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from assistant.errors import ConfigError
from assistant.locales.catalogs import compiled

ENGLISH = "en"


@dataclass(frozen=True)
class Pack:
    """One language's folder."""

    code: str
    folder: Traversable

    def file(self, name: str) -> Traversable | None:
        """One of the pack's files, or None when it has none."""
        found = self.folder / name
        return found if found.is_file() else None

    def toml(self, name: str) -> dict[str, Any]:
        """A TOML file of the pack read whole; a clear error names what is wrong."""
        file = self.file(name)
        if file is None:
            return {}
        try:
            return tomllib.loads(file.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"language pack {self.code}: {name} cannot be read: {exc}") from None


class Packs:
    """The packs under one root folder, each read once."""

    def __init__(self, root: Traversable) -> None:
        self.root = root

    @cached_property
    def all(self) -> tuple[Pack, ...]:
        """Every pack, English first: a folder whose name is a language code."""
        found = [
            Pack(f.name, f)
            for f in self.root.iterdir()
            if f.is_dir() and f.name.isalpha() and f.name.islower()
        ]
        return tuple(sorted(found, key=lambda p: (p.code != ENGLISH, p.code)))

    def codes(self) -> list[str]:
        """The languages the packs speak (``en``, ``ru``)."""
        return [p.code for p in self.all]

    def get(self, code: str) -> Pack | None:
        """The pack of ``code``, if there is one."""
        return next((p for p in self.all if p.code == code), None)

    @cached_property
    def words(self) -> dict[str, dict[str, Any]]:
        """Each pack's ``words.toml``, by code."""
        return {p.code: p.toml("words.toml") for p in self.all}

    def translations(self, code: str) -> gettext.NullTranslations:
        """The replies of ``code``; English (the messages as written) for one not translated."""
        cached = self._translations.get(code)
        if cached is None:
            pack = self.get(code)
            catalog = pack.file("messages.po") if pack is not None else None
            cached = compiled(catalog, code) if catalog else gettext.NullTranslations()
            self._translations[code] = cached
        return cached

    @cached_property
    def _translations(self) -> dict[str, gettext.NullTranslations]:
        return {}


_shipped = Packs(resources.files("assistant.locales"))
_current = [_shipped]


def current() -> Packs:
    """The packs in use: those shipped with the assistant."""
    return _current[0]


@contextmanager
def use(packs: Packs) -> Iterator[Packs]:
    """Other packs for a while: a test's toy language, a translator's work in progress."""
    before = _current[0]
    _current[0] = packs
    try:
        yield packs
    finally:
        _current[0] = before
