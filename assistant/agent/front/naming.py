"""Naming what the local step acts on: a task or a note by its words, a task named as one,
the bare hour a question asks about, and the lines that say none matches."""

from __future__ import annotations

import re

from assistant.agent.guards.destructive import names_kind
from assistant.locales import tr, words
from assistant.locales.naming import language_name
from assistant.locales.packs import current


def without_hour(canonical: str, hour: str) -> str:
    """A schedule's canonical words without the bare hour that made it ambiguous ("tomorrow
    at 3" → "tomorrow", "in 3 days at 3" → "in 3 days"): the one after "at", else the last."""
    said = re.escape(hour)
    found = list(re.finditer(rf"\bat {said}(?![\d:])", canonical))
    found = found or list(re.finditer(rf"(?<![\d:]){said}(?![\d:])", canonical))
    if not found:
        return canonical
    cut = found[-1]
    return " ".join(f"{canonical[: cut.start()]} {canonical[cut.end() :]}".split())


def task_named(text: str) -> bool:
    """Whether a message names a task as one: a reminder, a task, an alarm (the packs' words)."""
    return names_kind(text, "task")


def names(item: str, text: str) -> bool:
    """Whether every word of ``item`` (its fillers aside) starts a word of ``text``."""
    fillers = words.listed("item_fillers")
    wanted = [w for w in stems(item) if w not in fillers]
    have = stems(text)
    return bool(wanted) and all(
        any(h.startswith(w[: max(3, len(w) - 2)]) for h in have) for w in wanted
    )


def cut(text: str, limit: int = 80) -> str:
    """The text, cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def stems(text: str) -> list[str]:
    """The words of ``text``, lower case, ``ё`` as ``е``."""
    return re.findall(r"[^\W_]+", text.casefold().replace("ё", "е"))


def expired(language: str) -> str:
    """The line for a question that is no longer open."""
    return tr(language, "That question has expired; say the reminder again with its time.")


def no_task(language: str, item: str) -> str:
    """The line for words that name none of the person's tasks."""
    return tr(language, "None of your tasks matches “{item}”. /tasks lists them.", item=item)


def no_note(language: str, item: str) -> str:
    """The line for words that name none of the person's notes."""
    return tr(language, "None of your notes matches “{item}”. /notes lists them.", item=item)


def not_spoken(code: str, language: str) -> str:
    """The line for a language asked for that no pack speaks: the ones spoken, nothing changed."""
    spoken = ", ".join(language_name(c, language) for c in current().codes())
    return tr(
        language,
        "I can answer in {spoken}; {name} is not one of them yet.",
        spoken=spoken,
        name=language_name(code, language),
    )
