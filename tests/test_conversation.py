"""Stored conversations: whole turns kept, read back newest first within a budget, /clear."""

from __future__ import annotations

from assistant.llm.tokens import ApproxCounter, message_tokens
from assistant.llm.types import AssistantMessage, ToolCall, ToolMessage, UserMessage
from assistant.memory.conversation import Conversations
from tests.conftest import fetch


def turn(n: int) -> list:
    return [
        UserMessage(f"question {n}: " + "words " * 20),
        AssistantMessage("", (ToolCall(f"c{n}", "get_time", {"zone": "Asia/Tokyo"}),)),
        ToolMessage(f"c{n}", "get_time", "18:00", is_error=n % 2 == 0),
        AssistantMessage(f"answer {n}"),
    ]


async def test_messages_round_trip_with_calls_results_and_audit_ids(conn, clock):
    conversations = Conversations(conn, clock)
    await conversations.append(1, 1, "t1", turn(0), {"c0": 17})
    assert await conversations.history(1) == turn(0)
    [(audit_id, tokens)] = await fetch(
        conn, "SELECT audit_id, tokens FROM messages WHERE call_id = 'c0'"
    )
    assert audit_id == 17 and tokens == message_tokens(turn(0)[2], ApproxCounter())


async def test_reading_stops_soon_after_the_budget_is_filled(conn, clock):
    conversations = Conversations(conn, clock)
    for n in range(300):
        await conversations.append(1, 1, f"t{n}", turn(n))
    recent = await conversations.recent(1, 500)
    spent = sum(tokens for _, tokens in recent)
    assert 500 < spent < 500 + 64 * 60  # one page past the budget at most
    assert len(recent) < 300 * 4 / 2 and recent[-1][0] == AssistantMessage("answer 299")


async def test_clear_hides_earlier_messages_without_deleting_them(conn, clock):
    conversations = Conversations(conn, clock)
    await conversations.append(1, 1, "t0", turn(0))
    await conversations.clear(1, 1)
    assert await conversations.history(1) == []
    await conversations.append(1, 1, "t1", turn(1))
    assert await conversations.history(1) == turn(1)
    assert await fetch(conn, "SELECT COUNT(*) FROM messages") == [(8,)]


async def test_chats_do_not_see_each_other(conn, clock):
    conversations = Conversations(conn, clock)
    await conversations.append(1, 1, "t0", turn(0))
    await conversations.append(2, 2, "t1", turn(1))
    assert await conversations.history(2) == turn(1)
    assert await conversations.history(3) == []
