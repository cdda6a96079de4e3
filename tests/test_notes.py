"""Notes and conversation search: BM25 ranking, any script, owner scoping, snippets that cite."""

from __future__ import annotations

import pytest

from assistant.db import open_database
from assistant.errors import ToolError
from assistant.fulltext import indexed, segment, shown
from assistant.llm.types import AssistantMessage, ToolCall, UserMessage
from assistant.memory.audit import AuditLog
from assistant.memory.conversation import Conversations
from assistant.memory.fts import match_query
from assistant.memory.notes import Notes
from assistant.migrations import MIGRATIONS
from assistant.tools import Executor, Registry, ToolContext
from assistant.tools.builtin import builtin_tools
from assistant.tools.services import Services


@pytest.fixture
def notes(conn, clock):
    return Notes(conn, clock)


@pytest.fixture
def conversations(conn, clock):
    return Conversations(conn, clock)


async def test_more_relevant_notes_rank_first(notes):
    await notes.add(1, "Bought bread and milk at the market")
    best = await notes.add(1, "Milk: the oat milk brand is Oatly, milk for coffee", ["shopping"])
    await notes.add(1, "Call the plumber about the sink")
    found = await notes.search(1, "milk")
    assert found[0].id == best.id and len(found) == 2
    assert "[milk]" in found[0].snippet.lower()


async def test_many_notes_are_saved_together_or_not_at_all(notes):
    first = await notes.add(1, "the wifi password is on the fridge")
    saved = await notes.add_many(1, [("dentist on Tuesday", ["health"]), ("buy a bike bell", [])])
    assert [n.id for n in saved] == [first.id + 1, first.id + 2]
    assert [n.id for n in await notes.search(1, "dentist")] == [saved[0].id]
    with pytest.raises(ToolError, match="needs some content"):
        await notes.add_many(1, [("a fine note about tea", []), ("   ", [])])
    assert await notes.search(1, "tea") == []  # the refused batch left nothing behind
    assert len(await notes.list_notes(1)) == 3


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("Позвонить маме в воскресенье", "маме"),
        ("ПРИВЕТ мир", "привет"),
        ("明天下午三点去东京开会", "东京"),
        ("東京タワーに行く", "タワー"),
        ("회의는 서울에서 합니다", "서울에서"),
        ("Café au lait à Zürich", "zurich"),
    ],
)
async def test_non_latin_text_is_findable(notes, text, query):
    note = await notes.add(1, text)
    (found,) = await notes.search(1, query)
    assert found.id == note.id
    assert found.snippet.replace("[", "").replace("]", "") == text


async def test_fts_syntax_in_a_query_is_taken_as_words(notes):
    await notes.add(1, "near the station OR the park")
    for query in ('"unbalanced', "NEAR(a b)", "content:x", "*", "a AND OR NOT", ")"):
        await notes.search(1, query)  # never an FTS5 syntax error
    assert match_query("  !!! ", 1) is None
    assert match_query('a"b OR', 1) == '"u1xa" AND "u1xb" AND "u1xOR"'
    assert match_query("milk Milk bread milk", 1) == '"u1xmilk" AND "u1xbread"'  # once each
    assert match_query("東京", -5, chat_id=-7) == 'chat : "cn7" AND ("un5x東 un5x京")'
    assert segment("東京") == "\u200b東\u200b\u200b京\u200b"


@pytest.mark.parametrize(
    "text",
    ["u1xylophone and u12x", "snake_case words, über-ok!", "東京タワー u1x東", "  ", "a\u0301b"],
)
def test_indexed_text_is_shown_as_it_was_written(text):
    assert shown(indexed(text, 1)) == text
    assert shown(indexed(text, -12)) == text


async def test_every_word_first_then_any_word(notes):
    both = await notes.add(1, "milk and bread for breakfast")
    await notes.add(1, "milk for the cat")
    await notes.add(1, "bread from the bakery")
    assert [f.id for f in await notes.search(1, "milk bread")] == [both.id]
    assert len(await notes.search(1, "milk cheese")) == 2  # no note has both: any word


async def test_notes_belong_to_their_owner(notes):
    mine = await notes.add(1, "my secret plan")
    assert await notes.search(2, "secret") == []
    assert await notes.list_notes(2) == []
    with pytest.raises(ToolError, match="no note"):
        await notes.delete(2, mine.id)
    assert [n.id for n in await notes.list_notes(1)] == [mine.id]
    await notes.delete(1, mine.id)
    assert await notes.search(1, "secret") == []


