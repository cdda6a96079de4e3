"""The person's language: from Telegram's language_code, /lang, or "speak English"; kept with
the person, told to the model, and used for what the assistant says without it."""

from __future__ import annotations

import pytest
from test_local_first import USER, running


async def test_lang_sets_and_shows_the_language(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        shown = await runtime.answer(person, "/lang")
        done = await runtime.answer(person, "/lang ru")
        profile = await runtime.people.get(USER)
        russian = await runtime.person(USER, USER)
        asked = await runtime.answer(russian, "remind me tomorrow to call mom")
        unknown = await runtime.answer(russian, "/lang klingon")
    assert "English" in shown.text and done.text == "Буду отвечать вам по-русски."
    assert profile.language == "ru" and russian.language == "ru"
    assert asked.text.startswith("Во сколько напомнить")  # an English request, a Russian reply
    assert "(/lang ru)" in unknown.text and "по-русски" in unknown.text


@pytest.mark.parametrize(
    ("said", "language"), [("speak English", "en"), ("говори по-русски", "ru")]
)
async def test_asking_in_words_sets_it(tmp_path, said, language):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, said)
        profile = await runtime.people.get(USER)
    assert profile.language == language


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("reply in German from now on", "I can answer in English, Russian; German is not one"),
        ("давай на испанском", "Я могу отвечать на языках: английский, русский; испанский — пока"),
    ],
)
async def test_a_language_no_pack_speaks_is_answered_and_nothing_changes(tmp_path, said, reply):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "/lang ru")
        answered = await runtime.answer(person, said)
        profile = await runtime.people.get(USER)
    assert answered.text.startswith(reply) and profile.language == "ru"


async def test_a_channels_hint_is_kept_the_first_time_only(tmp_path):
    async with running(tmp_path) as (runtime, _, _person):
        first = await runtime.person(USER, USER, "Ada", "ru-RU")
        again = await runtime.person(USER, USER, "Ada", "en")
        other = await runtime.person(7, 7, "Bob", "de")  # not one we speak: left unknown
    assert (first.language, again.language, other.language) == ("ru", "ru", "")


async def test_the_model_is_told_the_persons_language(tmp_path, monkeypatch):
    from fakehttp import fake_server
    from llm_fixtures import chat_reply

    monkeypatch.setenv("TEST_LLM_KEY", "k")
    async with fake_server() as server:
        server.script(chat_reply("Привет!"))
        async with running(tmp_path, f"{server.url}/v1") as (runtime, _, _person):
            russian = await runtime.person(USER, USER, "Ada", "ru")
            await runtime.answer(russian, "hello there, how are you?")
        system = server.requests[0].json()["messages"][0]["content"]
    assert "Reply in the user's language: Russian." in system


async def test_in_telegram_the_language_code_is_the_first_hint(tmp_path, clock, monkeypatch):
    from test_telegram import ADA, eventually, served

    async with served(tmp_path, clock, monkeypatch) as running_bot:
        telegram = running_bot.telegram
        telegram.language_code = "ru"
        telegram.message(ADA, "remind me tomorrow to call mom")  # English words, a Russian app
        await eventually(lambda: any("Во сколько напомнить" in t for t in telegram.texts()))
