"""How text is indexed for full-text search: any script findable, each word under its owner.

SQLite's unicode61 tokenizer splits words at separators, which Chinese and Japanese do not
write. So each CJK character is indexed as its own token (a zero-width space, a separator to
the tokenizer, is put around it) and a CJK word is searched as the phrase of its characters.

Each token is indexed behind its owner's mark (``u42x`` + ``milk``): one user's words are
other tokens than another's, so a search reads only its owner's part of the index, and BM25
weighs words by the owner's own notes. (With the owner as a column of its own, BM25 read the
owner's whole list and every word's list over all users, once a query: 110 ms at a million.)
"""

from __future__ import annotations

import re

_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff"
)
_CJK_CHAR = re.compile(f"([{_CJK}])")
_SPLIT = "\u200b"
# The tokens unicode61 makes: runs of letters and digits (an underscore or a mark separates).
_TOKEN = re.compile(r"[^\W_]+")
_MARK = re.compile(r"(?<![^\W_])un?\d+x")  # an owner's mark where a token starts


def segment(text: str) -> str:
    """Text with each CJK character its own token."""
    return _CJK_CHAR.sub(f"{_SPLIT}\\1{_SPLIT}", text)


def mark(user_id: int) -> str:
    """What each of a user's tokens is indexed behind."""
    return f"u{user_id}x".replace("-", "n")


def indexed(text: str | None, user_id: int) -> str:
    """Text as it is indexed for its owner: segmented, each token behind the owner's mark."""
    owner = mark(user_id)
    return _TOKEN.sub(lambda token: owner + token[0], segment(text or ""))


def searched(word: str, user_id: int) -> str:
    """A word of a query as the owner's tokens it is indexed as (a phrase of them)."""
    owner = mark(user_id)
    return " ".join(owner + token for token in _TOKEN.findall(segment(word)))


def shown(text: str) -> str:
    """Indexed text (a snippet) back as it was written."""
    return _MARK.sub("", text).replace(_SPLIT, "")
