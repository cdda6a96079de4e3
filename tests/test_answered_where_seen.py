"""A typed yes answers an approval only where it was shown and only while it is the last thing
asked there; a question in a group waits for the one person it was asked of."""

from __future__ import annotations

from dataclasses import replace

from test_local_first import NOW, USER, Channel, running

from assistant.agent.approving.approver import Pending
from assistant.app.terminals import Switchboard
from assistant.channels.console import Console, Style


async def notes_of(runtime) -> list[str]:
    return [n.content for n in await runtime.services.notes.list_notes(USER, 50)]


async def test_a_yes_typed_in_the_chat_never_answers_a_terminals_approval(tmp_path):
    async with running(tmp_path) as (runtime, channel, person):
        terminal = replace(person, channel="terminal")
        await runtime.answer(person, "/note milk")
        await runtime.answer(terminal, "delete note 1")  # asked at the terminal
        said = await runtime.answer(person, "yes")  # in Telegram: a new message
        kept = await notes_of(runtime)
        answered = await runtime.answer(terminal, "yes")  # where it was shown
        left = await notes_of(runtime)
    (pending,) = channel.shown
    assert pending.channel == "terminal"
    assert kept == ["milk"] and "Approved" not in said.text
    assert answered.text.startswith("Approved and done") and left == []


async def test_a_yes_after_something_else_was_said_is_not_for_the_approval(tmp_path):
    async with running(tmp_path) as (runtime, channel, person):
        await runtime.answer(person, "/note milk")
        await runtime.answer(person, "delete note 1")
        await runtime.answer(person, "/notes")  # said since: the approval is not the last
        said = await runtime.answer(person, "yes")
        kept = await notes_of(runtime)
        pressed = await runtime.decide(channel.shown[-1].token, USER, True)  # its button
        left = await notes_of(runtime)
    assert kept == ["milk"] and "Approved" not in said.text
    assert pressed.startswith("Approved and done") and left == []


async def test_a_terminals_approval_is_not_forwarded_to_the_chat_once_it_left(tmp_path):
    chat = Channel()
    board = Switchboard(chat)
    console = Console(_Nowhere(), USER, Style(False, False), tmp_path)
    board.attach(console, USER)
    pending = Pending("t1", USER, USER, "api_call", "POST x", NOW, channel="terminal")
    board.detach(console)
    await board.close(pending, "Not run: the request expired.")
    assert chat.closed == []
    await board.close(replace(pending, channel=""), "Not run: the request expired.")
    assert chat.closed == ["Not run: the request expired."]


async def test_in_a_group_each_members_question_waits_for_its_own_answer(tmp_path):
    group = -100
    async with running(tmp_path) as (runtime, _, _person):
        owner = replace(await runtime.person(USER, group, "Ada"), timezone="Europe/Berlin")
        member = replace(await runtime.person(78, group, "Bob"), timezone="Europe/Berlin")
        await runtime.answer(owner, "remind me tomorrow to water the plants")
        await runtime.answer(member, "remind me tomorrow to buy milk")
        mine = await runtime.answer(owner, "7:45")
        theirs = await runtime.answer(member, "8:30")
        owners = [t.description for t in await runtime.tasks.list_tasks(USER)]
        members = [t.description for t in await runtime.tasks.list_tasks(78)]
    assert "water the plants" in mine.text and "buy milk" in theirs.text
    assert owners == ["water the plants"] and members == ["buy milk"]


class _Nowhere:
    def write(self, text: str, /) -> int:
        return len(text)

    def flush(self) -> None:
        pass


async def test_a_yes_after_a_notice_was_delivered_is_not_for_the_approval(tmp_path):
    from assistant.scheduler import Notice
    from assistant.tasks import Owner

    async with running(tmp_path) as (runtime, _, person):
        await runtime.answer(person, "/note milk")
        await runtime.answer(person, "delete note 1")
        asks = Notice(Owner(USER, USER), "⏰ shall I water the plants?", "reminder")
        await runtime.deliveries.deliver(asks)  # something else said in the chat since
        said = await runtime.answer(person, "yes")
        kept = await notes_of(runtime)
    assert kept == ["milk"] and "Approved" not in said.text


async def test_a_terminal_that_left_before_its_approval_was_asked_gets_it_refused(tmp_path):
    import pytest

    from assistant.errors import RunError

    chat = Channel()
    board = Switchboard(chat)
    pending = Pending("t2", USER, USER, "api_call", "POST x", NOW, channel="terminal")
    with pytest.raises(RunError):
        await board.present(pending)  # never shown in the chat instead
    assert chat.shown == []
