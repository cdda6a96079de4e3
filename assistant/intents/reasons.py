"""A request said with its reason beside it: "wake me up at 2pm, just got off nights",
«напомни в 12 дня пообедать, а то опять забуду». The request is read alone when the other
clause opens as a reason does (each pack's ``reason_openers``: "i", "because", «а то», «я»)."""

from __future__ import annotations

import re

from assistant.locales import words

# A clause ends at a comma, a semicolon, a dash between spaces, or a sentence's end.
_CLAUSE = re.compile(r"\s*[,;]\s+|\s+[-–—]\s+|[.!]\s+")
MOST_CLAUSES = 3  # splits tried: a message of many clauses is the model's


def splits(text: str) -> list[tuple[str, str]]:
    """Each (request, reason) a message's first clause marks make, the request first or last."""
    found: list[tuple[str, str]] = []
    for mark in list(_CLAUSE.finditer(text))[:MOST_CLAUSES]:
        before, after = text[: mark.start()].strip(), text[mark.end() :].strip()
        if before and after:
            found += [(before, after), (after, before)]
    return found


def is_reason(said: str) -> bool:
    """Whether a clause opens as a reason does (not a request, a question or a quote)."""
    folded = said.casefold().replace("ё", "е").strip()
    if not folded or folded.endswith("?") or any(q in folded for q in '"«»“”'):
        return False
    first = re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", folded)[:1]
    return bool(first) and first[0].replace("’", "'") in words.listed("reason_openers")


def without_reason(said: str) -> str:
    """A reminder's words without a reason said after them ("eat something, i always forget"
    is "eat something"); the words as they were when none follows."""
    for mark in list(_CLAUSE.finditer(said))[:MOST_CLAUSES]:
        if is_reason(said[mark.end() :]) and said[: mark.start()].strip():
            return said[: mark.start()].strip()
    return said
