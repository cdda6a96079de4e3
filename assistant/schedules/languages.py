"""The words of the schedule language in each language people write in, as data.

Each table maps a word (or a short phrase) to the canonical English the reader understands;
adding a language is adding a table. English is always understood; other tables apply where
their script or words appear. Keys are lower case, matched against whole words only.
"""

from __future__ import annotations

from collections.abc import Mapping

# Canonical phrases for everyday English that the core reader does not take as they are.
ENGLISH: Mapping[str, str] = {
    "a couple of": "2",
    "couple of": "2",
    "half an hour": "30 minutes",
    "half a hour": "30 minutes",
    "a quarter of an hour": "15 minutes",
    "quarter of an hour": "15 minutes",
    "a quarter hour": "15 minutes",
    "an hour and a half": "90 minutes",
    "one and a half hours": "90 minutes",
    "midday": "noon",
    "oclock": ":00",
    "o'clock": ":00",
    "o clock": ":00",
    "each": "every",
    "every single day": "every day",
    "every day of the week": "every day",
    "each and every day": "every day",
    "on weekdays": "weekdays",
    "on workdays": "weekdays",
    "on weekends": "weekends",
    "week days": "weekdays",
    "work days": "weekdays",
    "mon to fri": "weekdays",
    "monday to friday": "weekdays",
    "monday through friday": "weekdays",
    "mon-fri": "weekdays",
    "every weekday morning": "weekdays morning",
    "once a day": "every day",
    "twice a day": "every day",
    "twice daily": "every day",
    "once a week": "every 1 week",
    "every 24 hours": "every 24h",
    "fortnightly": "every 2 weeks",
    "every fortnight": "every 2 weeks",
    "every other day": "every 2 days",
    "every other week": "every 2 weeks",
    "every second day": "every 2 days",
    "hourly": "every hour",
    "every hour on the hour": "@hourly",
    "day after tomorrow": "day after tomorrow",
    "the day after tomorrow": "day after tomorrow",
    "today at noon": "today noon",
    "every half an hour": "every 30 minutes",
    "every half hour": "every 30 minutes",
    "every morning": "every day morning",
    "every evening": "every day evening",
    "every night": "every day night",
    "every afternoon": "every day afternoon",
    "every week": "every 1 week",
}

# Russian: word forms to canonical English; numbers and clock times stay as they are.
RUSSIAN: Mapping[str, str] = {
    "через час": "in 1 hour",
    "через минуту": "in 1 minute",
    "через день": "in 1 day",
    "через неделю": "in 1 week",
    "через": "in",
    "спустя": "in",
    "полчаса": "30 minutes",
    "полтора часа": "90 minutes",
    "четверть часа": "15 minutes",
    "минуту": "minute", "минуты": "minutes", "минут": "minutes", "мин": "minutes",
    "секунду": "second", "секунды": "seconds", "секунд": "seconds", "сек": "seconds",
    "час": "hour", "часа": "hours", "часов": "hours", "ч": "h",
    "день": "day", "дня": "days", "дней": "days", "сутки": "day", "суток": "days",
    "неделю": "week", "недели": "weeks", "недель": "weeks",
    "сегодня": "today", "завтра": "tomorrow", "послезавтра": "day after tomorrow",
    "в": "at", "во": "at", "к": "at",
    "утра": "am", "утром": "morning", "вечера": "pm", "вечером": "evening",
    "ночи": "am", "ночью": "night", "днём": "afternoon", "днем": "afternoon",
    "полдень": "noon", "полночь": "midnight",
    "каждый": "every", "каждую": "every", "каждое": "every", "каждые": "every",
    "каждая": "every", "ежедневно": "daily", "ежечасно": "every hour",
    "еженедельно": "every week", "ежемесячно": "monthly", "по будням": "weekdays",
    "по рабочим дням": "weekdays", "по выходным": "weekends", "в выходные": "weekends",
    "понедельник": "monday", "вторник": "tuesday", "среду": "wednesday", "среда": "wednesday",
    "четверг": "thursday", "пятницу": "friday", "пятница": "friday", "субботу": "saturday",
    "суббота": "saturday", "воскресенье": "sunday",
    "по понедельникам": "mondays", "по вторникам": "tuesdays", "по средам": "wednesdays",
    "по четвергам": "thursdays", "по пятницам": "fridays", "по субботам": "saturdays",
    "по воскресеньям": "sundays",
    "один": "1", "одну": "1", "одна": "1", "два": "2", "две": "2", "три": "3", "четыре": "4",
    "пять": "5", "шесть": "6", "семь": "7", "восемь": "8", "девять": "9", "десять": "10",
    "пятнадцать": "15", "двадцать": "20", "тридцать": "30", "сорок": "40",
    "и": "and",
    "числа": "",
    "января": "january", "февраля": "february", "марта": "march", "апреля": "april",
    "мая": "may", "июня": "june", "июля": "july", "августа": "august",
    "сентября": "september", "октября": "october", "ноября": "november",
    "декабря": "december",
}  # fmt: skip

TABLES: tuple[Mapping[str, str], ...] = (ENGLISH, RUSSIAN)
LONGEST = max(len(key.split()) for table in TABLES for key in table)
