"""An answer as it grows in the chat: one message, edited as text streams in, then final."""

from __future__ import annotations

import time

from assistant.agent import AgentEvent, TextSoFar, ToolStarted
from assistant.agent.front.response import Response
from assistant.channels.telegram.sender import Sender
from assistant.channels.telegram.sending import edit_piece, rendered, send_all, send_piece


class Draft:
    """The answer as it grows: one message, edited at most every ``interval`` seconds."""

    def __init__(self, channel: Sender, chat_id: int, interval: float) -> None:
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
            await self._put(event.text, force=False)

    async def _put(self, text: str, *, force: bool) -> None:
        """Render and show ``text`` when it is due to be shown (a delta between edits is not)."""
        due = force or time.monotonic() - self._edited >= self._interval
        if self._message_id is not None and not due:
            return
        piece = (await rendered(text))[0]
        bot = self._channel.api
        if self._message_id is None:
            self._message_id = await send_piece(bot, self._chat_id, piece, None)
        else:
            await edit_piece(bot, self._chat_id, self._message_id, piece)
        self._edited = time.monotonic()

    async def finish(self, result: Response) -> None:
        """The final answer: the draft becomes its first piece, the rest follow."""
        if self._message_id is None or result.buttons:
            await self._channel.send(self._chat_id, result.text, result.buttons)
        else:
            await self._replace(result.text)
        for name, content in result.files:
            await self._channel.api.send_document(self._chat_id, content, filename=name)
        for attachment in result.images:
            await self._channel.api.send_photo(
                self._chat_id, attachment.data, caption=attachment.caption[:1000]
            )

    async def _replace(self, markdown: str) -> None:
        assert self._message_id is not None
        first, *rest = await rendered(markdown)
        bot = self._channel.api
        await edit_piece(bot, self._chat_id, self._message_id, first)
        await send_all(bot, self._chat_id, rest, None)
