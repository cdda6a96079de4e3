"""The ledger of model calls wired to the model and to the owner's notices: an alert the owner
cannot be sent is kept and said the next time they write."""

from __future__ import annotations

import logging
from collections.abc import Callable

from assistant.app import owner_of
from assistant.config import Config
from assistant.errors import AssistantError
from assistant.llm.model import Model
from assistant.memory.people import People
from assistant.scheduler import Notice, Outbox
from assistant.tasks import Owner
from assistant.usage.kept import KeptAlerts
from assistant.usage.ledger import Alert, Ledger
from assistant.usage.metered import MeteredModel
from assistant.usage.telling import alert as alert_words

log = logging.getLogger(__name__)


def meter(
    config: Config, ledger: Ledger, outbox: Outbox, people: People, kept: KeptAlerts
) -> Callable[[Model], Model]:
    """What wraps the provider's adapter: every call held to its budget and counted; the owner
    told once when someone (by name) reaches 80% and 100% of a limit."""
    owner = Owner(owner_of(config), owner_of(config))

    async def told(found: Alert) -> None:
        name = (await people.get(found.user_id)).name
        english = alert_words(found, "en", name)
        words = lambda language: alert_words(found, language, name)  # noqa: E731
        try:
            await outbox.deliver(Notice(owner, english, "report", words=words))
        except AssistantError as exc:  # the owner never wrote, blocked the bot, or no channel
            log.info("a budget alert could not be sent to the owner (%s); kept for later", exc)
            await kept.keep(found)

    def wrap(adapter: Model) -> Model:
        settings = config.llm
        reply = settings.max_tokens
        return MeteredModel(adapter, ledger, settings.model, reply_tokens=reply, on_alert=told)

    return wrap


async def kept_for_owner(kept: KeptAlerts, people: People, language: str) -> str:
    """The alerts kept for the owner, said now (once), in their language; "" when none."""
    lines = [
        alert_words(found, language, (await people.get(found.user_id)).name)
        for found in await kept.take()
    ]
    return "\n".join(lines)
