"""The Telegram channel: python-telegram-bot started by hand inside the app's task group.

One gate before every handler and update type lets only allow-listed users in; strangers get
no answer and no typing indicator. Plain messages go to per-chat queues (one chat in order,
chats never waiting for each other, a full queue answered "busy"); slash commands and button
presses are answered at once, even while a turn runs in their chat. Answers stream into one
message edited at a throttled rate; reminders carry snooze buttons; approvals are buttons that
carry only a token, and a press passes the same gate. Telegram's errors are told apart by type.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import httpx
from telegram import (
    Bot,
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.constants import ChatAction, ChatType
from telegram.error import (
    BadRequest,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import HTTPXRequest

from assistant.agent.approving.approver import Pending
from assistant.agent.channel import Assistant
from assistant.agent.front.buttons import Button, notice_buttons
from assistant.agent.front.chats import ChatQueues
from assistant.agent.front.welcome import menu
from assistant.channels.telegram.arrivals import KeptQueue, PollRequest
from assistant.channels.telegram.backlog import catch_up
from assistant.channels.telegram.durations import seconds
from assistant.channels.telegram.entities import Rendered
from assistant.channels.telegram.handlers import Handlers
from assistant.channels.telegram.pieces import plain_pieces
from assistant.channels.telegram.received import from_update
from assistant.channels.telegram.sending import edit_piece, rendered, send_all
from assistant.channels.telegram.strangers import Strangers
from assistant.config import SpeechSettings
from assistant.errors import (
    RecipientBlockedError,
    RetryableRunError,
    RunError,
    StartupError,
    StorageError,
)
from assistant.locales import tr
from assistant.memory.inbox import Inbox
from assistant.scheduler import Notice

log = logging.getLogger(__name__)

TYPING_EVERY = 4.0
POLL_TIMEOUT = 10
POLL_STALE = 3.0 * (POLL_TIMEOUT + 10)  # a few long polls without an answer
UPDATES = ["message", "edited_message", "callback_query"]
# Chats are answered concurrently, up to this many at once: more only queue up inside
# httpcore's connection pool, whose bookkeeping grows with the square of what waits in it.
CONCURRENT_UPDATES = 32
PROMPT_UNITS = 3000  # an approval longer than this is sent whole as a file


@dataclass(frozen=True)
class Webhook:
    """Where Telegram posts updates, and the secret token it must send with them."""

    url: str
    listen: str
    port: int
    secret: str

    @property
    def path(self) -> str:
        """The path of the public URL, which our server answers on."""
        return urlsplit(self.url).path.lstrip("/")


class TelegramChannel:
    """The bot: its handlers, its outbox for the scheduler, and its approval buttons."""

    def __init__(
        self,
        token: str,
        base_url: str,
        allowed: Sequence[int],
        *,
        private_only: bool = True,
        edit_interval: float = 1.0,
        webhook: Webhook | None = None,
        rate_limit: bool = True,
        speech: SpeechSettings | None = None,
    ) -> None:
        self._allowed = frozenset(allowed)
        self.speech = speech or SpeechSettings()
        self._private_only = private_only
        self._webhook = webhook
        self._base_url = base_url
        self.edit_interval = edit_interval
        self._strangers = Strangers()
        self._inbox: Inbox | None = None
        self._assistant: Assistant | None = None
        # One TLS context for both connections: loading the certificate authorities takes
        # about 50 ms, once each at start-up otherwise.
        tls = httpx.create_ssl_context()
        self._polls = PollRequest(tls)
        builder = (
            ApplicationBuilder()
            .token(token)
            .request(HTTPXRequest(httpx_kwargs={"verify": tls}))
            .base_url(base_url)
            .base_file_url(base_url.replace("/bot", "/file/bot"))
            .concurrent_updates(CONCURRENT_UPDATES)
            .get_updates_request(self._polls)
        )
        if rate_limit:  # Telegram's limits: 30 messages a second, one a second per chat
            builder = builder.rate_limiter(AIORateLimiter(max_retries=2))  # type: ignore[arg-type]
        self._arrivals = KeptQueue()
        if webhook is not None:  # Telegram is answered once an update is queued: keep it first
            builder = builder.update_queue(self._arrivals)
        self.application: Application = builder.build()  # type: ignore[type-arg]
        self.application.add_handler(TypeHandler(Update, self._gate), group=-1)

    async def start(
        self, assistant: Assistant, queues: ChatQueues, inbox: Inbox | None = None
    ) -> None:
        """Connect (getMe), list the commands in the menu, and make ready to take updates for
        ``assistant`` (plain messages through ``queues``), kept in ``inbox``."""
        self._assistant = assistant
        self._inbox = self._polls.inbox = self._arrivals.inbox = inbox
        handlers = Handlers(self, assistant, queues, inbox)
        self._handle(handlers)
        try:
            await self.application.initialize()
            commands = [BotCommand(name, about[:256]) for name, about in menu().items()]
            await self.api.set_my_commands(commands)
        except InvalidToken:
            raise StartupError(
                "Telegram rejected the bot token: get a new one from @BotFather (/token) and "
                "put it in the variable telegram.token_env names"
            ) from None
        except TelegramError as exc:
            raise StartupError(
                f"the Bot API at {self._base_url} could not be used ({type(exc).__name__}); "
                "check the network and telegram.base_url, then start again"
            ) from None
        await self.application.start()

    async def take_updates(self, replay_for: timedelta = timedelta(hours=6)) -> None:
        """Handle what the last run left unanswered (in order, before anything new), then
        take new updates."""
        if self._inbox is not None and self._assistant is not None:
            await catch_up(
                self.application,
                self,
                self._assistant,
                self._inbox,
                replay_for=replay_for,
                allowed=self._may_tell,
            )
        updater = self.application.updater
        assert updater is not None
        if self._webhook is None:
            await updater.start_polling(allowed_updates=UPDATES, timeout=POLL_TIMEOUT)
            self._polls.answered_at = time.monotonic()  # getMe just answered
            return
        hook = self._webhook
        await updater.start_webhook(
            listen=hook.listen,
            port=hook.port,
            url_path=hook.path,
            webhook_url=hook.url,
            allowed_updates=UPDATES,
            secret_token=hook.secret,  # Telegram sends it back; other requests get 403
        )

    async def _taken(self, update: Update) -> bool:
        """Whether this run takes the update (the first to); one that cannot be kept (a full
        disk) is taken unkept."""
        assert self._inbox is not None
        try:
            return await self._inbox.take(from_update(update))
        except StorageError as exc:
            log.warning("an update taken without being kept: %s", exc)
            return True

    def _may_tell(self, chat_id: int, user_id: int) -> bool:
        """Whether the gate would let this person in this chat in (a private chat's id is its
        person's)."""
        private = chat_id == user_id or not self._private_only
        return user_id in self._allowed and private

    def _handle(self, handlers: Handlers) -> None:
        """Each kind of update to its handler, marked answered in the inbox when done."""
        messages, kept = filters.UpdateType.MESSAGE, handlers.kept
        for kind, handler in (
            (filters.TEXT, handlers.message),
            (filters.VOICE | filters.AUDIO, handlers.voice),
            (filters.Document.ALL, handlers.document),
            (filters.PHOTO, handlers.photo),
            (filters.LOCATION, handlers.location),
        ):
            self.application.add_handler(MessageHandler(kind & messages, kept(handler)))
        self.application.add_handler(CallbackQueryHandler(kept(handlers.button)))
        # Last: what no handler takes (an edited message, a sticker) is done with, not left
        # waiting in the inbox to be told about after a restart.
        self.application.add_handler(TypeHandler(Update, kept(handlers.ignored)))

    def polling_problem(self, now: float) -> str | None:
        """Why updates are not coming in (for /healthz), or None while they are."""
        updater = self.application.updater
        if self._webhook is not None:
            return None if updater is not None and updater.running else "the webhook is not up"
        if updater is None or not updater.running:
            return "not polling Telegram"
        answered = self._polls.answered_at
        if answered is None or now - answered > POLL_STALE:
            return f"no answer from the Bot API at {self._base_url} for over {POLL_STALE:g} s"
        return None

    async def stop_updates(self) -> None:
        """Stop taking updates and let the handlers in flight finish; sending still works."""
        if self.application.updater is not None and self.application.updater.running:
            await self.application.updater.stop()
        if self.application.running:
            await self.application.stop()

    async def shutdown(self) -> None:
        """Close the connection to Telegram."""
        await self.application.shutdown()

    # ---- the gate ----------------------------------------------------------------------

    async def _gate(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Let allow-listed users in private chats through; stop everything else silently."""
        user = update.effective_user if isinstance(update, Update) else None
        chat = update.effective_chat if isinstance(update, Update) else None
        allowed = user is not None and user.id in self._allowed
        private = chat is None or chat.type == ChatType.PRIVATE or not self._private_only
        if allowed and private and isinstance(update, Update):
            if self._inbox is None or await self._taken(update):
                return
            raise ApplicationHandlerStop  # taken before: by a run before the restart, or twice
        self._strangers.ignored(user.id if user is not None else 0)
        if self._inbox is not None and isinstance(update, Update):
            await self._inbox.mark(update.update_id, "answered")
        raise ApplicationHandlerStop

    async def typing(self, chat_id: int) -> None:
        """Show "typing…" until cancelled."""
        while True:
            try:
                await self.api.send_chat_action(chat_id, ChatAction.TYPING)
            except TelegramError as exc:
                log.debug("typing indicator failed: %s", exc)
            await asyncio.sleep(TYPING_EVERY)

    # ---- sending -----------------------------------------------------------------------

    @property
    def api(self) -> Bot:
        """The Bot API client (the ``Sender`` that handlers and drafts use)."""
        bot: Bot = self.application.bot
        return bot

    async def send(
        self, chat_id: int, markdown: str, buttons: Sequence[Sequence[Button]] = ()
    ) -> int:
        """Send Markdown as text with entities, in pieces Telegram accepts; the buttons go
        under the last piece. Returns the last message id."""
        markup = _keyboard(buttons) if buttons else None
        return await send_all(self.api, chat_id, await rendered(markdown), markup)

    # ---- the scheduler's outbox, and approvals ----------------------------------------

    async def deliver(self, notice: Notice) -> int:
        """Send a notice from the scheduler; Telegram's errors are told apart by their type."""
        buttons = notice_buttons(notice)
        try:
            return await self.send(notice.owner.chat_id, notice.text, buttons)
        except RetryAfter as exc:
            wait = seconds(exc.retry_after)
            raise RetryableRunError(f"Telegram asked to wait {wait:g} s") from None
        except Forbidden:
            raise RecipientBlockedError(
                "the user has blocked the bot; their tasks are paused"
            ) from None
        except BadRequest as exc:  # a NetworkError by class, but permanent: never retried
            raise RunError(f"Telegram refused the message ({exc.message})") from None
        except NetworkError as exc:  # TimedOut included
            raise RetryableRunError(f"Telegram could not be reached ({exc.message})") from None

    async def present(self, pending: Pending) -> int | None:
        """Show an approval request with approve and deny buttons; return its message id.

        The whole call is shown: in the message when it fits, else as a text file sent just
        above it (a long program, a big body), never cut."""
        buttons = (
            (
                Button(tr(pending.language, "✅ Approve once"), f"approve:{pending.token}"),
                Button(tr(pending.language, "✖ Deny"), f"deny:{pending.token}"),
            ),
        )
        until = pending.expires_at.strftime("%H:%M UTC")
        if _fits(pending.text):
            shown = f"```\n{pending.text}\n```"
        else:
            await self.api.send_document(
                pending.chat_id,
                pending.text.encode("utf-8", "replace"),
                filename=f"approval-{pending.token}.txt",
            )
            shown = _summary(pending)
        text = tr(
            pending.language,
            "⚠️ Approval needed:\n{action}\nUnanswered, it is refused at {until}.",
            action=shown,
            until=until,
        )
        return await self.send(pending.chat_id, text, buttons)

    async def close(self, pending: Pending, outcome: str) -> None:
        """Replace the request's buttons with how it ended (or say it, if that fails)."""
        shown = pending.text if _fits(pending.text) else _summary(pending)
        text = Rendered(plain_pieces(f"{shown}\n\n{outcome}")[0])
        if pending.message_id is not None:
            try:
                await edit_piece(self.api, pending.chat_id, pending.message_id, text)
                return
            except BadRequest as exc:
                log.info("could not edit the approval prompt (%s); sending the outcome", exc)
        await self.send(pending.chat_id, outcome)


def _fits(text: str) -> bool:
    """Whether a call can be shown whole in a message, inside one code fence."""
    return len(text.encode("utf-16-le")) // 2 <= PROMPT_UNITS and "```" not in text


def _summary(pending: Pending) -> str:
    head = pending.text.split("\n", 1)[0]
    return (
        f"{head}\nThe whole call ({len(pending.text):,} characters) is in the file above: "
        "exactly that runs if you approve."
    )


def _keyboard(rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(b.text, callback_data=b.data) for b in row] for row in rows]
    )
