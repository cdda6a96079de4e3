"""Notes without a model: numbered with a delete button, deleted by number or by words in
English and Russian, always confirmed with the note's own text; resume works like pause."""

from __future__ import annotations

import pytest
from test_local_first import USER, audit_rows, running


async def notes_of(runtime) -> list[str]:
    return [n.content for n in await runtime.services.notes.list_notes(USER, 50)]


async def test_the_list_shows_each_number_with_a_delete_button(tmp_path):
    async with running(tmp_path) as (runtime, _, person):
        for words in ("the wifi password is on the fridge", "milk", "call the plumber"):
            await runtime.answer(person, f"/note {words}")
        listed = await runtime.answer(person, "/notes")
        milk = next(b for row in listed.buttons for b in row if b.text == "🗑 2")
        done = await runtime.press(person, milk.data)
        left = await notes_of(runtime)
        rows = await audit_rows(runtime)
    assert listed.text.splitlines() == [
        "3. call the plumber",
        "2. milk",
        "1. the wifi password is on the fridge",
    ]
    assert "Deleted note 2: “milk”" in done.text
    assert left == ["call the plumber", "the wifi password is on the fridge"]
    assert rows[-1][0] == "delete_note" and rows[-1][2] == "ok"


@pytest.mark.parametrize(
    ("said", "gone"),
    [
        ("delete note 2", "milk"),
        ("forget the wifi note", "the wifi password is on the fridge"),
        ("удали заметку 2", "milk"),
        ("удали заметку про сантехника", "вызвать сантехника"),
    ],
)
async def test_a_note_is_deleted_by_its_number_or_words_once_confirmed(tmp_path, said, gone):
    async with running(tmp_path) as (runtime, channel, person):
        for words in ("the wifi password is on the fridge", "milk", "вызвать сантехника"):
            await runtime.answer(person, f"/note {words}")
        asked = await runtime.answer(person, said)
        before = await notes_of(runtime)
        (pending,) = channel.shown
        outcome = await runtime.decide(pending.token, USER, True)
        after = await notes_of(runtime)
    assert gone in asked.text and len(before) == 3  # nothing deleted before the yes
    assert gone in pending.text and "{" not in pending.text  # the note, not the call's JSON
    assert outcome.startswith("Approved and done") and gone not in after and len(after) == 2


async def test_a_note_nobody_has_is_said_so_and_nothing_changes(tmp_path):
    async with running(tmp_path) as (runtime, channel, person):
        await runtime.answer(person, "/note milk")
        none = await runtime.answer(person, "delete note 7")
        words = await runtime.answer(person, "удали заметку про хлеб")
        after = await notes_of(runtime)
    assert "None of your notes matches “7”" in none.text
    assert "Ни одна ваша заметка не подходит под «хлеб»" in words.text
    assert after == ["milk"] and channel.shown == []


async def test_resume_works_like_pause(tmp_path):
    async with running(tmp_path) as (runtime, channel, person):
        await runtime.answer(person, "remind me every day at 9am to stretch")
        await runtime.answer(person, "pause my stretch reminder")
        await runtime.decide(channel.shown[-1].token, USER, True)
        paused = (await runtime.tasks.list_tasks(USER))[0].status
        asked = await runtime.answer(person, "возобнови напоминание про stretch")
        await runtime.decide(channel.shown[-1].token, USER, True)
        resumed = (await runtime.tasks.list_tasks(USER))[0].status
    assert paused == "paused" and "возобновить" in asked.text and resumed == "active"


@pytest.mark.parametrize("answer", ["2", "the second one", "вторую", "#2"])
async def test_which_of_several_is_answered_by_its_place(tmp_path, answer):
    async with running(tmp_path) as (runtime, channel, person):
        await runtime.answer(person, "remind me every day at 18:00 to call mom")
        await runtime.answer(person, "remind me every day at 19:00 to call mom back")
        asked = await runtime.answer(person, "cancel the reminder to call mom")
        picked = await runtime.answer(person, answer)
        (pending,) = channel.shown
    assert asked.text.splitlines()[1].startswith("1. ") and "2. " in asked.text
    assert "call mom back" in pending.text and "19:00" in pending.text
    assert "call mom back" in picked.text


async def test_which_note_is_pressed_by_its_number(tmp_path):
    async with running(tmp_path) as (runtime, channel, person):
        await runtime.answer(person, "/note the wifi password is hunter2")
        await runtime.answer(person, "/note the wifi router is in the attic")
        asked = await runtime.answer(person, "forget the wifi note")
        await runtime.answer(person, "what time is it?")  # not an answer: the question stays
        second = asked.buttons[0][1]
        picked = await runtime.press(person, second.data)
        stale = await runtime.press(person, second.data)
        await runtime.decide(channel.shown[-1].token, USER, True)
        left = await notes_of(runtime)
    assert "attic" in picked.text or "hunter2" in picked.text
    assert "expired" in stale.text
    assert len(left) == 1


@pytest.mark.parametrize(("word", "approved"), [("yes", True), ("да", True), ("нет", False)])
async def test_a_typed_yes_or_no_answers_the_one_open_approval(tmp_path, word, approved):
    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "/note milk")
        await runtime.answer(person, "delete note 1")
        said = await runtime.answer(person, word)
        left = await notes_of(runtime)
    assert (left == []) is approved
    assert said.text.startswith("Approved and done" if approved else "Declined")


async def test_an_old_note_is_found_by_its_number_past_the_latest_ones(tmp_path):
    async with running(tmp_path) as (runtime, channel, person):
        notes = runtime.services.notes
        await notes.add_many(USER, [(f"note {i}", ()) for i in range(1, 602)])
        asked = await runtime.answer(person, "delete note 1")
        (pending,) = channel.shown
    assert "note 1”" in asked.text and "“note 1”" in pending.text
