"""Grammar mode: every reply is one schema-constrained JSON object, an answer or a call."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from agent_fixtures import ME, build_rig
from fakehttp import fake_server
from llm_fixtures import chat_reply

from assistant.llm.grammar import ID_LENGTH, TEXT_LENGTH, schema
from assistant.llm.modes import Remembered, StoredModes
from assistant.llm.types import ToolSpec


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


async def test_a_call_and_an_answer_through_the_schema(server, conn, clock):
    rig = await build_rig(server, conn, clock, mode="grammar")
    server.script(
        chat_reply(json.dumps({"tool": "save_note", "arguments": {"content": "milk"}})),
        chat_reply(json.dumps({"answer": "Saved your note."})),
    )
    answer = await rig.agent.reply(ME, "note: milk")
    assert answer.text == "Saved your note." and rig.effects.notes == ["milk"]
    body = server.requests[0].json()
    assert "tools" not in body and body["response_format"]["type"] == "json_schema"
    variants = body["response_format"]["json_schema"]["schema"]["anyOf"]
    assert variants[0]["required"] == ["answer"]
    save = next(v for v in variants[1:] if v["properties"]["tool"] == {"const": "save_note"})
    assert save["properties"]["arguments"]["required"] == ["content"]
    follow_up = server.requests[1].json()["messages"][-1]["content"]
    assert "[save_note] ok" in follow_up  # the result went back as text
    await rig.inner.close()


async def test_double_encoded_arguments_are_decoded(server, conn, clock):
    rig = await build_rig(server, conn, clock, mode="grammar")
    encoded = json.dumps({"content": "eggs"})
    server.script(
        chat_reply(json.dumps({"tool": "save_note", "arguments": encoded})),
        chat_reply(json.dumps({"answer": "ok"})),
    )
    await rig.agent.reply(ME, "note: eggs")
    assert rig.effects.notes == ["eggs"]
    await rig.inner.close()


async def test_an_object_that_is_neither_gets_a_correction_never_silence(server, conn, clock):
    rig = await build_rig(server, conn, clock, mode="grammar")
    server.script(
        chat_reply(json.dumps({"reply": "hm"})),
        chat_reply(json.dumps({"answer": "Sorry, here it is."})),
    )
    answer = await rig.agent.reply(ME, "hello")
    assert answer.text == "Sorry, here it is."
    corrected = json.dumps(server.requests[1].json()["messages"])
    assert "not an answer or a tool call object" in corrected
    await rig.inner.close()


async def test_the_grammar_mode_is_remembered_per_model(conn):
    modes = StoredModes(conn)
    known = Remembered("grammar", "it honours a schema", "probe", datetime.now(UTC), "grammar")
    await modes.remember("m@x", known)
    assert await modes.recall("m@x") == known


async def test_a_call_written_as_text_in_native_mode_is_run_not_shown(server, conn, clock):
    rig = await build_rig(server, conn, clock, mode="native")
    written = '```json\n{"tool": "save_note", "args": {"content": "tea"}}\n```'
    server.script(chat_reply(written), chat_reply("Saved."))
    answer = await rig.agent.reply(ME, "note: tea")
    assert rig.effects.notes == ["tea"] and answer.text == "Saved."
    assert '"tool"' not in answer.text
    await rig.inner.close()


def test_every_string_in_the_schema_is_bounded():
    spec = ToolSpec(
        "edit",
        "",
        {
            "type": "object",
            "properties": {
                "task_id": {"type": "string"},
                "text": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "kind": {"type": "string", "enum": ["a", "b"]},
                "short": {"type": "string", "maxLength": 5},
            },
        },
    )
    arguments = schema([spec])["anyOf"][1]["properties"]["arguments"]["properties"]
    assert arguments["task_id"]["maxLength"] == ID_LENGTH
    assert arguments["text"]["anyOf"][0]["maxLength"] == TEXT_LENGTH
    assert arguments["tags"]["items"]["maxLength"] == TEXT_LENGTH
    assert "maxLength" not in arguments["kind"] and arguments["short"]["maxLength"] == 5
    assert spec.parameters["properties"]["task_id"] == {"type": "string"}  # not changed


async def test_every_reply_fits_the_reply_limit_so_it_is_never_cut(server, conn, clock):
    # Measured with a 135M model: a URL of ".json.json…" written until max_tokens cut the JSON.
    rig = await build_rig(server, conn, clock, mode="grammar", max_tokens=256)
    server.script(chat_reply(json.dumps({"answer": "Hello."})))
    await rig.agent.reply(ME, "hi")
    body = server.requests[0].json()
    assert body["max_tokens"] == 256
    variants = body["response_format"]["json_schema"]["schema"]["anyOf"]
    room = (256 - 48) * 1
    assert variants[0]["properties"]["answer"]["maxLength"] == room
    for variant in variants[1:]:
        arguments = variant["properties"]["arguments"].get("properties", {})
        strings = [a["maxLength"] for a in arguments.values() if "maxLength" in a]
        assert sum(strings) <= room + 40 * len(strings)  # identifiers keep their short bound
    await rig.inner.close()


async def test_an_answer_cut_by_the_reply_limit_is_shown_with_a_note_not_as_a_broken_call(
    server, conn, clock
):
    # Measured with a 135M model: '{"answer": "2022-01-01 20:00:00.203000.203000…' to the limit.
    rig = await build_rig(server, conn, clock, mode="grammar", max_tokens=256)
    cut = '{\n  "answer": "It is 20:00:00.203000.203000.2030'
    server.script(chat_reply(cut, finish="length"))
    answer = await rig.agent.reply(ME, "what time is it?")
    assert answer.ending == "answered"
    assert answer.text.startswith("It is 20:00:00.203000") and "cut off" in answer.text
    await rig.inner.close()
