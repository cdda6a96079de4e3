"""Full-text search over an owner's rows: queries that cannot break FTS5 syntax, BM25 ranks.

How text is indexed (CJK per character, each word behind its owner's mark) is in
``assistant.fulltext``; here are the queries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.db import Row, Session
from assistant.fulltext import searched, shown

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 16
CANDIDATES = 500  # ranked at most: BM25 costs grow with them (p99 16 ms at 2,000, 8 at 500)
MARK_OPEN, MARK_CLOSE = "[", "]"


def chat_token(chat_id: int) -> str:
    """The token that marks a chat's messages (group chats have negative ids)."""
    return f"c{chat_id}".replace("-", "n")


def match_query(
    query: str, user_id: int, chat_id: int | None = None, every: bool = True
) -> str | None:
    """An FTS5 MATCH expression: the user's rows (in one chat, if given) holding every word
    (or any, if not ``every``).

    None when the query has no words. Each word is a quoted phrase of the user's tokens, so
    no input can be read as FTS5 syntax (operators, columns, parentheses).
    """
    terms = [searched(word, user_id) for word in _WORD.findall(query)][:MAX_TERMS]
    phrases = [f'"{term}"' for term in terms if term]
    if not phrases:
        return None
    joined = (" AND " if every else " OR ").join(phrases)
    return f'chat : "{chat_token(chat_id)}" AND ({joined})' if chat_id is not None else joined


@dataclass(frozen=True)
class Index:
    """A full-text index over a table: its FTS5 table and the BM25 weights of its columns."""

    fts: str
    table: str
    weights: str


@dataclass(frozen=True)
class Hit:
    """A row found, its BM25 rank (lower is better) and a snippet around the match."""

    row: Row
    rank: float
    snippet: str


async def search(
    conn: Session, index: Index, query: str, user_id: int, *, chat_id: int | None = None, limit: int
) -> list[Hit]:
    """The best rows of the user holding every word of ``query``, else any of its words.

    Ranking reads only the index; snippets and rows are fetched for the few ranked best. A
    query matching more than ``CANDIDATES`` rows is ranked among the newest that many, so a
    very common word costs no more than a rare one.
    """
    ranked: dict[int, float] = {}
    expression = ""
    for every in (True, False):
        expression = match_query(query, user_id, chat_id, every) or ""
        if not expression:
            return []
        oldest = await _oldest_candidate(conn, index, expression)
        async with conn.execute(
            f"SELECT rowid, bm25({index.fts}, {index.weights}) AS r FROM {index.fts} "
            f"WHERE {index.fts} MATCH ? AND rowid >= ? ORDER BY r LIMIT ?",
            (expression, oldest, limit),
        ) as cursor:
            ranked = {row[0]: row[1] for row in await cursor.fetchall()}
        if ranked or len(_WORD.findall(query)) < 2:
            break
    return await _hits(conn, index, expression, ranked, user_id) if ranked else []


async def _oldest_candidate(conn: Session, index: Index, expression: str) -> int:
    async with conn.execute(
        f"SELECT rowid FROM {index.fts} WHERE {index.fts} MATCH ? "
        "ORDER BY rowid DESC LIMIT 1 OFFSET ?",
        (expression, CANDIDATES - 1),
    ) as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def _hits(
    conn: Session,
    index: Index,
    expression: str,
    ranked: dict[int, float],
    user_id: int,
) -> list[Hit]:
    marks = ", ".join("?" * len(ranked))
    async with conn.execute(
        f"SELECT rowid, snippet({index.fts}, 0, '{MARK_OPEN}', '{MARK_CLOSE}', '…', 16) "
        f"FROM {index.fts} WHERE {index.fts} MATCH ? AND rowid IN ({marks})",
        (expression, *ranked),
    ) as cursor:
        snippets = {row[0]: shown(row[1]) for row in await cursor.fetchall()}
    async with conn.execute(
        f"SELECT * FROM {index.table} WHERE id IN ({marks}) AND user_id = ?",
        (*ranked, user_id),
    ) as cursor:
        rows = {row["id"]: row for row in await cursor.fetchall()}
    return [Hit(rows[i], rank, snippets.get(i, "")) for i, rank in ranked.items() if i in rows]
