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
    terms = [searched(word, user_id) for word in _words(query)][:MAX_TERMS]
    phrases = [f'"{term}"' for term in terms if term]
    if not phrases:
        return None
    joined = (" AND " if every else " OR ").join(phrases)
    return f'chat : "{chat_token(chat_id)}" AND ({joined})' if chat_id is not None else joined


def _words(query: str) -> list[str]:
    """The query's words, each once (case aside): each phrase costs BM25 a read of its list."""
    return list({word.casefold(): word for word in _WORD.findall(query)}.values())


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

    Ranking and snippets come from the index in one statement; rows are fetched for the few
    ranked best. A query matching more than ``CANDIDATES`` rows is ranked among the newest
    that many, so a very common word costs no more than a rare one.
    """
    ranked: dict[int, tuple[float, str]] = {}
    for every in (True, False):
        expression = match_query(query, user_id, chat_id, every)
        if expression is None:
            return []
        # The snippet is made as each candidate is read (on the row the index stands on):
        # looked up again by rowid afterwards, it cost more than the whole ranking.
        async with conn.execute(
            f"SELECT rowid, bm25({index.fts}, {index.weights}) AS r, "
            f"snippet({index.fts}, 0, '{MARK_OPEN}', '{MARK_CLOSE}', '…', 16) "
            f"FROM {index.fts} WHERE {index.fts} MATCH ?1 AND rowid >= COALESCE(("
            f"SELECT rowid FROM {index.fts} WHERE {index.fts} MATCH ?1 "
            "ORDER BY rowid DESC LIMIT 1 OFFSET ?2), 0) ORDER BY r LIMIT ?3",
            (expression, CANDIDATES - 1, limit),
        ) as cursor:
            ranked = {row[0]: (row[1], shown(row[2])) for row in await cursor.fetchall()}
        if ranked or len(_words(query)) < 2:
            break
    return await _hits(conn, index, ranked, user_id) if ranked else []


async def _hits(
    conn: Session, index: Index, ranked: dict[int, tuple[float, str]], user_id: int
) -> list[Hit]:
    """The ranked rows that are the user's own, best first."""
    marks = ", ".join("?" * len(ranked))
    async with conn.execute(
        f"SELECT * FROM {index.table} WHERE id IN ({marks}) AND user_id = ?",
        (*ranked, user_id),
    ) as cursor:
        rows = {row["id"]: row for row in await cursor.fetchall()}
    return [Hit(rows[i], rank, snippet) for i, (rank, snippet) in ranked.items() if i in rows]
