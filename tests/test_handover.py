"""What the terminal made before an owner was configured becomes the owner's, once."""

from __future__ import annotations

import logging

from test_console import Terminal, setup_for

from assistant.app.serve import chat
from assistant.db import open_database
from tests.conftest import fetch

OWNER = 777


async def test_the_first_hours_notes_tasks_and_timezone_become_the_owners(
    tmp_path, clock, monkeypatch, caplog
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = Terminal()
    local.console._user_id = 0  # the terminal before an owner is configured
    local.type("/tz Asia/Tokyo", "/note the locker code is 4312", "/remind in 2h stretch", "/quit")
    await chat(setup_for(tmp_path), clock, local.console)
    assert "Saved note 1." in local.text() and "Reminder " in local.text()

    owner = Terminal()
    owner.console._user_id = OWNER
    owner.type("/notes", "/tasks", "/tz", "/search locker", "/quit")
    with caplog.at_level(logging.WARNING):
        await chat(
            setup_for(tmp_path, telegram={"allowed_user_ids": [OWNER]}), clock, owner.console
        )
    text = owner.text()
    assert "1. the locker code is 4312" in text
    assert "stretch" in text and "Asia/Tokyo" in text
    assert "note 1 (2026-03-14): the [locker] code is 4312" in text  # found by search too
    assert any("now belongs to 777" in r.getMessage() for r in caplog.records)

    db = await open_database(tmp_path / "assistant.db")
    try:
        assert await fetch(db, "SELECT user_id, chat_id FROM scheduled_tasks") == [(OWNER, OWNER)]
        assert await fetch(db, "SELECT COUNT(*) FROM notes WHERE user_id = 0") == [(0,)]
        assert await fetch(db, "SELECT owner_id FROM handovers") == [(OWNER,)]
    finally:
        await db.close()
    # once: a second start with the owner moves nothing and records nothing more
    again = Terminal()
    again.console._user_id = OWNER
    again.type("/quit")
    await chat(setup_for(tmp_path, telegram={"allowed_user_ids": [OWNER]}), clock, again.console)
    db = await open_database(tmp_path / "assistant.db")
    try:
        assert await fetch(db, "SELECT COUNT(*) FROM handovers") == [(1,)]
    finally:
        await db.close()
