"""Saying a message in a person's language: gettext for the words, ``str.format`` for the values.

Messages are written in English in the code (``tr(language, "Saved note {id}.", id=7)``);
``python -m assistant.locales`` collects them into each pack's ``messages.po``.
"""

from __future__ import annotations

from assistant.locales.naming import language_named
from assistant.locales.packs import ENGLISH, current


def tr(language: str, message: str, **values: object) -> str:
    """``message`` in ``language`` (English when it has no translation), values filled in."""
    said = current().translations(language).gettext(message)
    return said.format(**values) if values else said


def ntr(language: str, singular: str, plural: str, n: int, **values: object) -> str:
    """The form of a counted message that fits ``n`` (1 заметка, 2 заметки, 5 заметок)."""
    said = current().translations(language).ngettext(singular, plural, n)
    return said.format(n=n, **values)


def known_language(code: str) -> str:
    """A language code or name reduced to one a pack speaks ("ru-RU", "по-русски" → "ru"), or
    ""."""
    said = code.strip().casefold().replace("_", "-")
    short = language_named(said) or said.split("-")[0]
    return short if current().get(short) is not None else ""


def language_of(text: str) -> str:
    """The language whose alphabet ``text`` is written in, else English."""
    letters = set(text.casefold())
    for language, words in current().words.items():
        alphabet = words.get("alphabet", "")
        if alphabet and not letters.isdisjoint(alphabet):
            return language
    return ENGLISH


def spoken(person_language: str, text: str) -> str:
    """The language to answer in: the person's, else the one of their words."""
    return person_language or language_of(text)
