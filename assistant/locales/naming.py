"""Languages by their names: every language Babel names in each pack's language ("German",
«немецкий»), in the forms a pack says they take («на немецком», «по-немецки»), and the names
a pack lists itself ("in english")."""

from __future__ import annotations

from functools import cache

from babel import Locale

from assistant.locales.packs import Packs, current


def language_named(name: str) -> str:
    """The code of the language ``name`` names ("German", «немецком», "по-русски" → "de",
    "de", "ru"), whether a pack speaks it or not; else ""."""
    return _names(current()).get(" ".join(name.casefold().replace("ё", "е").split()), "")


def language_name(code: str, language: str) -> str:
    """How ``language`` names the language ``code`` ("de" in Russian is «немецкий»)."""
    return str(Locale.parse(language).languages.get(code, code))


@cache
def _names(packs: Packs) -> dict[str, str]:  # once a set of packs
    found: dict[str, str] = {}
    for code, words in packs.words.items():
        forms = words.get("language_forms", {})
        for language, name in Locale.parse(code).languages.items():
            if len(language) == 2:  # the languages of ISO 639-1, not their dialects
                found.update(dict.fromkeys(_forms(name.casefold(), forms), language))
        listed = words.get("language_names", {})
        found.update({name.casefold(): str(language) for name, language in listed.items()})
    return found


def _forms(name: str, forms: dict[str, list[str]]) -> list[str]:
    """A name and the forms it takes: the ending a pack lists replaced ("ий" → "{}ом")."""
    made = [name]
    for ending, said in forms.items():
        if name.endswith(ending):
            made += [form.format(name[: -len(ending)]) for form in said]
    return made
