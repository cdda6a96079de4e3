"""What the bot does with the updates its gate lets in: words, voice notes and buttons; each
update marked in the inbox as it is begun and when it is answered."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram import Message, Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from assistant.agent import Person
from assistant.agent.channel import Assistant
from assistant.agent.dialog import documents
from assistant.agent.front.chats import ChatQueues
from assistant.agent.front.response import Response
from assistant.channels.telegram import pictures
from assistant.channels.telegram.draft import Draft
from assistant.channels.telegram.durations import seconds
from assistant.channels.telegram.entities import Entity, Rendered, units
from assistant.channels.telegram.sender import Sender
from assistant.channels.telegram.sending import send_piece
from assistant.config import SpeechSettings
from assistant.errors import BudgetError, DocumentError, FetchError, StorageError
from assistant.llm.types import Attachment, Document, Image
from assistant.memory.inbox import Inbox, State
from assistant.metrics import UPDATES as HANDLED
from assistant.usage.telling import over_budget

log = logging.getLogger(__name__)

BUSY = "I am still busy with your earlier messages; try again in a moment."
QUOTED = 300  # characters of a transcript shown back to the user
DOWNLOAD_FAILED = "I could not download that {what} from Telegram; please send it again."
Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Awaitable[bool | None]]


class Handlers:
    """What the channel does with the updates the gate lets in, for one assistant."""

    def __init__(
        self,
        channel: Sender,
        assistant: Assistant,
        queues: ChatQueues,
        inbox: Inbox | None = None,
    ) -> None:
        self._channel = channel
        self._assistant = assistant
        self._queues = queues
        self._inbox = inbox

    def kept(
        self, handler: Handler
    ) -> Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]:
        """``handler`` with its update marked answered when it is done, unless it queued the
        words (their turn marks them)."""

        async def handle(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
            queued = False
            try:
                queued = bool(await handler(update, context))
            finally:
                if not queued:
                    await self._mark(update.update_id, "answered")

        return handle

    async def ignored(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
        """An update no other handler takes: nothing to answer."""
        return False

    async def message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
        """A slash command at once; plain words into the chat's queue, or "busy"."""
        sender = await self._sender(update, "message")
        if sender is not None and sender[0].text:
            return await self._take(update.update_id, sender[1], sender[0].text)
        return False

    async def voice(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
        """A voice note or audio file: transcribed, shown back in a quote, then taken as if
        typed (commands included). The audio is kept only for this call."""
        sender = await self._sender(update, "voice")
        sound = sender and (sender[0].voice or sender[0].audio)
        if sender is None or not sound:
            return False
        person = sender[1]
        chat_id = person.chat_id
        # to_dict: reading .duration warns that it will become a timedelta
        refusal = too_long(self._channel.speech, sound.to_dict().get("duration"), sound.file_size)
        if refusal:
            await self._channel.send(chat_id, refusal)
            return False
        try:
            audio = await (await sound.get_file()).download_as_bytearray()
            name = getattr(sound, "file_name", None) or "voice.ogg"
            length = seconds(sound.to_dict().get("duration"))
            words = await self._assistant.transcribe(bytes(audio), name, person, length)
        except (FetchError, TelegramError) as exc:
            await self._channel.send(chat_id, unheard(exc))
            return False
        except BudgetError as exc:  # the minutes were not sent to be heard
            await self._channel.send(chat_id, over_budget(exc, person.language, person.timezone))
            return False
        await send_piece(self._channel.api, chat_id, quoted(words), None)
        return await self._take(update.update_id, person, words)

    async def document(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
        """A text file or PDF: read into the turn as untrusted data, with its caption."""
        sender = await self._sender(update, "document")
        if sender is None or sender[0].document is None:
            return False
        message, person = sender
        document = message.document
        assert document is not None
        name, mime = document.file_name or "", document.mime_type or ""
        refused = documents.refusal(name, mime, document.file_size)
        if refused:
            await self._channel.send(person.chat_id, refused)
            return False
        try:
            data = await (await document.get_file()).download_as_bytearray()
            framed = await documents.read_document(name, mime, bytes(data))
        except DocumentError as exc:
            await self._channel.send(person.chat_id, str(exc))
            return False
        except TelegramError as exc:
            log.warning("could not download a document: %s", exc.message)
            await self._channel.send(person.chat_id, DOWNLOAD_FAILED.format(what="file"))
            return False
        caption = (message.caption or "").strip() or "I am sending you this file."
        attached = (Document(name, framed),)
        return await self._take(update.update_id, person, f"{caption}\n[file: {name}]", attached)

    async def _sender(self, update: Update, kind: str) -> tuple[Message, Person] | None:
        """The message and who sent it (counted as ``kind``); None when there is none."""
        HANDLED.labels(kind).inc()
        message, user = update.effective_message, update.effective_user
        if message is None or user is None:
            return None
        try:
            name, code = user.first_name or "", user.language_code or ""
            return message, await self._assistant.person(user.id, message.chat_id, name, code)
        except StorageError as exc:  # a full disk: say so in one line, keep running
            await self._channel.send(message.chat_id, str(exc))
            return None

    async def location(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
        """A shared location: the person's time zone is set from it, offline."""
        sender = await self._sender(update, "location")
        where = sender[0].location if sender is not None else None
        if sender is None or where is None:
            return False
        person = sender[1]
        reply = await self._assistant.located(person, where.latitude, where.longitude)
        await self._channel.send(person.chat_id, reply.text, reply.buttons)
        return False

    async def photo(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
        """A photo, with or without a caption: shown to the model when it can see."""
        sender = await self._sender(update, "photo")
        if sender is None or not sender[0].photo:
            return False
        message, person = sender
        size = pictures.best_size(message.photo)
        if size is None:
            await self._channel.send(person.chat_id, pictures.TOO_BIG)
            return False
        try:
            data = await (await size.get_file()).download_as_bytearray()
        except TelegramError as exc:
            log.warning("could not download a photo: %s", exc.message)
            await self._channel.send(person.chat_id, DOWNLOAD_FAILED.format(what="photo"))
            return False
        caption = (message.caption or "").strip()
        if caption.startswith("/"):  # a command with a picture: the command is what counts
            return await self._take(update.update_id, person, caption)
        picture = Image("image/jpeg", bytes(data))  # Telegram sends photos as JPEG
        return await self._take(update.update_id, person, pictures.words(caption), (picture,))

    async def _take(
        self, update_id: int, person: Person, text: str, attachments: tuple[Attachment, ...] = ()
    ) -> bool:
        """A command answered at once; words into the chat's queue (True), or "busy"."""
        if text.startswith("/") and not attachments:
            await self._mark(update_id, "started")  # cut by a kill: told, never run twice
            await self._answer(person, text)
            return False
        if self._queues.submit(
            person.chat_id, lambda: self._turn(update_id, person, text, attachments)
        ):
            return True
        if self._queues.first_refusal(person.chat_id):
            await self._channel.send(person.chat_id, BUSY)
        return False

    async def _turn(
        self, update_id: int, person: Person, text: str, attachments: tuple[Attachment, ...]
    ) -> None:
        """A queued message answered, marked begun and then answered in the inbox; one cut by
        a stop stays begun (the next start tells the person)."""
        await self._mark(update_id, "started")
        try:
            await self._answer(person, text, attachments)
        except asyncio.CancelledError:
            raise
        except Exception:
            await self._mark(update_id, "answered")
            raise
        await self._mark(update_id, "answered")

    async def _mark(self, update_id: int, state: State) -> None:
        if self._inbox is None:
            return
        try:
            await self._inbox.mark(update_id, state)
        except StorageError as exc:  # a full disk: the answer still goes out
            log.warning("update %d not marked %s: %s", update_id, state, exc)

    async def _answer(
        self, person: Person, text: str, attachments: tuple[Attachment, ...] = ()
    ) -> None:
        try:
            await self._reply(person, text, attachments)
        except* StorageError as failed:  # from inside the typing indicator's task group
            await self._channel.send(person.chat_id, str(failed.exceptions[0]))

    async def _reply(self, person: Person, text: str, attachments: tuple[Attachment, ...]) -> None:
        draft = Draft(self._channel, person.chat_id, self._channel.edit_interval)
        async with asyncio.TaskGroup() as group:
            typing = group.create_task(self._channel.typing(person.chat_id))
            try:
                result = await self._assistant.answer(
                    person, text, draft.show, attachments=attachments
                )
            finally:
                typing.cancel()
        await draft.finish(result)

    async def button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A button press, answered at once: approvals by token, the rest by the commands."""
        HANDLED.labels("button").inc()
        query, user = update.callback_query, update.effective_user
        if query is None or user is None:
            return
        await self._mark(update.update_id, "started")  # cut by a kill: never pressed twice
        data = query.data or ""
        verb, _, token = data.partition(":")
        if verb in ("approve", "deny"):
            await query.answer(
                (await self._assistant.decide(token, user.id, verb == "approve"))[:190]
            )
            return
        chat_id = query.message.chat.id if query.message else user.id
        try:
            reply = await self._assistant.press(
                await self._assistant.person(user.id, chat_id), data
            )
        except StorageError as exc:
            reply = Response(str(exc))
        await query.answer(reply.text[:190])
        await self._channel.send(chat_id, reply.text, reply.buttons)


def too_long(limits: SpeechSettings, duration: object, size: int | None) -> str | None:
    """Why a voice note is not taken: speech is off, or it is over a cap; None to take it."""
    if not limits.base_url:
        return (
            "I cannot listen to voice notes yet: the owner can turn them on with [speech] "
            "base_url in config.toml (OpenAI or a local Whisper server)."
        )
    length = seconds(duration)
    if length > limits.max_seconds:
        return (
            f"That voice note is {length / 60:.0f} min long; I take up to "
            f"{limits.max_seconds / 60:.0f} min. Could you say it in shorter pieces?"
        )
    if size is not None and size > limits.max_bytes:
        return f"That file is {size / 1e6:.0f} MB; I take up to {limits.max_bytes / 1e6:.0f} MB."
    return None


def unheard(exc: FetchError | TelegramError) -> str:
    """One line saying why a voice note could not be heard."""
    if isinstance(exc, TelegramError):
        log.warning("could not download a voice note: %s", exc.message)
        return DOWNLOAD_FAILED.format(what="voice note")
    return f"I could not transcribe that voice note: {exc}."


def quoted(words: str) -> Rendered:
    """The transcript shown back in a quote, cut short when long."""
    shown = words if len(words) <= QUOTED else words[:QUOTED].rstrip() + "…"
    text = f"🎙 {shown}"
    return Rendered(text, (Entity("blockquote", 0, units(text)),))
