"""The messages the code says, collected by Babel's extractor, and each pack's catalog brought
up to date with them (new ones added untranslated, dropped ones kept as obsolete)."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from assistant.locales.packs import ENGLISH, Packs

# tr(language, message, ...) and ntr(language, singular, plural, n, ...)
KEYWORDS = {"tr": (2,), "ntr": (2, 3)}


def template(package: Path) -> Catalog:
    """Every message the package's code passes to ``tr`` and ``ntr``."""
    catalog = Catalog(project="assistant", fuzzy=False)
    found = extract_from_dir(
        str(package), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=()
    )
    for filename, line, message, comments, context in found:
        catalog.add(message, locations=[(filename, line)], auto_comments=comments, context=context)
    return catalog


def update(packs: Packs, package: Path) -> dict[str, int]:
    """Each translated pack's ``messages.po`` updated in place; the count of untranslated ones."""
    source = template(package)
    missing: dict[str, int] = {}
    for pack in packs.all:
        if pack.code == ENGLISH:
            continue
        path = Path(str(pack.folder)) / "messages.po"
        catalog = _read(path, pack.code)
        catalog.update(source, no_fuzzy_matching=True)
        with path.open("wb") as out:
            write_po(out, catalog, width=100, include_lineno=False)
        missing[pack.code] = len([m for m in catalog if m.id and not _done(m.string)])
    return missing


def _read(path: Path, code: str) -> Catalog:
    if not path.exists():
        return Catalog(locale=code, project="assistant", fuzzy=False)
    return read_po(BytesIO(path.read_bytes()), locale=code)


def _done(string: object) -> bool:
    """Whether a message is translated: every plural form, or its one string."""
    return all(string) if isinstance(string, tuple | list) else bool(string)
