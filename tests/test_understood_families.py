"""The schedule families people write, read without a model in both languages, through the
real runtime: days of the month, weekdays of a month or a year, repeats by period, misspelt
days, reminders before an event (its time given, or asked), and casual tails."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from test_questions import no_model, talk  # noqa: F401  (no_model: autouse)
from test_questions import reminders as tasks

from assistant.errors import ScheduleError
from assistant.schedules.parse import read_schedule

# The clock: Saturday 14 March 2026, 10:26 in Berlin (UTC+1 until 29 March, then UTC+2).
FAMILIES = [
    ("remind me on the first of each month at 9 to pay rent", "pay rent", "2026-04-01T07:00"),
    ("remind me at the end of each month at 9 to back up", "back up", "2026-03-31T07:00"),
    ("remind me every 3rd month on the 4th at 9 to change the filter", "change the filter",
     "2026-04-04T07:00"),
    ("remind me on the 4th and 10th of every month at 9 to pay bills", "pay bills",
     "2026-04-04T07:00"),
    ("remind me on the fourth thursday in november at 10 to buy a turkey", "buy a turkey",
     "2026-11-26T09:00"),
    ("remind me every year on the last sunday of march at 10 to change the clocks",
     "change the clocks", "2026-03-29T08:00"),
    ("remind me once a year on march 8 at 10 to buy flowers", "buy flowers", "2027-03-08T09:00"),
    ("remind me every wednsday at 9 to take out the trash", "take out the trash",
     "2026-03-18T08:00"),
    ("remind me twice a day at 9 and 21 to take pills", "take pills", "2026-03-14T20:00"),
    ("напоминай через день в 9 поливать цветы", "поливать цветы", "2026-03-15T08:00"),
    ("каждое утро напоминай делать зарядку", "делать зарядку", "2026-03-15T08:00"),
    ("каждый вечер в 22 напоминай читать", "читать", "2026-03-14T21:00"),
    ("напоминай по вторникам и четвергам в 19 про тренировку", "тренировку", "2026-03-17T18:00"),
    ("напоминай каждое 1 число в 10 платить за квартиру", "платить за квартиру",
     "2026-04-01T08:00"),
    ("напоминай 4 и 10 числа в 9 платить счета", "платить счета", "2026-04-04T07:00"),
    ("напоминай каждые 3 месяца 4 числа в 9 менять фильтр", "менять фильтр", "2026-04-04T07:00"),
    ("напоминай каждый год 8 марта в 10 купить цветы", "купить цветы", "2027-03-08T09:00"),
    ("напоминай раз в год 8 марта в 10 поздравить маму", "поздравить маму", "2027-03-08T09:00"),
    ("напомни на следующей неделе в среду в 10 позвонить врачу", "позвонить врачу",
     "2026-03-18T09:00"),
    ("напоминай в первый понедельник месяца в 10 сдавать отчёт", "сдавать отчёт",
     "2026-04-06T08:00"),
    ("напоминай в последний день месяца в 10 платить", "платить", "2026-03-31T08:00"),
    ("напоминай в конце каждого месяца в 9 делать бэкап", "делать бэкап", "2026-03-31T07:00"),
    ("напоминай в четвёртый четверг ноября в 10 купить индейку", "купить индейку",
     "2026-11-26T09:00"),
    ("напоминай по срдам в 9 выносить мусор", "выносить мусор", "2026-03-18T08:00"),
    ("напоминай два раза в день в 9 и 21 пить таблетки", "пить таблетки", "2026-03-14T20:00"),
    ("remind me in 10 minutes to stretch pls", "stretch", "2026-03-14T09:36"),
    ("remind me in 10 minutes to stretch thx", "stretch", "2026-03-14T09:36"),
    ("напомни через 10 минут позвонить пжлст", "позвонить", "2026-03-14T09:36"),
    ("напомни через 10 минут позвонить плиз", "позвонить", "2026-03-14T09:36"),
]  # fmt: skip


@pytest.mark.parametrize(("message", "what", "first"), FAMILIES)
async def test_a_family_of_schedules_is_understood(tmp_path, clock, message, what, first):
    said = await talk(tmp_path, clock, message)
    (task,) = tasks(tmp_path)
    assert task[0] == what
    assert task[1].startswith(first)
    assert "language model" not in said.casefold() and "языков" not in said


@pytest.mark.parametrize(
    ("message", "what", "at"),
    [
        ("remind me 30 minutes before the 3pm call to prepare", "prepare", "2026-03-14T13:30"),
        ("remind me to prepare 30 minutes before the 3pm call", "prepare", "2026-03-14T13:30"),
        ("напомни за 15 минут до звонка в 15:00 открыть ноутбук", "открыть ноутбук",
         "2026-03-14T13:45"),
        ("напомни взять зонт за час до выхода завтра в 9", "взять зонт", "2026-03-15T07:00"),
    ],
)  # fmt: skip
async def test_a_reminder_before_an_event_with_its_time(tmp_path, clock, message, what, at):
    await talk(tmp_path, clock, message)
    ((words, first),) = tasks(tmp_path)
    assert (words, first[:16]) == (what, at)


@pytest.mark.parametrize(
    ("message", "asked", "answer", "what", "at"),
    [
        ("remind me an hour before the meeting", "When is “meeting”?", "at 15:00", "meeting",
         "2026-03-14T13:00"),
        ("напомни за час до встречи взять документы", "Когда «встречи»?", "в 15:00",
         "взять документы", "2026-03-14T13:00"),
    ],
)  # fmt: skip
async def test_an_event_without_a_time_is_asked_about_never_read_as_a_delay(
    tmp_path, clock, message, asked, answer, what, at
):
    said = await talk(tmp_path, clock, message)
    assert asked in said
    assert tasks(tmp_path) == []  # not "in an hour"
    await talk(tmp_path, clock, answer)
    ((words, first),) = tasks(tmp_path)
    assert (words, first[:16]) == (what, at)


async def test_an_event_already_past_is_refused_and_nothing_is_stored(tmp_path, clock):
    said = await talk(tmp_path, clock, "remind me 2 hours before the 11am call to prepare")
    assert "past" in said
    assert tasks(tmp_path) == []


async def test_every_other_day_only_after_a_verb_that_repeats(tmp_path, clock):
    await talk(tmp_path, clock, "напомни через день полить цветы")
    ((_, once),) = tasks(tmp_path)
    assert once.startswith("2026-03-15T09:26")  # in a day
    await talk(tmp_path, clock, "напоминай через день поливать фикус")
    repeating = dict(tasks(tmp_path))["поливать фикус"]
    assert repeating.startswith("2026-03-16T09:26")  # every other day, the first in two


def test_a_russian_schedule_reads_as_the_same_rule_in_english_words():
    now = datetime(2026, 11, 27, 8, tzinfo=UTC)
    pairs = [
        ("по срдам в 9", "every wednesday at 9"),
        ("в четвёртый четверг ноября в 10", "on the fourth thursday in november at 10"),
        ("каждые 3 месяца 4 числа в 9", "every 3 months on the 4th at 9"),
        ("каждый год в последнее воскресенье марта в 10", "every year on the last sunday of march at 10"),
        ("4 и 10 числа в 9", "on the 4th and 10th of every month at 9"),
    ]  # fmt: skip
    for russian, english in pairs:
        ru, en = (read_schedule(t, "Europe/Moscow", now) for t in (russian, english))
        assert (ru.schedule, ru.first_run) == (en.schedule, en.first_run), russian


@pytest.mark.parametrize(
    "text",
    ["on the 4th and 32nd of every month at 9", "every fifth thursday in november at 10",
     "среди дня в 9", "every wendsdayz at 9", "every 3rd month on the 40th at 9"],
)  # fmt: skip
def test_what_is_not_a_schedule_is_refused_clearly(text):
    with pytest.raises(ScheduleError) as caught:
        read_schedule(text, "Europe/Moscow", datetime(2026, 11, 27, 8, tzinfo=UTC))
    assert caught.value.reason in ("unknown_word", "unread", "invalid")


async def test_the_new_rules_are_told_in_the_persons_language(tmp_path, clock):
    said = await talk(
        tmp_path,
        clock,
        "/lang ru",
        "напоминай каждый год в последнее воскресенье марта в 10 перевести часы",
        "напоминай в первый понедельник месяца в 10 сдавать отчёт",
        "напоминай 4 и 10 числа в 9 платить счета",
        "/tasks",
    )
    assert "каждый год в последний вс марта в 10:00" in said
    assert "в 1-й пн каждого месяца в 10:00" in said
    assert "4 и 10 числа каждого месяца в 09:00" in said


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("который час в Питере", "Europe/Moscow"),
        ("what time is it in NYC", "America/New_York"),
        ("сколько времени в ЕКБ", "Asia/Yekaterinburg"),
        ("what's the time in SF", "America/Los_Angeles"),
    ],
)
async def test_cities_by_their_short_names_and_nicknames(tmp_path, clock, message, said):
    assert said in await talk(tmp_path, clock, message)


async def test_a_nickname_sets_the_zone_and_moves_the_tasks(tmp_path, clock):
    said = await talk(tmp_path, clock, "каждое утро напоминай делать зарядку", "я в Питере")
    assert "Europe/Moscow" in said
    ((_, first),) = tasks(tmp_path)
    assert first.startswith("2026-03-15T06:00")  # 09:00 in Moscow, as it was 09:00 in Berlin
