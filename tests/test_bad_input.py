"""Bad input the issue named: each gets a clear answer, a call never goes without its audit
row, and nothing stored changes."""

from __future__ import annotations

import io
import json

import pytest
from fakehttp import fake_server
from llm_fixtures import call, chat_reply
from test_ask import setup_for

from assistant.app import serve
from assistant.db import open_database

SURROGATE = "\ud800"


async def rows(setup, query: str) -> list[tuple]:
    db = await open_database(setup.database_path())
    try:
        async with db.read() as session:
            return [tuple(r) for r in await session.fetchall(query)]
    finally:
        await db.close()


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("save_note", {"content": f"milk {SURROGATE}"}),
        ("add_reminder", {"when": "in 5m", "message": SURROGATE}),
        ("search_memory", {"query": SURROGATE}),
        ("fetch_url", {"url": f"https://example.com/{SURROGATE}"}),
        ("delete_note", {SURROGATE: 1, "note_id": 1}),
    ],
)
async def test_a_lone_surrogate_from_the_model_is_refused_with_its_audit_row(
    tmp_path, monkeypatch, clock, tool, arguments
):
    monkeypatch.setenv("TEST_LLM_KEY", "k")
    setup = setup_for(tmp_path, "", stream=False)
    async with fake_server() as server:
        server.script(
            chat_reply(None, (call("c1", tool, arguments),)),
            chat_reply("I could not do that."),
        )
        setup = setup_for(tmp_path, f"{server.url}/v1", stream=False)
        answer = await serve.ask(setup, "do the thing with the odd text", clock, io.StringIO())
        sent_back = server.requests[1].json()["messages"][-1]["content"]
    assert answer.ending == "answered"
    assert "not valid Unicode" in sent_back and "internal error" not in sent_back
    (row,) = await rows(setup, "SELECT tool, outcome, arguments FROM audit")
    assert row[:2] == (tool, "invalid") and "\\ud800" in row[2]  # escaped, still JSON
    assert await rows(setup, "SELECT * FROM notes") == []
    assert await rows(setup, "SELECT * FROM scheduled_tasks") == []


async def test_a_note_id_past_what_sqlite_holds_is_no_such_note(tmp_path, monkeypatch, clock):
    monkeypatch.setenv("TEST_LLM_KEY", "k")
    async with fake_server() as server:
        server.script(
            chat_reply(None, (call("c1", "save_note", {"content": "keep me"}),)),
            chat_reply("Saved."),
            chat_reply(None, (call("c2", "delete_note", {"note_id": 2**64}),)),
            chat_reply("No such note."),
        )
        setup = setup_for(tmp_path, f"{server.url}/v1", stream=False)
        await serve.ask(setup, "remember: keep me", clock, io.StringIO())
        await serve.ask(setup, "now forget a note", clock, io.StringIO())
        sent_back = server.requests[3].json()["messages"][-1]["content"]
    assert f"you have no note {2**64}" in sent_back
    outcomes = await rows(setup, "SELECT tool, outcome FROM audit ORDER BY id")
    assert outcomes == [("save_note", "ok"), ("delete_note", "error")]
    assert [r[0] for r in await rows(setup, "SELECT content FROM notes")] == ["keep me"]


async def test_a_message_that_cannot_be_encoded_gets_a_clear_answer(tmp_path, clock, capsys):
    setup = setup_for(tmp_path, "http://127.0.0.1:9/v1")
    out = io.StringIO()
    answer = await serve.ask(setup, f"/note {SURROGATE}", clock, out)
    assert answer.ending == "invalid"
    assert out.getvalue().startswith("That message holds text that cannot be read (a lone ")
    assert not setup.database_path().exists() or await rows(setup, "SELECT * FROM notes") == []


def test_the_surrogate_escape_keeps_json_readable():
    from assistant.memory.audit import arguments_json, escaped

    row = escaped(arguments_json({"a": SURROGATE, "b": "ok"}))
    row.encode("utf-8")  # storable
    assert json.loads(row) == {"a": SURROGATE, "b": "ok"}  # and the same JSON


async def test_a_note_on_a_full_disk_is_told_in_telegram(tmp_path, clock, monkeypatch):
    """The database really fills up (SQLite's page cap): the person hears it was not saved."""
    from test_telegram import ADA, eventually, served

    from assistant import db as storage

    fresh = await open_database(tmp_path / "assistant.db")
    async with fresh.read() as session:
        (pages,) = await session.fetchone("PRAGMA page_count") or (0,)
    await fresh.close()
    monkeypatch.setattr(storage, "PRAGMAS", (*storage.PRAGMAS, f"max_page_count = {pages + 2}"))
    async with served(tmp_path, clock, monkeypatch) as running:
        running.telegram.message(ADA, "/note " + "x" * 9_000)
        await eventually(lambda: any("nothing was saved" in t for t in running.telegram.texts()))
    monkeypatch.undo()
    assert await rows_at(tmp_path, "SELECT * FROM notes") == []


async def rows_at(folder, query: str) -> list[tuple]:
    db = await open_database(folder / "assistant.db")
    try:
        async with db.read() as session:
            return [tuple(r) for r in await session.fetchall(query)]
    finally:
        await db.close()


def damage(folder, *statements: str) -> None:
    import sqlite3

    with sqlite3.connect(folder / "data" / "assistant.db") as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


def test_a_database_with_its_tables_dropped_is_one_plain_line(tmp_path, monkeypatch, capsys):
    from assistant.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["status"]) == 0
    damage(tmp_path, "DROP TABLE notes", "DROP TABLE scheduled_tasks")
    before = (tmp_path / "data" / "assistant.db").read_bytes()
    capsys.readouterr()
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("assistant: ") and err.count("\n") == 1
    assert "damaged: its tables notes, scheduled_tasks are missing; it was left untouched" in err
    assert "assistant restore FILE" in err
    assert (tmp_path / "data" / "assistant.db").read_bytes() == before


def test_text_that_is_not_utf8_in_the_database_is_read_not_fatal(tmp_path, monkeypatch, capsys):
    from assistant.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["export", "first"]) == 0
    damage(
        tmp_path,
        "INSERT INTO notes (user_id, content, tags, created_at) "
        "VALUES (0, CAST(x'fffe41' AS TEXT), '[]', '2026-01-01T00:00:00+00:00')",
    )
    capsys.readouterr()
    assert main(["export", "out"]) == 0
    exported = json.loads((tmp_path / "out" / "assistant-export-0.json").read_text())
    assert exported["notes"][0]["content"] == "\ufffd\ufffdA"


def test_a_damaged_page_is_one_plain_line(tmp_path, monkeypatch, capsys):
    from assistant.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["status"]) == 0
    damage(
        tmp_path,
        *[
            f"INSERT INTO notes (user_id, content, tags, created_at) VALUES (0, '{'n' * 500}', '[]', 'x')"
        ]
        * 200,
    )
    path = tmp_path / "data" / "assistant.db"
    data = bytearray(path.read_bytes())
    for page in range(1, len(data) // 4096, 2):
        data[page * 4096 + 8 : page * 4096 + 58] = b"\xff" * 50
    path.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged" in err and "unexpected" not in err
