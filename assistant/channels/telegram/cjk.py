"""Emphasis next to Chinese, Japanese and Korean text, read as their writers mean it.

CommonMark does not let ``**`` close after punctuation when a letter follows, which is how CJK
text is written (``**「重要」**です``: no space after the closing marks). As in the CJK-friendly
amendment to CommonMark, a CJK character beside a delimiter run counts as whitespace does for
that rule.
"""

from __future__ import annotations

import unicodedata

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.parser_inline import ParserInline
from markdown_it.rules_inline.state_inline import Scanned, StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType

_CJK_BLOCKS = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "FULLWIDTH", "IDEOGRAPHIC")


def cjk(char: str) -> bool:
    """Whether ``char`` is a CJK letter or CJK punctuation."""
    if ord(char) < 0x2E80:
        return False
    name = unicodedata.name(char, "")
    return name.startswith(_CJK_BLOCKS) or "CJK" in name or 0x3000 <= ord(char) <= 0x303F


class CjkState(StateInline):
    """Inline state whose delimiter runs may open or close beside CJK text."""

    def scanDelims(self, start: int, canSplitWord: bool) -> Scanned:
        """Whether the run at ``start`` can open or close emphasis, CJK-friendly."""
        scanned = super().scanDelims(start, canSplitWord)
        last = self.src[start - 1] if start > 0 else " "
        end = start + scanned.length
        after = self.src[end] if end < self.posMax else " "
        if not (cjk(last) or cjk(after)):
            return scanned
        last_punct, next_punct = _punct(last), _punct(after)
        last_space = isWhiteSpace(ord(last)) or cjk(last)
        next_space = isWhiteSpace(ord(after)) or cjk(after)
        left = not (isWhiteSpace(ord(after)) or (next_punct and not (last_space or last_punct)))
        right = not (isWhiteSpace(ord(last)) or (last_punct and not (next_space or next_punct)))
        can_open = left and (canSplitWord or not right or last_punct)
        can_close = right and (canSplitWord or not left or next_punct)
        return Scanned(can_open, can_close, scanned.length)


class CjkParserInline(ParserInline):
    """The inline parser, with the CJK-friendly state."""

    def parse(self, src: str, md: MarkdownIt, env: EnvType, tokens: list[Token]) -> list[Token]:
        """Tokenize ``src`` as the base parser does, in a CJK-friendly state."""
        state = CjkState(src, md, env, tokens)
        self.tokenize(state)
        for rule in self.ruler2.getRules(""):
            rule(state)
        return state.tokens


def _punct(char: str) -> bool:
    return isMdAsciiPunct(ord(char)) or isPunctChar(char)
