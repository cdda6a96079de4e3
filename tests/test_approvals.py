"""Approvals as stored, pending actions: the turn ends with the prompt; the answer runs exactly
the stored call, once, from its user, in time; deny and expiry are audited and edit the prompt;
a restart keeps them answerable."""

from __future__ import annotations

from datetime import timedelta

from agent_fixtures import ME, Prompts, build_rig
from fakehttp import fake_server
from llm_fixtures import call, chat_reply

from assistant.agent.approving.desk import preview
from tests.conftest import fetch

ARGUMENTS = {
    "url": "https://home.example/lights",
    "method": "POST",
    "headers": {"Authorization": "Bearer sk-live-abcdefghijklmnop", "X-Mode": "night"},
    "body": "x" * 1000,
}


async def asked_transfer(rig, server, amount: int = 5):
    server.script(chat_reply(None, (call("c1", "transfer", {"amount": amount}),)))
    answer = await rig.agent.reply(ME, f"move {amount}")
    assert answer.ending == "awaiting"
    return rig.prompts.shown[-1]


async def test_the_preview_shows_the_whole_call_uncut_unmasked_and_canonical():
    text = preview("api_call", "POST changes something", ARGUMENTS)
    assert "POST https://home.example/lights" in text and "header X-Mode: night" in text
    assert "header Authorization: Bearer sk-live-abcdefghijklmnop" in text  # what really runs
    assert "body (text, 1,000 characters):\n" + "x" * 1000 in text
    reordered = dict(reversed(list(ARGUMENTS.items())))
    reordered["headers"] = dict(reversed(list(ARGUMENTS["headers"].items())))
    assert preview("api_call", "POST changes something", reordered) == text
    as_json = preview("api_call", "r", {**ARGUMENTS, "body": {"a": 1}})
    as_text = preview("api_call", "r", {**ARGUMENTS, "body": '{"a": 1}'})
    assert as_json != as_text  # a text body and a JSON body never look the same


async def test_a_program_is_shown_whole_with_its_tokens(conn, clock):
    program = "token='abc123'\npassword = 'hunter2'\n" + "print('x')\n" * 300
    text = preview("execute_code", "it runs code", {"code": program})
    assert text.endswith(program) and "[REDACTED]" not in text
    assert f"({len(program):,} characters, shown whole)" in text


async def test_approving_runs_the_stored_call_once_and_audits_who(conn, clock):
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock)
        pending = await asked_transfer(rig, server)
        assert rig.effects.notes == []
        assert "done" in await rig.desk.answer(pending.token, ME.user_id, True)
        assert "no longer open" in await rig.desk.answer(pending.token, ME.user_id, True)
        assert rig.effects.notes == ["transfer 5"]  # once
        (row, *_) = await rig.audit.recent(ME.user_id)
        assert (row.tool, row.outcome, row.approver) == ("transfer", "ok", ME.user_id)
        assert rig.prompts.closed[-1][0] == pending.token
        assert "Approved and done" in rig.prompts.closed[-1][1]
        history = await rig.conversations.history(ME.chat_id)
        assert "Approved and done" in history[-1].text  # the model learns how it ended
        await rig.inner.close()


async def test_another_user_cannot_answer_and_nothing_changes(conn, clock):
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock)
        pending = await asked_transfer(rig, server)
        assert "Only the person who asked" in await rig.desk.answer(pending.token, 7, True)
        assert await fetch(conn, "SELECT status FROM approvals") == [("pending",)]
        assert rig.effects.notes == []
        await rig.inner.close()


async def test_expiry_refuses_audits_and_edits_the_prompt(conn, clock):
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock)
        pending = await asked_transfer(rig, server)
        clock.advance(timedelta(minutes=10))
        assert await rig.desk.expire() == 1
        assert rig.prompts.closed == [(pending.token, "Not run: the request expired.")]
        assert "no longer open" in await rig.desk.answer(pending.token, ME.user_id, True)
        (row, *_) = await rig.audit.recent(ME.user_id)
        assert (row.tool, row.outcome) == ("transfer", "denied")
        assert rig.effects.notes == []
        await rig.inner.close()


async def test_a_late_press_before_the_expiry_sweep_is_refused(conn, clock):
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock)
        pending = await asked_transfer(rig, server)
        clock.advance(timedelta(minutes=11))
        assert "expired" in await rig.desk.answer(pending.token, ME.user_id, True)
        assert rig.effects.notes == []
        await rig.inner.close()


async def test_the_hash_is_checked_against_the_call_that_would_run(conn, clock):
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock)
        pending = await asked_transfer(rig, server)
        async with conn.write() as session:  # the stored call changed behind the prompt
            await session.execute("UPDATE approvals SET arguments = '{\"amount\": 5000}'")
        assert "changed" in await rig.desk.answer(pending.token, ME.user_id, True)
        assert rig.effects.notes == []
        (row, *_) = await rig.audit.recent(ME.user_id)
        assert (row.tool, row.outcome) == ("transfer", "denied")
        await rig.inner.close()


async def test_pending_approvals_survive_a_restart(conn, clock):
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock)
        pending = await asked_transfer(rig, server)
        restarted = await build_rig(server, conn, clock)  # a new desk on the same database
        assert "done" in await restarted.desk.answer(pending.token, ME.user_id, True)
        assert restarted.effects.notes == ["transfer 5"]
        await rig.inner.close()
        await restarted.inner.close()


async def test_a_prompt_that_cannot_be_shown_is_refused_not_left_waiting(conn, clock):
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock, prompts=Prompts(fail=True))
        server.script(
            chat_reply(None, (call("c1", "transfer", {"amount": 5}),)), chat_reply("Not done.")
        )
        answer = await rig.agent.reply(ME, "move 5")
        assert answer.ending == "answered" and rig.effects.notes == []
        assert await fetch(conn, "SELECT status FROM approvals") == [("refused",)]
        await rig.inner.close()


async def test_the_desk_expires_as_deadlines_pass(conn, clock):
    import asyncio

    async with fake_server() as server:
        rig = await build_rig(server, conn, clock)
        runner = asyncio.ensure_future(rig.desk.run())
        pending = await asked_transfer(rig, server)
        clock.advance(timedelta(minutes=10))
        async with asyncio.timeout(5):
            while not rig.prompts.closed:  # noqa: ASYNC110 (the desk's loop runs on the fake clock)
                await asyncio.sleep(0)
        assert rig.prompts.closed[0][0] == pending.token
        runner.cancel()
        await rig.inner.close()
