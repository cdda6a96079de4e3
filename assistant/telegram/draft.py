"""An answer as it grows in the chat: one message, edited as text streams in, then final."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from telegram import LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import BadRequest

from assistant.agent import AgentEvent, Answer, TextSoFar, ToolStarted
from assistant.agent.commands import Reply
from assistant.telegram.render import split_html, to_html, to_plain

if TYPE_CHECKING:
    from assistant.telegram.bot import TelegramChannel

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


class Draft:
    """The answer as it grows: one message, edited at most every ``interval`` seconds."""

    def __init__(self, channel: TelegramChannel, chat_id: int, interval: float) -> None:
        self._channel = channel
        self._chat_id = chat_id
        self._interval = interval
        self._message_id: int | None = None
        self._edited = 0.0
        self._tools: list[str] = []

    async def show(self, event: AgentEvent) -> None:
        """Send or edit the draft with the text so far or the tools at work."""
        if isinstance(event, ToolStarted):
            self._tools.append(event.name)
            await self._put(f"⚙ {', '.join(self._tools)}…", force=True)
        elif isinstance(event, TextSoFar) and event.text.strip():
            await self._put(event.text[:4000], force=False)

    async def _put(self, text: str, *, force: bool) -> None:
        bot = self._channel.application.bot
        if self._message_id is None:
            sent = await bot.send_message(self._chat_id, text, link_preview_options=NO_PREVIEW)
            self._message_id, self._edited = sent.message_id, time.monotonic()
        elif force or time.monotonic() - self._edited >= self._interval:
            await self._edit(text, None)

    async def _edit(self, text: str, mode: str | None) -> None:
        try:
            await self._channel.application.bot.edit_message_text(
                text,
                self._chat_id,
                self._message_id,
                parse_mode=mode,
                link_preview_options=NO_PREVIEW,
            )
            self._edited = time.monotonic()
        except BadRequest as exc:
            if "not modified" not in str(exc).lower():
                raise

    async def finish(self, result: Reply | Answer) -> None:
        """The final answer: the draft becomes its first piece, the rest follow."""
        buttons = result.buttons if isinstance(result, Reply) else ()
        if self._message_id is None or buttons:
            await self._channel.send(self._chat_id, result.text, buttons)
        else:
            await self._replace(result.text)
        if isinstance(result, Reply):
            for name, content in result.files:
                await self._channel.application.bot.send_document(
                    self._chat_id, content, filename=name
                )
        if isinstance(result, Answer):
            for attachment in result.attachments:
                await self._channel.application.bot.send_photo(
                    self._chat_id, attachment.data, caption=attachment.caption[:1000]
                )

    async def _replace(self, markdown: str) -> None:
        pieces, html = split_html(to_html(markdown)), True
        try:
            await self._edit(pieces[0], ParseMode.HTML)
        except BadRequest:
            pieces, html = to_plain(markdown), False
            await self._edit(pieces[0], None)
        await self._channel.send_pieces(self._chat_id, pieces[1:], (), html)
