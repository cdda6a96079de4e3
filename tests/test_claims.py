"""An answer that claims an action the turn did not do does not stand."""

from __future__ import annotations

import pytest
from agent_fixtures import ME, build_rig
from fakehttp import fake_server
from llm_fixtures import call, chat_reply

from assistant.agent.guards.claims import unfounded

CLAIMS = [
    ("remind me in 10 minutes to stretch", "Done: I will remind you to stretch at 10:36."),
    ("remind me to call mom tomorrow", "I've set a reminder for tomorrow."),
    ("set a reminder for 5pm: dentist", "Your reminder is set. See you at 5!"),
    ("напомни через 10 минут позвонить маме", "Готово! Напомню через 10 минут."),
    ("note that the locker code is 4312", "Noted. I saved the note."),
    ("запиши заметку: код 4312", "Сохранил заметку."),
    ("cancel the dentist reminder", "I cancelled the dentist reminder."),
]
NOT_CLAIMS = [
    ("remind me in 10 minutes to stretch", "When should I remind you?"),
    ("remind me in 10 minutes to stretch", "I can't set reminders without my tools, sorry."),
    ("what is a reminder app?", "Done right, a reminder app is a list that nags you."),
    ("how are you?", "Done for the day, I will rest. I've set my mind on it."),
    ("напомни через 10 минут", "Не могу поставить напоминание."),
]


@pytest.mark.parametrize(("asked", "answer"), CLAIMS)
def test_a_claimed_action_with_no_call_is_found(asked: str, answer: str) -> None:
    assert unfounded(asked, answer, ()) is not None


@pytest.mark.parametrize(("asked", "answer"), NOT_CLAIMS)
def test_questions_refusals_and_unasked_actions_are_not_claims(asked: str, answer: str) -> None:
    assert unfounded(asked, answer, ()) is None


def test_a_claim_backed_by_the_turns_own_call_stands() -> None:
    asked, answer = CLAIMS[0]
    assert unfounded(asked, answer, ("add_reminder",)) is None
    assert unfounded(asked, answer, ("save_note",)) is not None


def test_a_long_adversarial_answer_is_read_quickly() -> None:
    assert unfounded("remind me", "remind done " * 100_000, ()) is not None


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


async def test_a_model_that_claims_twice_without_a_call_gets_the_truth_told(server, conn, clock):
    rig = await build_rig(server, conn, clock, mode="native")
    claim = "Done: I will save the note about tea."
    server.script(chat_reply(claim), chat_reply(claim))
    answer = await rig.agent.reply(ME, "note that I like tea")
    assert answer.ending == "unfounded" and answer.text.startswith("I have not done that")
    assert "/note" in answer.text and rig.effects.notes == []
    told = server.requests[1].json()["messages"][-1]["content"]
    assert "no tool was called in this turn" in told
    await rig.inner.close()


async def test_a_model_told_of_its_claim_can_still_act(server, conn, clock):
    rig = await build_rig(server, conn, clock, mode="native")
    server.script(
        chat_reply("Done: the note is saved."),
        chat_reply(None, (call("c1", "save_note", {"content": "tea"}),)),
        chat_reply("Saved: tea."),
    )
    answer = await rig.agent.reply(ME, "note that I like tea")
    assert answer.text == "Saved: tea." and rig.effects.notes == ["tea"]
    await rig.inner.close()


async def test_an_unconfirmed_native_model_that_claims_switches_to_its_fallback(
    server, conn, clock
):
    # the check was answered in prose and schemas are refused: native now, text to fall back to
    server.script_probe(chat_reply("Hi!"), chat_reply("hello"))
    rig = await build_rig(server, conn, clock, mode="auto")
    written = '```json\n{"tool": "save_note", "args": {"content": "tea"}}\n```'
    server.script(chat_reply("Done: noted."), chat_reply(written), chat_reply("Saved."))
    answer = await rig.agent.reply(ME, "note that I like tea")
    assert rig.effects.notes == ["tea"] and "switched to writing tool calls as text" in answer.text
    assert "tools" in server.requests[0].json() and "tools" not in server.requests[1].json()
    await rig.inner.close()


def test_a_request_put_as_a_question_is_still_a_request() -> None:
    assert unfounded("can you remind me at 5?", "Done, I will remind you at 5.", ()) is not None


async def test_a_false_claim_is_never_shown_in_the_terminal_then_taken_back(
    tmp_path, clock, monkeypatch
):
    """The terminal streams answers, but not one that may claim an action: it is checked first."""
    from llm_fixtures import chat_stream
    from test_console import Terminal, setup_for

    from assistant.app.serve import chat

    monkeypatch.setenv("TEST_KEY", "k")
    async with fake_server() as llm:
        llm.script(
            chat_stream(("Done: I will ", "remind you at 5pm.")),
            chat_stream(("Done: I will ", "remind you at 5pm.")),
        )
        setup = setup_for(
            tmp_path,
            assistant={"data_dir": str(tmp_path), "local_first": False},
            llm={"base_url": f"{llm.url}/v1", "api_key_env": "TEST_KEY", "model": "m"},
        )
        terminal = Terminal()
        terminal.type("please remind me to call bob at 5pm", "/quit")
        await chat(setup, clock, terminal.console)
    text = terminal.text()
    assert "I will remind you" not in text and "I have not done that" in text


def test_only_a_request_for_an_action_is_held_back_from_streaming() -> None:
    from assistant.agent.guards.claims import may_claim

    assert may_claim("please remind me to call bob at 5pm")
    assert may_claim("can you save a note that the code is 4312?")
    assert not may_claim("tell me a long story")
    assert not may_claim("how do reminders work?")
