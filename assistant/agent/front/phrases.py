"""What the local step says, in the language the request was made in (English by default)."""

from __future__ import annotations

from datetime import datetime

_SAID: dict[str, dict[str, str]] = {
    "en": {
        "which_time": "At what time should I remind you of “{what}” ({when})? Pick one, or say "
        "it with the time, e.g. “{example}”.",
        "what_text": "What should I remind you of ({when})? Say it in a few words.",
        "lang_set": "I will answer you in English.",
        "lang_is": "I answer you in English. /lang ru switches to Russian.",
        "lang_unknown": "I speak English (/lang en) and Russian (/lang ru).",
        "zone_set": "Timezone set to {zone}; it is {clock} there now.",
        "zone_moved": "Tasks moved to it, each at the same time of day: {count}.",
        "alarm": "⏰ alarm",
        "no_task": "None of your tasks matches “{item}”. /tasks lists them.",
        "several": "Several of your tasks match “{item}”; which one?",
        "which_one": "Which one? Say its number, or press it.",
        "confirm": "Please confirm: {action}.",
        "not_asked": "I could not ask you to confirm, so nothing was changed.",
        "cancel_task": "cancel", "pause_task": "pause", "resume_task": "resume",
        "delete_note": "delete note",
        "no_note": "None of your notes matches “{item}”. /notes lists them.",
        "several_notes": "Several of your notes match “{item}”; which one?",
        "time_here": "It is {clock} on {day} ({zone}).",
        "time_in": "In {place} it is {clock} on {day} ({zone}); {offset}.",
        "same": "the same time as yours",
        "ahead": "{span} ahead of you", "behind": "{span} behind you",
        "unknown_place": "I do not know where “{place}” is. Name a city or a country, "
        "e.g. “what time is it in Tokyo”.",
        "expired": "That question has expired; say the reminder again with its time.",
        "no_model": "I have no language model, so I understood only what I can do without "
        "one: reminders (“remind me in 10 minutes to stretch”, “every weekday at 6pm water "
        "the plants”), notes (“note that the locker code is 4312”), your lists (“what are my "
        "reminders”, “show my notes”), the time (“what time is it in Tokyo”) and the slash "
        "commands (/help). For anything else, set up a model: {why}",
    },
    "ru": {
        "which_time": "Во сколько напомнить «{what}» ({when})? Выберите время или скажите его, "
        "например: «{example}».",
        "what_text": "О чём напомнить ({when})? Скажите в двух словах.",
        "lang_set": "Буду отвечать вам по-русски.",
        "lang_is": "Я отвечаю вам по-русски. /lang en переключит на английский.",
        "lang_unknown": "Я говорю по-английски (/lang en) и по-русски (/lang ru).",
        "zone_set": "Часовой пояс: {zone}; там сейчас {clock}.",
        "zone_moved": "Задачи перенесены в него, каждая в то же время суток: {count}.",
        "alarm": "⏰ будильник",
        "no_task": "Ни одна ваша задача не подходит под «{item}». /tasks покажет их все.",
        "several": "Под «{item}» подходят несколько задач; какую?",
        "which_one": "Какую? Скажите её номер или нажмите его.",
        "confirm": "Подтвердите: {action}.",
        "not_asked": "Не получилось спросить подтверждение, поэтому ничего не изменено.",
        "cancel_task": "отменить", "pause_task": "приостановить", "resume_task": "возобновить",
        "delete_note": "удалить заметку",
        "no_note": "Ни одна ваша заметка не подходит под «{item}». /notes покажет их все.",
        "several_notes": "Под «{item}» подходят несколько заметок; какую?",
        "time_here": "Сейчас {clock}, {day} ({zone}).",
        "time_in": "В {place} сейчас {clock}, {day} ({zone}); {offset}.",
        "same": "время то же, что у вас",
        "ahead": "на {span} впереди вас", "behind": "на {span} позади вас",
        "unknown_place": "Не знаю, где «{place}». Назовите город или страну, например: "
        "«который час в Токио».",
        "expired": "Этот вопрос устарел; повторите напоминание вместе со временем.",
        "no_model": "Языковой модели нет, поэтому я понимаю только то, что умею без неё: "
        "напоминания («напомни через 10 минут размяться», «каждый будний день в 18:00 полить "
        "цветы»), заметки («запиши, что код от шкафчика 4312»), списки («какие у меня "
        "напоминания», «покажи заметки»), время («который час в Токио») и команды (/help). "
        "Для остального подключите модель: {why}",
    },
}  # fmt: skip
_DAYS = {
    "ru": ("понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье"),
}
_MONTHS = {
    "ru": ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
           "сентября", "октября", "ноября", "декабря"),
}  # fmt: skip
_HOURS = {"en": ("hour", "hours"), "ru": ("ч", "ч")}


def say(language: str, key: str, **values: str) -> str:
    """A phrase in ``language`` (English when there is none), with its values filled in."""
    table = _SAID.get(language, _SAID["en"])
    return table[key].format(**values)


def day(moment: datetime, language: str) -> str:
    """``Friday 27 November`` or ``пятница, 27 ноября``."""
    if language in _DAYS:
        month = _MONTHS[language][moment.month - 1]
        return f"{_DAYS[language][moment.weekday()]}, {moment.day} {month}"
    return f"{moment:%A} {moment.day} {moment:%B}"


def offset(minutes: int, language: str) -> str:
    """How far a zone is from the user's: ``3 hours ahead of you``, ``5:30 hours behind``."""
    if minutes == 0:
        return say(language, "same")
    hours, rest = divmod(abs(minutes), 60)
    unit = _HOURS.get(language, _HOURS["en"])[hours != 1 or bool(rest)]
    span = f"{hours}:{rest:02d} {unit}" if rest else f"{hours} {unit}"
    return say(language, "ahead" if minutes > 0 else "behind", span=span)


def language_of(text: str) -> str:
    """``ru`` for text in Cyrillic, else ``en``."""
    return "ru" if any("а" <= c <= "я" or c == "ё" for c in text.casefold()) else "en"


_NAMED = {
    "english": "en", "en": "en", "английский": "en", "по-английски": "en", "английском": "en",
    "russian": "ru", "ru": "ru", "русский": "ru", "по-русски": "ru", "русском": "ru",
}  # fmt: skip


def known_language(code: str) -> str:
    """A language code or name reduced to one the assistant speaks ("ru-RU", "по-русски" →
    "ru"), or ""."""
    said = code.strip().casefold().replace("_", "-")
    short = _NAMED.get(said) or said.split("-")[0]
    return short if short in _SAID else ""


def spoken(person_language: str, text: str) -> str:
    """The language to answer in: the person's, else the one of their words."""
    return person_language or language_of(text)
