"""Sources that tools returned, cited at the end of an answer unless the model did already."""

from __future__ import annotations

from collections.abc import Iterable

MAX_SOURCES = 5


def cite(text: str, sources: Iterable[str]) -> str:
    """``text`` followed by "Sources: ..." for the sources it does not already mention."""
    missing: list[str] = []
    for source in sources:
        if source not in text and source not in missing:
            missing.append(source)
    if not missing:
        return text
    listed = "\n".join(f"- {s}" for s in missing[:MAX_SOURCES])
    return f"{text.rstrip()}\n\nSources:\n{listed}"
