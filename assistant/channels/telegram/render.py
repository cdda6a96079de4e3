"""Model Markdown as Telegram text with entities: no markup is sent, so none can be refused.

Markdown is read by markdown-it (CommonMark, with tables and strikethrough) plus three rules
for how chat models write prose: identifiers such as ``__init__`` and ``snake_case``, products
such as ``2*3*4`` and bare URLs stay as written. Entities are measured in UTF-16 code units,
as Telegram counts them, and kept to what Telegram accepts: nothing inside code, no code in a
link, no quote in a quote, no code block in a quote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from assistant.channels.telegram.cjk import CjkParserInline
from assistant.channels.telegram.entities import Entity, EntityKind, Rendered, units
from assistant.channels.telegram.table import table_text

LINK_SCHEMES = ("http://", "https://", "tg://", "mailto:")
RULE = "———"


def render(markdown: str) -> Rendered:
    """Telegram text and entities for Markdown as chat models write it."""
    writer = _Writer()
    _blocks(_PARSER.parse(markdown), writer)
    return Rendered(writer.result(), _allowed(writer.entities))


# ---- how chat models write: three inline rules ahead of emphasis ---------------------------

_IDENTIFIER = re.compile(r"_+[A-Za-z0-9]+(?:_+[A-Za-z0-9]+)*_*")
_URL = re.compile(r"://[^\s<>]*")
_URL_TAIL = ".,;:!?'\"*_"


def _identifier(state: StateInline, silent: bool) -> bool:
    """``__init__``, ``_private_name``: an identifier that starts with underscores is text."""
    pos = state.pos
    if state.src[pos] != "_" or (pos > 0 and _wordy(state.src[pos - 1])):
        return False
    found = _IDENTIFIER.match(state.src, pos)
    if found is None:
        return False
    word = found.group()
    inner = word.strip("_")
    if not (word.startswith("__") or "_" in inner):
        return False  # _italic_ is emphasis
    if not silent:
        state.pending += word
    state.pos = found.end()
    return True


def _product(state: StateInline, silent: bool) -> bool:
    """``2*3*4``, ``a*b``: a lone asterisk between Latin letters or digits is text (in CJK
    text, where words have no spaces, it is emphasis)."""
    src, pos = state.src, state.pos
    if src[pos] != "*" or pos == 0 or pos + 1 >= len(src):
        return False
    if not (_ascii_word(src[pos - 1]) and _ascii_word(src[pos + 1])):
        return False
    if not silent:
        state.pending += "*"
    state.pos += 1
    return True


def _bare_url(state: StateInline, silent: bool) -> bool:
    """``https://host/__init__.py``: a bare URL is text (Telegram links it itself)."""
    src, pos = state.src, state.pos
    if src[pos] != ":" or not re.search(r"(?<![\w.])https?$", state.pending[-7:]):
        return False
    found = _URL.match(src, pos)
    if found is None or found.end() - pos <= 3:
        return False
    url = found.group().rstrip(_URL_TAIL)
    while url.endswith(")") and url.count(")") > url.count("("):
        url = url[:-1].rstrip(_URL_TAIL)
    if not silent:
        state.pending += url
    state.pos += len(url)
    return True


