"""Requests fitted to a small model's window; a context refusal retried once, then said
plainly; and a chat that never locks itself."""

from __future__ import annotations

import json

import pytest
from agent_fixtures import ME, build_rig
from fakehttp import fake_server
from llm_fixtures import chat_reply, error_reply

from assistant.agent import AgentSettings
from assistant.errors import ContextTooLongError
from assistant.llm.failures import Endpoint, status_error
from assistant.llm.tokens import MESSAGE_OVERHEAD, ApproxCounter
from assistant.llm.types import UserMessage


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


ENDPOINT = Endpoint("openai", "small", "http://127.0.0.1:1/v1", "K")
WINDOW = AgentSettings(stream=False, context_tokens=1500, reply_tokens=256)


@pytest.mark.parametrize(
    "wording",
    [
        "This model's maximum context length is 4096 tokens. However, your messages resulted "
        "in 5000 tokens. (context_length_exceeded)",
        "the request exceeds the available context size, try increasing it",
        "input length exceeds maximum context length",
        "This model's maximum context length is 2048 tokens. However, you requested 3000 tokens",
        "prompt is too long: 9000 tokens > 8192 maximum",
        "Trying to keep the first 5000 tokens when context the overflows. n_ctx: 4096",
    ],
)
def test_every_servers_context_refusal_is_told_apart(wording):
    assert isinstance(status_error(ENDPOINT, 400, wording, {}, True), ContextTooLongError)


def sent_tokens(request) -> int:
    """What the request costs by the estimate the agent fits with: each message's text and
    calls with a per-message overhead, and the tools as sent."""
    body, counter = request.json(), ApproxCounter()
    messages = sum(
        counter.count(str(m.get("content") or "") + json.dumps(m.get("tool_calls") or ""))
        + MESSAGE_OVERHEAD
        for m in body["messages"]
    )
    return messages + counter.count(json.dumps(body.get("tools", [])))


async def test_a_long_history_is_cut_to_the_window(server, conn, clock):
    rig = await build_rig(server, conn, clock, settings=WINDOW)
    for n in range(40):
        server.script(chat_reply(f"answer {n} " + "words " * 40))
        await rig.agent.reply(ME, f"question {n} " + "more " * 40)
    server.script(chat_reply("fine"))
    await rig.agent.reply(ME, "and now?")
    last = server.requests[-1]
    assert sent_tokens(last) <= 1500 - 256
    assert last.json()["messages"][-1]["content"].endswith("and now?")
    await rig.inner.close()


async def test_a_message_longer_than_the_window_is_cut_with_a_note_and_does_not_lock(
    server, conn, clock
):
    rig = await build_rig(server, conn, clock, settings=WINDOW)
    server.script(chat_reply("got the start"), chat_reply("hello again"))
    answer = await rig.agent.reply(ME, "x" * 40_000)
    sent = server.requests[0].json()["messages"][-1]["content"]
    assert answer.text == "got the start" and "does not fit this model's context window" in sent
    assert sent_tokens(server.requests[0]) <= 1500 - 256
    assert (await rig.agent.reply(ME, "hi")).text == "hello again"  # the chat is not locked
    assert sent_tokens(server.requests[1]) <= 1500 - 256
    await rig.inner.close()


async def test_a_context_refusal_is_retried_with_less_history_then_said_plainly(
    server, conn, clock
):
    rig = await build_rig(server, conn, clock)
    for n in range(6):
        server.script(chat_reply(f"answer {n}"))
        await rig.agent.reply(ME, f"question {n}")
    refusal = error_reply(400, "This model's maximum context length is 4096 tokens")
    server.script(refusal, chat_reply("shorter works"))
    assert (await rig.agent.reply(ME, "again")).text == "shorter works"
    first, second = (r.json()["messages"] for r in server.requests[-2:])
    assert len(second) < len(first)
    server.script(refusal, refusal)
    answer = await rig.agent.reply(ME, "and again")
    assert answer.ending == "error" and "/clear starts afresh" in answer.text
    server.script(chat_reply("still here"))
    assert (await rig.agent.reply(ME, "hello")).text == "still here"  # never locked
    history = await rig.conversations.history(ME.chat_id)
    assert UserMessage("hello") in history
    await rig.inner.close()
