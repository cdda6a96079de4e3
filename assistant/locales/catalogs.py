"""A pack's gettext catalog compiled by Babel when first used, so the ``.po`` a translator
edits is the only copy: there is no ``.mo`` to fall out of date."""

from __future__ import annotations

import gettext
import logging
from importlib.resources.abc import Traversable
from io import BytesIO

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from assistant.errors import ConfigError

log = logging.getLogger(__name__)


def compiled(file: Traversable, code: str) -> gettext.GNUTranslations:
    """The catalog in ``file`` as the standard library's translations, plural rules included."""
    try:
        with file.open("rb") as source:
            catalog = read_po(source, locale=code)
    except Exception as exc:  # Babel raises several kinds for a broken file
        raise ConfigError(f"language pack {code}: messages.po cannot be read: {exc}") from None
    binary = BytesIO()
    write_mo(binary, catalog)
    binary.seek(0)
    return gettext.GNUTranslations(binary)
