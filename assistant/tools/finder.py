"""Finding tools by what they do: BM25 over every registered tool's name and description, in
every language a pack gives search words for, for catalogues too large to send whole."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from assistant.locales import Packs, current, language_of
from assistant.locales import words as packs
from assistant.tools.tool import Tool

_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def words(text: str) -> list[str]:
    """The stems of ``text``: camelCase and snake_case split, each language's endings cut, and
    each word followed by the English words tools are described in, when its pack's
    ``tool_search`` gives them (Russian stems, English synonyms)."""
    out: list[str] = []
    for raw in _WORD.findall(_CAMEL.sub(" ", text)):
        word = raw.lower()
        out.append(_stem(word))
        out.extend(_stem(w) for w in _english(word).split())
    return out


def _stem(word: str) -> str:
    for ending in _endings(language_of(word[:1])):
        if len(word) - len(ending) >= 3 and word.endswith(ending):
            return word[: -len(ending)]
    return word


def _endings(language: str) -> tuple[str, ...]:
    return _endings_in(current(), language)


@cache
def _endings_in(packs_in_use: Packs, language: str) -> tuple[str, ...]:  # once a set of packs
    found = (packs.of(language, "tool_search") or {}).get("endings", [])
    return tuple(sorted(found, key=len, reverse=True))


def _english(word: str) -> str:
    """The English words for a word: a whole-word synonym, else its longest known beginning."""
    if (meaning := packs.table("tool_search.synonyms").get(word)) is not None:
        return str(meaning)
    stems = packs.table("tool_search.stems")
    for size in range(min(len(word), 10), 2, -1):
        if (meaning := stems.get(word[:size])) is not None:
            return str(meaning)
    return ""


@dataclass(frozen=True)
class Found:
    """A tool that matches a query, and how well."""

    tool: Tool
    score: float


class Finder:
    """A BM25 index of tools (k1 1.2, b 0.75), rebuilt when the set of tools changes."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = list(tools)
        self._docs = [Counter(_document(t)) for t in self._tools]
        self._average = sum(sum(d.values()) for d in self._docs) / max(len(self._docs), 1)
        frequency: Counter[str] = Counter()
        for doc in self._docs:
            frequency.update(doc.keys())
        total = len(self._docs)
        self._idf = {w: math.log(1 + (total - n + 0.5) / (n + 0.5)) for w, n in frequency.items()}

    def search(self, query: str, limit: int = 5) -> list[Found]:
        """The best ``limit`` tools for ``query``, best first; none when nothing matches."""
        terms = set(words(query[:500]))
        scored = [
            Found(t, self._score(terms, d)) for t, d in zip(self._tools, self._docs, strict=True)
        ]
        ranked = sorted((f for f in scored if f.score > 0), key=lambda f: -f.score)
        return ranked[:limit]

    def _score(self, terms: set[str], doc: Counter[str]) -> float:
        length = sum(doc.values())
        score = 0.0
        for term in terms & doc.keys():
            count = doc[term]
            norm = count + 1.2 * (1 - 0.75 + 0.75 * length / self._average)
            score += self._idf[term] * count * 2.2 / norm
        return score


def _document(tool: Tool) -> Sequence[str]:
    name = words(tool.name.replace("__", " "))
    params = " ".join(f"{k} {v}" for k, v in tool.param_docs.items())
    properties = tool.parameters.get("properties", {})
    fields = " ".join(str(k) for k in properties) if isinstance(properties, dict) else ""
    return [*name, *name, *words(tool.description), *words(f"{params} {fields}")]
