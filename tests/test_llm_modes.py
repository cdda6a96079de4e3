"""Text tool mode and the auto fallback, through the real OpenAI client and a fake server."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from fakehttp import fake_server
from llm_fixtures import chat_reply, chat_stream, check_snapshot, error_reply
from test_llm_openai import CONVERSATION, REMIND, TIME, Sleeps

from assistant.errors import LLMError
from assistant.llm.failures import Endpoint, RetryPolicy
from assistant.llm.modes import RETRY, StoredModes, ToolModeModel
from assistant.llm.openai import OpenAIModel
from assistant.llm.types import Completion, Request, TextDelta, ToolCall, UserMessage

ASK = Request("You are a test.", [UserMessage("what time is it?")], (REMIND, TIME))
WRITTEN = 'Let me look.\n```json\n{"tool": "get_current_time", "args": {}}\n```'


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


@pytest.fixture
async def inner(server):
    endpoint = Endpoint("openai", "small-model", f"{server.url}/v1", "K")
    adapter = OpenAIModel(endpoint, "k", timeout=5, retry=RetryPolicy(sleep=Sleeps()))
    yield adapter
    await adapter.close()


async def test_text_mode_request_payload_matches_the_snapshot(server, inner):
    server.script(chat_reply("ok"))
    await ToolModeModel(inner, "text").complete(
        Request("You are a test.", CONVERSATION, (REMIND, TIME))
    )
    body = server.requests[0].json()
    assert "tools" not in body
    check_snapshot("openai_text_mode", body)


async def test_text_mode_reads_calls_from_the_reply_and_keeps_the_prose(server, inner):
    server.script(chat_reply(WRITTEN))
    completion = await ToolModeModel(inner, "text").complete(ASK)
    assert completion.text == "Let me look."
    assert [(c.name, c.arguments) for c in completion.calls] == [("get_current_time", {})]
    assert completion.finish_reason == "tool_calls" and not completion.notice


async def test_auto_falls_back_to_text_when_the_endpoint_refuses_tools_and_remembers(
    server, inner, conn
):
    server.script(
        error_reply(404, "model small-model does not support tools"),
        chat_reply(WRITTEN),
        chat_reply("It is noon."),
    )
    memory = StoredModes(conn)
    model = ToolModeModel(inner, "auto", memory)
    first = await model.complete(ASK)
    assert first.calls == (ToolCall(first.calls[0].id, "get_current_time", {}),)
    assert "switched to writing tool calls as text" in first.notice
    assert "tools" in server.requests[0].json() and "tools" not in server.requests[1].json()
    assert "get_current_time()" in server.requests[1].json()["messages"][0]["content"]
    second = await model.complete(ASK)
    assert second.text == "It is noon." and not second.notice
    assert "tools" not in server.requests[2].json()
    # a new process (a new wrapper on the same database) starts in text mode at once
    assert await ToolModeModel(inner, "auto", StoredModes(conn)).mode() == "text"


async def test_auto_switches_when_the_model_writes_tool_json_as_text(server, inner):
    server.script(chat_reply(WRITTEN))
    model = ToolModeModel(inner, "auto")
    completion = await model.complete(ASK)
    assert [c.name for c in completion.calls] == ["get_current_time"] and completion.notice
    assert await model.mode() == "text"


async def test_auto_ignores_json_that_names_no_known_tool(server, inner):
    server.script(chat_reply('Here is data: {"name": "Alice", "args": 3}'))
    model = ToolModeModel(inner, "auto")
    completion = await model.complete(ASK)
    assert completion.calls == () and await model.mode() == "native"


async def test_native_mode_refused_tools_is_a_clear_configuration_error(server, inner):
    server.script(error_reply(400, "tools param requires --jinja flag"))
    with pytest.raises(LLMError, match='tool_mode = "auto" or "text"'):
        await ToolModeModel(inner, "native").complete(ASK)


async def test_a_text_mode_stream_shows_the_prose_but_not_the_call(server, inner):
    server.script(
        chat_stream(
            ("Let me look.", '\n```json\n{"tool": "get_current_time",', ' "args": {}}\n```')
        )
    )
    events = [e async for e in ToolModeModel(inner, "text").stream(ASK)]
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert shown == "Let me look.\n"
    final = events[-1]
    assert isinstance(final, Completion) and [c.name for c in final.calls] == ["get_current_time"]


async def test_auto_stream_falls_back_when_tools_are_refused(server, inner):
    server.script(error_reply(400, "does not support tools"), chat_stream(("It is noon.",)))
    events = [e async for e in ToolModeModel(inner, "auto").stream(ASK)]
    final = events[-1]
    assert isinstance(final, Completion) and final.text == "It is noon." and final.notice


GRAMMAR_PING = chat_reply('{"tool": "ping", "args": {"word": "hello"}}')


async def test_a_model_that_answers_the_check_in_prose_but_calls_tools_for_people_is_native(
    server, inner, conn
):
    server.script_probe(chat_reply("Hello! How can I help?"), GRAMMAR_PING)
    server.script(chat_reply("", calls=(("c1", "get_current_time", {}),)))
    model = ToolModeModel(inner, "auto", StoredModes(conn))
    completion = await model.complete(ASK)
    assert [c.name for c in completion.calls] == ["get_current_time"] and not completion.notice
    assert "tools" in server.requests[0].json()
    known = await StoredModes(conn).recall(inner.name)
    assert known is not None and (known.mode, known.learned) == ("native", "turns")
    assert known.fallback == "grammar"
    # confirmed by a real turn: a later false claim is a slip, not a reason to switch
    assert await model.unfounded_claim() is None


async def test_a_server_that_drops_tools_falls_back_to_grammar_once_turns_show_it(
    server, inner, conn
):
    # prose to the check, JSON to the schema: native first, then what real turns show
    server.script_probe(chat_reply("Hello! How can I help?"), GRAMMAR_PING)
    server.script(chat_reply(WRITTEN), chat_reply('{"answer": "It is noon."}'))
    model = ToolModeModel(inner, "auto", StoredModes(conn))
    first = await model.complete(ASK)
    assert [c.name for c in first.calls] == ["get_current_time"]
    assert "writing tool calls as grammar" in first.notice
    second = await model.complete(ASK)
    assert second.text == "It is noon." and "response_format" in server.requests[1].json()
    again = ToolModeModel(inner, "auto", StoredModes(conn))  # a restart: no probe again
    assert await again.mode() == "grammar" and len(server.probes) == 2


async def test_an_unconfirmed_native_mode_gives_way_when_a_turn_claims_without_a_call(
    server, inner, conn
):
    server.script_probe(chat_reply("Hi!"), chat_reply("Hello there."))
    model = ToolModeModel(inner, "auto", StoredModes(conn))
    assert await model.mode() == "native"
    notice = await model.unfounded_claim()
    assert notice and "said it acted without calling a tool" in notice
    assert await model.mode() == "text"
    known = await StoredModes(conn).recall(inner.name)
    assert known is not None and known.learned == "turns"


async def test_a_mode_learned_from_a_refusing_probe_is_checked_again_later(server, inner, conn):
    server.script_probe(error_reply(400, "does not support tools"), chat_reply("Hello there."))
    memory = StoredModes(conn)
    model = ToolModeModel(inner, "auto", memory)
    assert await model.mode() == "text" and len(server.probes) == 2
    assert await ToolModeModel(inner, "auto", memory).mode() == "text"
    assert len(server.probes) == 2  # fresh: kept
    known = await memory.recall(inner.name)
    assert known is not None and known.learned == "probe"
    await memory.remember(inner.name, replace(known, since=known.since - RETRY * 2))
    # the server is fixed meanwhile: the next check finds native calls
    assert await ToolModeModel(inner, "auto", memory).mode() == "native"
    assert len(server.probes) == 3


async def test_a_server_that_rejects_schemas_falls_back_to_text(server, inner, conn):
    server.script_probe(chat_reply("Hi!"), error_reply(400, "response_format is not supported"))
    server.script(chat_reply("It is noon."))
    model = ToolModeModel(inner, "auto", StoredModes(conn))
    assert (await model.complete(ASK)).text == "It is noon."
    known = await StoredModes(conn).recall(inner.name)
    assert known is not None and (known.mode, known.fallback) == ("native", "text")


async def test_a_failed_probe_is_not_remembered_and_is_tried_again(server, inner, conn):
    server.script_probe(error_reply(401, "bad key"))
    server.script(chat_reply("It is noon."))
    model = ToolModeModel(inner, "auto", StoredModes(conn))
    assert (await model.complete(ASK)).text == "It is noon."
    assert "tools" in server.requests[0].json()  # native this time
    assert await StoredModes(conn).recall(inner.name) is None
    server.script(chat_reply("It is one."))
    await model.complete(ASK)
    assert len(server.probes) == 2  # learned on a later turn


async def test_concurrent_first_turns_probe_once(server, inner, conn):
    server.script(chat_reply("a"), chat_reply("b"), chat_reply("c"))
    model = ToolModeModel(inner, "auto", StoredModes(conn))
    answers = await asyncio.gather(*(model.complete(ASK) for _ in range(3)))
    assert sorted(a.text for a in answers) == ["a", "b", "c"]
    assert len(server.probes) == 1 and await model.mode() == "native"
