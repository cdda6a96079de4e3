"""No model set up: a person who is not the owner is told in one line of their language that
this needs one; the owner once a day, pointed to `assistant doctor`; no setup reaches a chat."""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import timedelta

import pytest
from test_local_first import NOW, Channel

from assistant.app import Setup
from assistant.app.runtime import compose
from assistant.clock import FakeClock
from assistant.config import parse_config

OWNER, OTHER = 4242, 777
PLAIN = "That needs a language model, and none is set up here."
DAILY = (
    "I have no language model, so I do only what works without one: reminders, notes, your "
    "lists, the time and /help; `assistant doctor` says how to set one up."
)


@pytest.fixture(autouse=True)
def no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@asynccontextmanager
async def bot(tmp_path, **assistant):
    raw = {
        "assistant": {"data_dir": str(tmp_path), "timezone": "Europe/Berlin", **assistant},
        "telegram": {"allowed_user_ids": [OWNER, OTHER]},
    }
    clock = FakeClock(NOW)
    channel = Channel()
    async with compose(Setup(parse_config(raw), "test", tmp_path), clock, channel, channel) as rt:
        yield rt, clock


def no_setup_in(text: str) -> bool:
    return all(word not in text for word in ("OPENAI_API_KEY", "Ollama", "base_url", "\n"))


async def test_someone_not_the_owner_is_told_one_line_in_their_language(tmp_path):
    async with bot(tmp_path) as (runtime, _):
        english = await runtime.answer(await runtime.person(OTHER, OTHER), "tell me a joke")
        russian = await runtime.answer(await runtime.person(OTHER, OTHER, "", "ru"), "шутку")
    assert english.text == PLAIN
    assert russian.text == "Для этого нужна языковая модель, а она здесь не подключена."
    assert no_setup_in(english.text) and no_setup_in(russian.text)


async def test_the_owner_is_told_once_a_day_and_pointed_to_doctor(tmp_path):
    async with bot(tmp_path) as (runtime, clock):
        owner = await runtime.person(OWNER, OWNER)
        first = await runtime.answer(owner, "tell me a joke")
        again = await runtime.answer(owner, "and another one")
        clock.advance(timedelta(days=1))
        tomorrow = await runtime.answer(owner, "one more joke")
    assert first.text == DAILY and tomorrow.text == DAILY and again.text == PLAIN
    assert no_setup_in(first.text)


async def test_the_owners_day_is_their_own(tmp_path):
    async with bot(tmp_path) as (runtime, clock):  # 08:00 UTC: 09:00 in Berlin
        owner = await runtime.person(OWNER, OWNER)
        await runtime.answer(owner, "tell me a joke")
        clock.advance(timedelta(hours=14))  # 23:00 in Berlin: the same day
        late = await runtime.answer(owner, "one more")
        clock.advance(timedelta(hours=1))  # midnight in Berlin
        next_day = await runtime.answer(owner, "one more")
    assert late.text == PLAIN and next_day.text == DAILY


async def test_a_turn_that_reaches_the_missing_model_says_the_same(tmp_path):
    """With the local step off, a message goes to the model's turn, which is refused with the
    person's line, never the operator's setup."""
    async with bot(tmp_path, local_first=False) as (runtime, _):
        await runtime.people.set_language(OTHER, "ru")
        other = await runtime.answer(await runtime.person(OTHER, OTHER), "tell me a joke")
        owner = await runtime.answer(await runtime.person(OWNER, OWNER), "tell me a joke")
    assert other.text == "Для этого нужна языковая модель, а она здесь не подключена."
    assert owner.text == DAILY
