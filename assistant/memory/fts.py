"""Full-text search helpers: any script findable, queries that cannot break FTS5 syntax.

SQLite's unicode61 tokenizer splits words at separators, which Chinese and Japanese do not
write. So each CJK character is indexed as its own token (a zero-width space, a separator to
the tokenizer, is put around it) and a CJK word is searched as the phrase of its characters;
snippets get the zero-width spaces taken out again.
"""

from __future__ import annotations

import re

import aiosqlite

_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff"
)
_CJK_CHAR = re.compile(f"([{_CJK}])")
_SPLIT = "\u200b"
_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 16
MARK_OPEN, MARK_CLOSE = "[", "]"


def segment(text: str) -> str:
    """Text as it is indexed: each CJK character its own token."""
    return _CJK_CHAR.sub(f"{_SPLIT}\\1{_SPLIT}", text)


def unsegment(text: str) -> str:
    """Indexed text (a snippet) back as it was written."""
    return text.replace(_SPLIT, "")


def owner_tokens(user_id: int, chat_id: int | None = None) -> str:
    """The owner column of an indexed row: a token for the user, and one for the chat."""
    tokens = [user_token(user_id)]
    if chat_id is not None:
        tokens.append(chat_token(chat_id))
    return " ".join(tokens)


def user_token(user_id: int) -> str:
    """The token that marks a user's rows."""
    return f"u{user_id}".replace("-", "n")


def chat_token(chat_id: int) -> str:
    """The token that marks a chat's rows (group chats have negative ids)."""
    return f"c{chat_id}".replace("-", "n")


def match_query(query: str, owner: str, every: bool = True) -> str | None:
    """An FTS5 MATCH expression: the owner's rows holding every word (or any, if not ``every``).

    None when the query has no words. Each word is a quoted phrase, so no input can be read
    as FTS5 syntax (operators, columns, parentheses).
    """
    terms = [segment(word).strip(_SPLIT) for word in _WORD.findall(query)][:MAX_TERMS]
    phrases = [f'"{term}"' for term in terms if term]
    if not phrases:
        return None
    joined = (" AND " if every else " OR ").join(phrases)
    return f'owner : "{owner}" AND ({joined})'


async def search_rows(
    conn: aiosqlite.Connection, sql: str, query: str, owner: str, params: tuple[object, ...]
) -> list[aiosqlite.Row]:
    """Rows of ``sql`` (its first parameter the MATCH) holding every word, else any word."""
    for every in (True, False):
        expression = match_query(query, owner, every)
        if expression is None:
            return []
        async with conn.execute(sql, (expression, *params)) as cursor:
            rows = list(await cursor.fetchall())
        if rows or len(_WORD.findall(query)) < 2:
            return rows
    return []
