"""Language packs: every word the assistant reads or writes, a folder a language."""

from assistant.locales.packs import ENGLISH, Pack, Packs, current, use
from assistant.locales.speech import known_language, language_of, ntr, spoken, tr

__all__ = [
    "ENGLISH",
    "Pack",
    "Packs",
    "current",
    "known_language",
    "language_of",
    "ntr",
    "spoken",
    "tr",
    "use",
]
