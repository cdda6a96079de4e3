"""Full-text search helpers: any script findable, queries that cannot break FTS5 syntax.

SQLite's unicode61 tokenizer splits words at separators, which Chinese and Japanese do not
write. So each CJK character is indexed as its own token (a zero-width space, a separator to
the tokenizer, is put around it) and a CJK word is searched as the phrase of its characters;
snippets get the zero-width spaces taken out again.
"""

from __future__ import annotations

import re

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


def match_query(query: str) -> str | None:
    """An FTS5 MATCH expression for plain words: any of them, each as a quoted phrase.

    None when the query has no words. Quoting every term means no input can be read as
    FTS5 syntax (operators, columns, parentheses).
    """
    terms = [segment(word).strip(_SPLIT) for word in _WORD.findall(query)][:MAX_TERMS]
    phrases = [f'"{term}"' for term in terms if term]
    return " OR ".join(phrases) or None
