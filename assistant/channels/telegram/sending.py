"""Rendered pieces sent and edited through the Bot API as text with entities.

A piece Telegram refuses all the same is sent once more as its plain text (already cut to
Telegram's length in UTF-16 units), and Telegram's reason is logged: no answer is lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from telegram import Bot, InlineKeyboardMarkup, LinkPreviewOptions, MessageEntity
from telegram.error import BadRequest

from assistant.channels.telegram.entities import Rendered
from assistant.channels.telegram.pieces import pieces

log = logging.getLogger(__name__)

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
EMPTY = "…"  # Telegram refuses an empty message
ON_THE_LOOP = 8_000  # characters rendered on the event loop (about 40 ms at most)


def markdown_pieces(markdown: str) -> list[Rendered]:
    """Markdown as the messages that show it, at least one."""
    # markdown-it is imported with the first answer, not at start-up (about 40 ms).
    from assistant.channels.telegram.render import render

    return pieces(render(markdown)) or [Rendered(EMPTY)]


async def rendered(markdown: str) -> list[Rendered]:
    """``markdown_pieces``, in a worker thread when the text is long enough that rendering
    it would hold up the event loop (about 5 µs a character)."""
    if len(markdown) <= ON_THE_LOOP:
        return markdown_pieces(markdown)
    return await asyncio.to_thread(markdown_pieces, markdown)


async def send_all(
    bot: Bot, chat_id: int, parts: Sequence[Rendered], markup: InlineKeyboardMarkup | None
) -> int:
    """Send the pieces in order, ``markup`` under the last; return the last message id."""
    message_id = 0
    for index, piece in enumerate(parts):
        last = index == len(parts) - 1
        message_id = await send_piece(bot, chat_id, piece, markup if last else None)
    return message_id


async def send_piece(
    bot: Bot, chat_id: int, piece: Rendered, markup: InlineKeyboardMarkup | None
) -> int:
    """Send one piece; if Telegram refuses its entities, send its plain text."""
    try:
        sent = await bot.send_message(
            chat_id,
            piece.text,
            entities=message_entities(piece),
            link_preview_options=NO_PREVIEW,
            reply_markup=markup,
        )
    except BadRequest as exc:
        if not piece.entities:
            raise
        log.warning("Telegram refused a formatted message (%s); sent as plain text", exc.message)
        sent = await bot.send_message(
            chat_id, piece.text, link_preview_options=NO_PREVIEW, reply_markup=markup
        )
    return sent.message_id


async def edit_piece(bot: Bot, chat_id: int, message_id: int, piece: Rendered) -> None:
    """Make a sent message show ``piece``; unchanged text is not an error."""
    try:
        await _edit(bot, chat_id, message_id, piece, formatted=True)
    except BadRequest as exc:
        if _unchanged(exc):
            return
        if not piece.entities:
            raise
        log.warning("Telegram refused a formatted edit (%s); shown as plain text", exc.message)
        try:
            await _edit(bot, chat_id, message_id, piece, formatted=False)
        except BadRequest as again:
            if not _unchanged(again):
                raise


async def _edit(bot: Bot, chat_id: int, message_id: int, piece: Rendered, formatted: bool) -> None:
    await bot.edit_message_text(
        piece.text,
        chat_id,
        message_id,
        entities=message_entities(piece) if formatted else None,
        link_preview_options=NO_PREVIEW,
    )


def _unchanged(exc: BadRequest) -> bool:
    return "not modified" in exc.message.lower()


def message_entities(piece: Rendered) -> list[MessageEntity]:
    """The Bot API's entities for a piece."""
    return [
        MessageEntity(e.kind, e.offset, e.length, url=e.url or None, language=e.language or None)
        for e in piece.entities
    ]