def _ascii_word(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    inline = CjkParserInline()
    inline.ruler, inline.ruler2 = parser.inline.ruler, parser.inline.ruler2
    parser.inline = inline
    for name, rule in (("bare_url", _bare_url), ("identifier", _identifier)):
        parser.inline.ruler.before("emphasis", name, rule)
    parser.inline.ruler.before("emphasis", "product", _product)
    return parser


_PARSER = _parser()


# ---- the writer: text, entities and the breaks between blocks ------------------------------


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.at = 0  # UTF-16 units written
        self.entities: list[tuple[int, Entity]] = []  # with the order they were opened in
        self._open: list[tuple[int, EntityKind, int, str, str]] = []
        self._opened = 0
        self._pending = 0  # newlines owed before the next text
        self._newlines = 0  # newlines the text written so far ends with
        self.item_start = False  # just wrote a list marker: the item's first block follows

    def text(self, text: str) -> None:
        if not text:
            return
        self._flush()
        self.parts.append(text)
        self.at += units(text)
        stripped = text.rstrip("\n")
        ended = len(text) - len(stripped)
        self._newlines = self._newlines + ended if not stripped else ended

    def space(self, lines: int) -> None:
        if self.item_start:
            self.item_start = False
        else:
            self._pending = max(self._pending, lines)

    def open(self, kind: EntityKind, url: str = "", language: str = "") -> None:
        self._flush()
        self._open.append((self._opened, kind, self.at, url, language))
        self._opened += 1

    def close(self) -> None:
        order, kind, start, url, language = self._open.pop()
        if self.at > start:
            self.entities.append((order, Entity(kind, start, self.at - start, url, language)))

    def result(self) -> str:
        return "".join(self.parts)

    def _flush(self) -> None:
        owed, self._pending = self._pending - self._newlines, 0
        if owed > 0 and self.parts:
            self.text("\n" * owed)


# ---- blocks ----------------------------------------------------------------------------------


def _blocks(tokens: Sequence[Token], w: _Writer) -> None:
    lists: list[bool] = []  # per open list: whether it is numbered
    at = 0
    while at < len(tokens):
        token = tokens[at]
        kind = token.type
        if kind == "table_open":
            end = _closing(tokens, at)
            w.space(2)
            w.open("pre")
            w.text(table_text(_rows(tokens[at:end])))
            w.close()
            at = end
        elif kind in ("bullet_list_open", "ordered_list_open"):
            w.space(1 if lists else 2)
            lists.append(kind == "ordered_list_open")
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            _item(token, len(lists) - 1, lists[-1], w)
        else:
            _block(token, w)
        at += 1


def _item(token: Token, depth: int, numbered: bool, w: _Writer) -> None:
    """A list item's marker: a numbered one keeps the number written (notes 4, 3, 2 stay 4, 3,
    2; Markdown would count on from the first)."""
    w.space(1)
    marker = f"{token.info}{token.markup}" if numbered else "•"
    w.text("   " * depth + marker + " ")
    w.item_start = True


def _block(token: Token, w: _Writer) -> None:
    kind = token.type
    if kind == "paragraph_open":
        w.space(1 if token.hidden else 2)
    elif kind == "heading_open":
        w.space(2)
        w.open("bold")
    elif kind in ("heading_close", "blockquote_close"):
        w.close()
    elif kind == "blockquote_open":
        w.space(2)
        w.open("blockquote")
    elif kind in ("fence", "code_block"):
        w.space(2)
        w.open("pre", language=token.info.split(maxsplit=1)[0] if token.info.strip() else "")
        w.text(token.content.rstrip("\n"))
        w.close()
    elif kind == "hr":
        w.space(2)
        w.text(RULE)
    elif kind == "html_block":
        w.space(2)
        w.text(token.content.rstrip("\n"))
    elif kind == "inline":
        _inline(token.children or [], w)


def _closing(tokens: Sequence[Token], at: int) -> int:
    """The index of the token closing the one at ``at``."""
    depth = 0
    for index in range(at, len(tokens)):
        depth += tokens[index].nesting
        if depth == 0:
            return index
    return len(tokens) - 1


def _rows(tokens: Sequence[Token]) -> list[list[str]]:
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows:
            rows[-1].append(_plain(token.children or []))
    return rows


# ---- inline ----------------------------------------------------------------------------------

_STYLES: dict[str, EntityKind] = {
    "strong_open": "bold",
    "em_open": "italic",
    "s_open": "strikethrough",
}
_CLOSES = {"strong_close", "em_close", "s_close"}


def _inline(children: Sequence[Token], w: _Writer) -> None:
    links: list[bool] = []  # per open link: whether it became an entity
    for child in children:
        kind = child.type
        if kind in _STYLES:
            w.open(_STYLES[kind])
        elif kind in _CLOSES:
            w.close()
        elif kind == "code_inline":
            w.open("code")
            w.text(child.content)
            w.close()
        elif kind == "link_open":
            url = str(child.attrGet("href") or "")
            links.append(url.startswith(LINK_SCHEMES))
            if links[-1]:
                w.open("text_link", url=url)
        elif kind == "link_close":
            if links.pop():
                w.close()
        elif kind == "image":
            w.text(_plain(child.children or []) or str(child.attrGet("src") or ""))
        elif kind in ("softbreak", "hardbreak"):
            w.text("\n")
        else:
            w.text(child.content)


def _plain(children: Sequence[Token]) -> str:
    """Inline tokens as text alone (table cells, image descriptions)."""
    out = []
    for child in children:
        if child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.append(_plain(child.children or []))
        else:
            out.append(child.content)
    return "".join(out)


# ---- what Telegram accepts -------------------------------------------------------------------


def _allowed(entities: Sequence[tuple[int, Entity]]) -> tuple[Entity, ...]:
    """Entities sorted outer first (of two over the same text, the one opened first), without
    the nestings Telegram refuses; one pass, as they nest properly (a stack of the spans
    around each one)."""
    keyed = sorted(entities, key=lambda pair: (pair[1].offset, -pair[1].length, pair[0]))
    ordered = [entity for _, entity in keyed]
    kept: dict[Entity, None] = {}
    around: list[Entity] = []
    for entity in ordered:
        while around and around[-1].end <= entity.offset:
            around.pop()
        if not any(_refuses(outer.kind, entity.kind) for outer in around):
            kept[entity] = None
            if entity.kind == "pre":  # a quote holding a code block is shown as plain lines
                for quote in (o for o in around if o.kind == "blockquote"):
                    kept.pop(quote, None)
        around.append(entity)
    return tuple(kept)


def _refuses(outer: EntityKind, inner: EntityKind) -> bool:
    if outer in ("code", "pre"):
        return True
    if outer == "text_link" and inner in ("code", "pre", "text_link"):
        return True
    return outer == "blockquote" and inner == "blockquote"
