"""Finding tools by what they do: BM25 over every registered tool's name and description, in
English and Russian, for catalogues too large to send whole."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from assistant.tools.tool import Tool

_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_EN_ENDINGS = ("ing", "ies", "es", "ed", "s")
_RU_ENDINGS = sorted(
    [
        "ами",
        "ями",
        "ого",
        "его",
        "ому",
        "ему",
        "ыми",
        "ими",
        "ать",
        "ять",
        "ить",
        "еть",
        "ешь",
        "ует",
        "ают",
        "яют",
        "ись",
        "ась",
        "ой",
        "ей",
        "ий",
        "ый",
        "ая",
        "яя",
        "ое",
        "ее",
        "ые",
        "ие",
        "ам",
        "ям",
        "ах",
        "ях",
        "ом",
        "ем",
        "ов",
        "ев",
        "ую",
        "юю",
        "а",
        "я",
        "о",
        "е",
        "ы",
        "и",
        "у",
        "ю",
        "ь",
    ],
    key=len,
    reverse=True,
)
# Russian word stems to the English words tools are described in.
_RU_EN = {
    "погод": "weather forecast", "прогноз": "forecast", "температур": "temperature",
    "файл": "file", "папк": "folder directory", "документ": "document", "прочит": "read",
    "чита": "read", "запис": "write", "созда": "create", "удал": "delete remove",
    "найд": "find search", "най": "find search", "поиск": "search find", "иска": "search",
    "почт": "mail email", "письм": "email message", "отправ": "send", "сообщен": "message",
    "календар": "calendar event", "встреч": "meeting event", "событ": "event",
    "задач": "task issue todo", "заметк": "note", "напомин": "reminder", "напомн": "remind",
    "репозитор": "repository repo", "коммит": "commit", "ветк": "branch", "запрос": "request",
    "перевед": "translate", "перев": "translate", "курс": "rate exchange", "валют": "currency",
    "цен": "price", "акци": "stock", "новост": "news", "стать": "article", "страниц": "page",
    "сайт": "website page", "ссылк": "link url", "карт": "map", "маршрут": "route directions",
    "адрес": "address", "врем": "time", "дат": "date", "музык": "music", "песн": "song",
    "свет": "light lights", "лампа": "lamp light", "включ": "turn on", "выключ": "turn off",
    "дом": "home house", "температ": "temperature", "термостат": "thermostat",
    "фото": "photo image", "картинк": "image picture", "изображен": "image", "баз": "database",
    "таблиц": "table sheet spreadsheet", "счет": "invoice account", "плат": "payment",
    "контакт": "contact", "телефон": "phone", "звон": "call", "чат": "chat", "канал": "channel",
    "пользовател": "user", "список": "list", "спис": "list", "покаж": "show list",
    "посчита": "calculate", "вычисл": "calculate compute", "код": "code", "скрипт": "script",
    "сервер": "server", "логи": "logs", "лог": "log", "диск": "disk", "памят": "memory",
    "процесс": "process", "систем": "system", "рецепт": "recipe", "книг": "book",
    "фильм": "movie film", "перевод": "translate", "слов": "word dictionary",
    "определен": "definition", "вики": "wikipedia", "рейс": "flight", "билет": "ticket",
    "отел": "hotel", "поезд": "train",
}  # fmt: skip


# English words people use for what tools are described by.
_EN_EN = {
    "rain": "weather forecast", "snow": "weather forecast", "sunny": "weather forecast",
    "warm": "temperature weather", "cold": "temperature weather", "hot": "temperature weather",
    "meeting": "calendar event", "appointment": "calendar event",
    "trading": "stock price", "mail": "email", "song": "music play", "lamp": "light",
}  # fmt: skip


def words(text: str) -> list[str]:
    """The stems of ``text``: camelCase and snake_case split, English and Russian endings cut,
    Russian words followed by the English words of the same meaning."""
    out: list[str] = []
    for raw in _WORD.findall(_CAMEL.sub(" ", text)):
        word = raw.lower()
        out.append(_stem(word))
        if _cyrillic(word):
            out.extend(_stem(w) for w in _english(word).split())
        elif word in _EN_EN:
            out.extend(_stem(w) for w in _EN_EN[word].split())
    return out


def _cyrillic(word: str) -> bool:
    return "а" <= word[0] <= "я" or word[0] == "ё"


def _stem(word: str) -> str:
    endings = _RU_ENDINGS if _cyrillic(word) else _EN_ENDINGS
    for ending in endings:
        if len(word) - len(ending) >= 3 and word.endswith(ending):
            return word[: -len(ending)]
    return word


def _english(word: str) -> str:
    for size in range(min(len(word), 10), 2, -1):
        if (meaning := _RU_EN.get(word[:size])) is not None:
            return meaning
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
