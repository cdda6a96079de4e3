"""Notes and past conversations: saved, searched (BM25, any script), listed and deleted."""

from __future__ import annotations

from typing import Literal

from assistant.memory.notes import Found
from assistant.tools.services import need, services_of
from assistant.tools.tool import Made, ToolContext, tool


@tool
async def save_note(context: ToolContext, content: str, tags: list[str] | None = None) -> Made:
    """Save a note for the user to find later.

    Args:
        content: the note, in the user's words
        tags: a few words to file it under
    """
    notes = need(services_of(context).notes, "note keeping")
    note = await notes.add(context.user_id, content, tags or ())
    tagged = f" [{', '.join(note.tags)}]" if note.tags else ""
    return Made(f"Saved note {note.id}{tagged}.", note)


@tool(read_only=True)
async def search_memory(
    context: ToolContext, query: str, limit: int = 5, scope: Literal["chat", "all"] = "chat"
) -> list[str]:
    """Search the user's notes and past conversation.

    Args:
        query: words to look for
        limit: how many results at most (1-20)
        scope: past conversation in this chat, or in all of the user's chats
    """
    services = services_of(context)
    notes = need(services.notes, "note keeping")
    conversations = need(services.conversations, "conversation memory")
    limit = max(1, min(limit, 20))
    chat = context.chat_id if scope == "chat" else None
    found = await notes.search(context.user_id, query, limit)
    found += await conversations.search(context.user_id, query, chat, limit)
    best = sorted(found, key=lambda f: f.rank)[:limit]
    return [_cite(f, context) for f in best] or [f"Nothing found for {query!r}."]


@tool(read_only=True)
async def list_notes(context: ToolContext, limit: int = 10) -> Made:
    """List the user's latest notes with their ids.

    Args:
        limit: how many (1-50)
    """
    notes = need(services_of(context).notes, "note keeping")
    listed = await notes.list_notes(context.user_id, max(1, min(limit, 50)))
    lines = [f"note {n.id} ({n.created_at:%Y-%m-%d}): {n.content}" for n in listed]
    return Made("\n".join(lines or ["No notes yet."]), tuple(listed))


@tool
async def delete_note(context: ToolContext, note_id: int) -> Made:
    """Delete one of the user's notes.

    Args:
        note_id: the note's number, as list_notes shows it
    """
    notes = need(services_of(context).notes, "note keeping")
    note = await notes.delete(context.user_id, note_id)
    return Made(f"Deleted note {note.id}: {note.content[:80]}", note)


def _cite(found: Found, context: ToolContext) -> str:
    day = f"{found.at.astimezone(context.local_now().tzinfo):%Y-%m-%d}"
    if found.kind == "note":
        tags = f" [{found.detail}]" if found.detail else ""
        return f"note {found.id} ({day}){tags}: {found.snippet}"
    return f"{found.detail} on {day}: {found.snippet}"
