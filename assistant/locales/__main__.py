"""``python -m assistant.locales``: bring every pack's ``messages.po`` up to date with the code."""

from __future__ import annotations

from pathlib import Path

from assistant.locales.extraction import update
from assistant.locales.packs import current


def main() -> None:
    """Update the catalogs and say what each still lacks."""
    package = Path(__file__).resolve().parent.parent
    for code, missing in update(current(), package).items():
        print(f"{code}: {missing} message(s) to translate")


if __name__ == "__main__":
    main()
