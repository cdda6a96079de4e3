"""Model Markdown as Telegram HTML, in messages under Telegram's 4096-character limit.

Only the tags Telegram knows are made (b, i, s, code, pre, a); everything else is escaped.
Long text is split at paragraph, then line, then word boundaries; a code block that must be
split is closed at the end of one message and opened again at the start of the next.
"""

from __future__ import annotations

import html
import re

LIMIT = 4096
_BUDGET = LIMIT - 64  # room for the tags that close and reopen a split code block
_FENCE = re.compile(r"```([\w+-]*)\n(.*?)(?:```|\Z)", re.DOTALL)
_INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|\*\*(?P<bold>[^*\n]+)\*\*"
    r"|__(?P<bold2>[^_\n]+)__"
    r"|~~(?P<strike>[^~\n]+)~~"
    r"|(?<![\w*])\*(?P<italic>[^*\n]+)\*(?![\w*])"
    r"|(?<![\w_])_(?P<italic2>[^_\n]+)_(?![\w_])"
    r"|\[(?P<label>[^\]\n]+)\]\((?P<url>https?://[^)\s]+)\)"
)
_HEADING = re.compile(r"^#{1,6}\s+(.+)$", re.MULTILINE)


def to_html(markdown: str) -> str:
    """Telegram HTML for Markdown as models write it."""
    parts, at = [], 0
    for block in _FENCE.finditer(markdown):
        parts.append(_inline(markdown[at : block.start()]))
        language, code = block.group(1), block.group(2).rstrip("\n")
        attribute = f' class="language-{language}"' if language else ""
        parts.append(f"<pre><code{attribute}>{html.escape(code, quote=False)}</code></pre>")
        at = block.end()
    parts.append(_inline(markdown[at:]))
    return "".join(parts)


def _inline(text: str) -> str:
    text = _HEADING.sub(r"**\1**", text)
    out, at = [], 0
    for match in _INLINE.finditer(text):
        out.append(html.escape(text[at : match.start()], quote=False))
        out.append(_tag(match))
        at = match.end()
    out.append(html.escape(text[at:], quote=False))
    return "".join(out)


def _tag(match: re.Match[str]) -> str:
    found = {k: v for k, v in match.groupdict().items() if v is not None}
    escaped = {k: html.escape(v, quote=True) for k, v in found.items()}
    if "code" in found:
        return f"<code>{escaped['code']}</code>"
    if "label" in found:
        return f'<a href="{escaped["url"]}">{escaped["label"]}</a>'
    tags = {"bold": "b", "bold2": "b", "strike": "s", "italic": "i", "italic2": "i"}
    key = next(iter(found))
    return f"<{tags[key]}>{escaped[key]}</{tags[key]}>"


def split_html(text: str, limit: int = _BUDGET) -> list[str]:
    """Telegram HTML in pieces under the limit, code blocks closed and reopened across them."""
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = _cut_point(rest, limit)
        head, rest = rest[:cut], rest[cut:].lstrip("\n")
        opening = _open_pre(head)
        if opening:
            head += "</code></pre>"
            rest = opening + rest
        pieces.append(head)
    pieces.append(rest)
    return [p for p in pieces if p.strip()]


def _cut_point(text: str, limit: int) -> int:
    window = text[:limit]
    for separator in ("\n\n", "\n", " "):
        at = window.rfind(separator)
        if at > limit // 3 and not _inside_tag(window, at):
            return at
    at = limit
    while _inside_tag(window, at) or _inside_entity(window, at):
        at -= 1
    return at


def _inside_tag(text: str, at: int) -> bool:
    return text.rfind("<", 0, at) > text.rfind(">", 0, at)


def _inside_entity(text: str, at: int) -> bool:
    amp = text.rfind("&", 0, at)
    return amp != -1 and ";" not in text[amp:at] and at - amp < 10


def _open_pre(text: str) -> str:
    """The tags to reopen when ``text`` ends inside a code block, else an empty string."""
    last = text.rfind("<pre>")
    if last == -1 or text.rfind("</pre>") > last:
        return ""
    code = re.match(r"<pre><code[^>]*>", text[last:])
    return code.group(0) if code else "<pre>"


def to_plain(markdown: str) -> list[str]:
    """The text as it is, in pieces under the limit: the fallback when markup is refused."""
    return [html.unescape(p) for p in split_html(html.escape(markdown, quote=False), LIMIT - 16)]