@pytest.mark.parametrize(
    ("content", "tags"), [("   ", ()), ("x" * 10_001, ()), ("ok", [str(i) for i in range(11)])]
)
async def test_bad_notes_are_refused_and_nothing_is_stored(notes, content, tags):
    with pytest.raises(ToolError):
        await notes.add(1, content, tags)
    assert await notes.list_notes(1) == []


async def test_past_conversation_is_searched_in_this_chat_or_all(conversations):
    await conversations.append(
        10, 1, "t1", [UserMessage("the wifi password is on the fridge"), AssistantMessage("Noted.")]
    )
    await conversations.append(
        11,
        1,
        "t2",
        [
            UserMessage("wifi at the office is slow"),
            AssistantMessage("", (ToolCall("c", "x", {}),)),
        ],
    )
    await conversations.append(12, 2, "t3", [UserMessage("my wifi is someone else's")])
    here = await conversations.search(1, "wifi", chat_id=10)
    everywhere = await conversations.search(1, "wifi")
    assert [f.detail for f in here] == ["you said"] and len(everywhere) == 2


async def test_search_memory_cites_note_ids_and_dates(conn, clock, notes, conversations):
    executor = Executor(Registry(builtin_tools()), AuditLog(conn, clock))
    context = ToolContext(
        1, 10, "r", "Europe/Berlin", clock, Services(notes=notes, conversations=conversations)
    )
    from assistant.llm.types import ToolCall as Call

    (saved,) = await executor.run(
        [Call("a", "save_note", {"content": "Dentist is Dr. Weiss, Tuesdays", "tags": ["health"]})],
        context,
    )
    assert saved.content.startswith("Saved note 1 [health]")
    await conversations.append(10, 1, "t", [UserMessage("remind me about the dentist")])
    (found,) = await executor.run([Call("b", "search_memory", {"query": "dentist"})], context)
    assert "note 1 (2026-03-14) [health]: [Dentist]" in found.content
    assert "you said on 2026-03-14" in found.content


async def test_a_very_common_word_is_ranked_among_the_newest_matches(notes, monkeypatch):
    from assistant.memory import fts

    monkeypatch.setattr(fts, "CANDIDATES", 3)
    oldest = await notes.add(1, "milk milk milk milk")
    newer = [await notes.add(1, f"milk and item {n}") for n in range(4)]
    found = [f.id for f in await notes.search(1, "milk", 10)]
    assert oldest.id not in found and sorted(found) == [n.id for n in newer[1:]]
    monkeypatch.setattr(fts, "CANDIDATES", 100)
    assert (await notes.search(1, "milk", 1))[0].id == oldest.id


async def test_indexes_of_an_older_database_are_rebuilt_under_their_owners(tmp_path, clock):
    path = tmp_path / "old.db"
    old = await open_database(path, MIGRATIONS[:9])  # schema 9: the owner as a column
    async with old.write() as conn:
        await conn.execute(
            "INSERT INTO notes (id, user_id, content, tags, created_at) VALUES "
            "(1, 1, 'the wifi password is on the fridge', '[\"home\"]', '2026-01-01T00:00:00'),"
            "(2, 2, 'wifi at the office', '[]', '2026-01-01T00:00:00')"
        )
        await conn.execute(
            "INSERT INTO notes_fts (rowid, body, tags, owner) VALUES "
            "(1, 'the wifi password is on the fridge', 'home', 'u1'), (2, 'wifi at the office', '', 'u2')"
        )
        await conn.execute(
            "INSERT INTO messages (id, chat_id, user_id, session, turn_id, role, content, "
            "calls, is_error, tokens, created_at) VALUES "
            "(1, -100, 1, 1, 't', 'user', '明天去东京', '[]', 0, 5, '2026-01-01T00:00:00'),"
            "(2, -100, 1, 1, 't', 'tool', 'tool output about 东京', '[]', 0, 5, '2026-01-01T00:00:00')"
        )
    await old.close()
    db = await open_database(path)
    try:
        notes, conversations = Notes(db, clock), Conversations(db, clock)
        (found,) = await notes.search(1, "wifi")
        assert found.id == 1 and found.snippet == "the [wifi] password is on the fridge"
        assert [f.id for f in await notes.search(1, "home")] == [1]  # tags too
        assert [f.id for f in await notes.search(2, "wifi")] == [2]  # each their own
        (said,) = await conversations.search(1, "东京", chat_id=-100)
        assert said.id == 1 and said.snippet == "明天去[东京]"
        assert await conversations.search(2, "东京") == []
        assert len(await notes.list_notes(1)) == 1  # the rows themselves are untouched
    finally:
        await db.close()
