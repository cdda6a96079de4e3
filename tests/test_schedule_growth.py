"""The schedule language's newer families: periods of days and months, ordinal lists, days of
the year, holidays, day/month dates, work hours, starts and ends, in English and Russian."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.errors import ScheduleError
from assistant.schedules import read_schedule
from assistant.schedules.schedule import from_json, next_after, to_json

NOW = datetime(2026, 11, 27, 8, 0, tzinfo=UTC)  # Friday 09:00 in Berlin
ZONE = "Europe/Berlin"


def runs(text: str, count: int = 4) -> tuple[str, list[str]]:
    parsed = read_schedule(text, ZONE, NOW)
    assert from_json(to_json(parsed.schedule)) == parsed.schedule  # stored and read back whole
    found = [parsed.first_run]
    while len(found) < count and (following := next_after(parsed.schedule, found[-1])):
        found.append(following)
    local = [r.astimezone(ZoneInfo(ZONE)) for r in found]
    return parsed.description, [f"{r:%a %d %b %H:%M}" for r in local]


@pytest.mark.parametrize(
    ("text", "said", "first"),
    [
        ("weekly on wednesdays at 9", "every Wednesday at 09:00", ["Wed 02 Dec 09:00", "Wed 09 Dec 09:00"]),
        ("every 4th day at 9", "every 4 days at 09:00", ["Sat 28 Nov 09:00", "Wed 02 Dec 09:00", "Sun 06 Dec 09:00"]),
        ("every 3 days at 9am", "every 3 days at 09:00", ["Sat 28 Nov 09:00", "Tue 01 Dec 09:00"]),
        ("каждые 3 дня в 9:00", "every 3 days at 09:00", ["Sat 28 Nov 09:00", "Tue 01 Dec 09:00"]),
        ("every other month on the 4th at 9", "on the 4th of every other month at 09:00", ["Fri 04 Dec 09:00", "Thu 04 Feb 09:00", "Sun 04 Apr 09:00"]),
        ("first and third friday of each month at 9", "on the first and third Friday of every month", ["Fri 04 Dec 09:00", "Fri 18 Dec 09:00", "Fri 01 Jan 09:00"]),
        ("every july 4th at 9", "every year on 4 July at 09:00", ["Sun 04 Jul 09:00", "Tue 04 Jul 09:00"]),
        ("daily except mondays at 9", "every Tuesday, Wednesday, Thursday, Friday, Saturday and Sunday", ["Sat 28 Nov 09:00", "Sun 29 Nov 09:00", "Tue 01 Dec 09:00"]),
        ("каждый день кроме понедельника в 9:00", "every Tuesday, Wednesday", ["Sat 28 Nov 09:00", "Sun 29 Nov 09:00", "Tue 01 Dec 09:00"]),
        ("every day at 9 until june 1", "until Tue 01 Jun 2027", ["Sat 28 Nov 09:00"]),
        ("каждый день в 9:00 до 1 июня", "until Tue 01 Jun 2027", ["Sat 28 Nov 09:00"]),
        ("every monday at 9 starting next week", "starting Mon 30 Nov 2026", ["Mon 30 Nov 09:00", "Mon 07 Dec 09:00"]),
        ("каждый понедельник в 9:00 начиная со следующей недели", "starting Mon 30 Nov 2026", ["Mon 30 Nov 09:00"]),
        ("every day at 9 for 5 times", "5 times (the last on Wed 02 Dec 2026 09:00)", ["Sat 28 Nov 09:00", "Sun 29 Nov 09:00"]),
        ("каждый день в 9:00 5 раз", "5 times", ["Sat 28 Nov 09:00"]),
        ("in a few minutes", "once on Fri 27 Nov 2026 at 09:03", ["Fri 27 Nov 09:03"]),
        ("через несколько минут", "once on Fri 27 Nov 2026 at 09:03", ["Fri 27 Nov 09:03"]),
        ("25/12 at 9:00", "once on Fri 25 Dec 2026 at 09:00", ["Fri 25 Dec 09:00"]),
        ("on christmas at 9am", "once on Fri 25 Dec 2026 at 09:00", ["Fri 25 Dec 09:00"]),
        ("new year's eve at 11:59pm", "once on Thu 31 Dec 2026 at 23:59", ["Thu 31 Dec 23:59"]),
        ("в канун нового года в 23:59", "once on Thu 31 Dec 2026 at 23:59", ["Thu 31 Dec 23:59"]),
        ("every 15 minutes during work hours", "every 15 minutes on weekdays from 09:00 to 16:45", ["Fri 27 Nov 09:15", "Fri 27 Nov 09:30"]),
        ("каждую первую и третью пятницу месяца в 9:00", "on the first and third Friday", ["Fri 04 Dec 09:00", "Fri 18 Dec 09:00"]),
        ("каждые 2 месяца 4 числа в 9:00", "on the 4th of every other month", ["Fri 04 Dec 09:00", "Thu 04 Feb 09:00"]),
        ("еженедельно по средам в 9:00", "every Wednesday at 09:00", ["Wed 02 Dec 09:00"]),
        ("каждый четвертый день в 9:00", "every 4 days at 09:00", ["Sat 28 Nov 09:00", "Wed 02 Dec 09:00"]),
        ("каждое 4 июля в 9:00", "every year on 4 July at 09:00", ["Sun 04 Jul 09:00"]),
        ("25/12 в 9:00", "once on Fri 25 Dec 2026 at 09:00", ["Fri 25 Dec 09:00"]),
        ("через пару минут", "once on Fri 27 Nov 2026 at 09:02", ["Fri 27 Nov 09:02"]),
        ("в рабочее время каждые 15 минут", "every 15 minutes on weekdays", ["Fri 27 Nov 09:15"]),
        ("каждые 30 минут в рабочее время", "every 30 minutes on weekdays from 09:00 to 16:30", ["Fri 27 Nov 09:30"]),
    ],
)  # fmt: skip
def test_the_newer_families_read_exactly(text, said, first):
    description, found = runs(text)
    assert said in description, description
    assert found[: len(first)] == first


def test_an_end_ends_the_task_and_a_count_runs_that_many_times():
    _, counted = runs("every day at 9 for 3 times", count=10)
    assert counted == ["Sat 28 Nov 09:00", "Sun 29 Nov 09:00", "Mon 30 Nov 09:00"]
    _, ended = runs("every day at 9 until nov 30", count=10)
    assert ended[-1] == "Mon 30 Nov 09:00"  # the last day counts


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("every monday", "which days but not at what time"),
        ("каждый понедельник", "which days but not at what time"),
        ("tomorrow", "no time of day"),
        ("every 7 minutes during work hours", "a step that fits an hour"),
        ("in 5 minutes for 3 times", "goes with a repeating schedule"),
        ("every day at 9 for 0 times", "from 1 to 1000"),
        ("every day at 9 until june 31", "June has no day 31"),
        ("every day at 9 until someday", "is not a day I can read"),
        ("every day at 9 starting dec 10 until dec 1", "ends before its first run"),
        ("every 400 days at 9am", "from 1 to 366 days"),
        ("every february 30 at 9", "February has no day 30"),
    ],
)
def test_refusals_say_what_is_missing(text, reason):
    with pytest.raises(ScheduleError, match=reason):
        read_schedule(text, ZONE, NOW)


@pytest.mark.parametrize("text", ["in ²m", "in ⑤m", "every ②m", "²:30", "in 𝟓 minutes", "⓪⓪:⓪⓪"])
def test_unicode_digits_are_read_as_digits(text):
    read_schedule(text, ZONE, NOW)


@pytest.mark.parametrize("text", ["in ᧚m", "at ᧚:30", "every ᧚ days at 9", "in 5 ⁵m"])
def test_other_digit_characters_get_an_answer_not_a_crash(text):
    with pytest.raises(ScheduleError):
        read_schedule(text, ZONE, NOW)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["in", "every", "at", "until", "for", "times", "starting", "day", "m", "on", "of", "the", "and", ":", "/", "²", "⑤", "᧚", "9", "31", "12"]),
            st.text(alphabet=st.characters(whitelist_categories=("Nd", "No", "Nl")), min_size=1, max_size=3),
        ),
        max_size=12,
    )
)  # fmt: skip
def test_any_words_and_digits_get_an_answer_or_a_clear_refusal(words):
    with contextlib.suppress(ScheduleError):
        read_schedule(" ".join(words), ZONE, NOW)
