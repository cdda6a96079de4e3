"""Approvals bound to one call: exact arguments, the same user, one use, a deadline."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from agent_fixtures import ME, build_rig
from fakehttp import fake_server
from llm_fixtures import call, chat_reply

from assistant.agent.approval import ApprovalRequest
from assistant.agent.approvals import ApprovalDesk, arguments_hash, preview

CALL = ApprovalRequest(
    42,
    42,
    "c1",
    "api_call",
    {
        "url": "https://home.example/lights",
        "method": "POST",
        "headers": {"Authorization": "Bearer sk-live-abcdefghijklmnop", "X-Mode": "night"},
        "body": "x" * 1000,
    },
    "api_call POST changes something",
)


class Shown:
    def __init__(self) -> None:
        self.pending = []
        self.arrived = asyncio.Event()

    async def __call__(self, pending) -> None:
        self.pending.append(pending)
        self.arrived.set()


async def asked(desk, shown, request=CALL):
    decision = asyncio.ensure_future(desk.decide(request))
    await shown.arrived.wait()
    return decision, shown.pending[-1]


async def test_the_preview_shows_the_exact_action_with_secrets_masked():
    text = preview(CALL)
    assert "POST https://home.example/lights" in text and "X-Mode: night" in text
    assert "sk-live" not in text and "Authorization: [REDACTED]" in text
    assert "body: " + "x" * 400 + "…" in text


async def test_an_approval_from_the_user_runs_it_once(clock):
    shown = Shown()
    desk = ApprovalDesk(clock, shown)
    decision, pending = await asked(desk, shown)
    assert desk.answer(pending.token, 42, True, pending.digest) == "Approved."
    assert (await decision).approved and (await decision).approver == 42
    assert "no longer open" in desk.answer(pending.token, 42, True)  # replayed: refused
    assert desk.open() == []


async def test_an_expired_request_is_refused(clock):
    shown = Shown()
    desk = ApprovalDesk(clock, shown, ttl=timedelta(minutes=10))
    decision, pending = await asked(desk, shown)
    clock.advance(timedelta(minutes=10))
    result = await decision
    assert not result.approved and result.note == "the request expired"
    assert "no longer open" in desk.answer(pending.token, 42, True)


async def test_an_answer_for_changed_arguments_is_refused(clock):
    shown = Shown()
    desk = ApprovalDesk(clock, shown)
    decision, pending = await asked(desk, shown)
    changed = arguments_hash({**CALL.arguments, "url": "https://evil.example/"})
    assert "changed" in desk.answer(pending.token, 42, True, changed)
    assert not decision.done()
    desk.answer(pending.token, 42, False, pending.digest)
    assert not (await decision).approved


async def test_another_user_cannot_answer(clock):
    shown = Shown()
    desk = ApprovalDesk(clock, shown)
    decision, pending = await asked(desk, shown)
    assert "Only the person who asked" in desk.answer(pending.token, 7, True)
    assert not decision.done()
    desk.answer(pending.token, 42, True)
    assert (await decision).approved


async def test_the_agent_runs_an_approved_call_and_audits_who_approved(conn, clock):
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock, approvals=(True,))
        server.script(
            chat_reply(None, (call("c1", "transfer", {"amount": 5}),)), chat_reply("Moved.")
        )
        await rig.agent.reply(ME, "move 5")
        (row,) = await rig.audit.recent(ME.user_id)
        assert (row.tool, row.outcome, row.approver) == ("transfer", "ok", 42)
        await rig.inner.close()
