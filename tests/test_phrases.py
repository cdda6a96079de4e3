"""The phrase list: everyday schedule text, in English and Russian, read exactly as expected."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from assistant.errors import ScheduleError
from assistant.schedules.parse import read_schedule

ZONE = "Europe/Berlin"
NOW = datetime(2026, 3, 14, 9, 26, 53, tzinfo=UTC)  # Saturday, 10:26:53 in Berlin
PHRASES = tomllib.loads((Path(__file__).parent / "data" / "phrases.toml").read_text("utf-8"))
CASES = [(lang, text, expected) for lang, rows in PHRASES.items() for text, expected in rows]


def reading(text: str) -> str:
    """How the reader takes ``text``, in the list's notation."""
    try:
        parsed = read_schedule(text, ZONE, NOW)
    except ScheduleError as exc:
        return f"refused: {exc}"
    local = parsed.first_run.astimezone(ZoneInfo(ZONE))
    return f"{parsed.schedule.kind} {local:%Y-%m-%d %H:%M:%S}"


def matches(got: str, expected: str) -> bool:
    if expected.startswith("refused: "):
        return got.startswith("refused: ") and expected.removeprefix("refused: ") in got
    kind, _, when = expected.partition(" ")
    full = when if when.count("-") == 2 else f"2026-{when}"
    stamp = full if full.count(":") == 2 else f"{full}:00"
    return got == f"{kind} {stamp}"


def test_the_list_is_large_and_covers_both_languages():
    counts = {lang: len(rows) for lang, rows in PHRASES.items()}
    assert sum(counts.values()) >= 400 and counts["ru"] >= 80


@pytest.mark.parametrize(("lang", "text", "expected"), CASES, ids=[c[1] for c in CASES])
def test_each_phrase_is_read_as_expected(lang, text, expected):
    got = reading(text)
    assert matches(got, expected), f"{text!r} ({lang}): expected {expected}, got {got}"
