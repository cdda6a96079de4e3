"""The ledger of model calls wired to the model and to the owner's notices."""

from __future__ import annotations

from collections.abc import Callable

from assistant.app import owner_of
from assistant.config import Config
from assistant.llm.model import Model
from assistant.scheduler import Notice, Outbox
from assistant.tasks import Owner
from assistant.usage.ledger import Alert, Ledger
from assistant.usage.metered import MeteredModel
from assistant.usage.telling import alert as alert_words


def meter(config: Config, ledger: Ledger, outbox: Outbox) -> Callable[[Model], Model]:
    """What wraps the provider's adapter: every call held to its budget and counted; the owner
    told once when someone reaches 80% and 100% of a limit."""
    owner = Owner(owner_of(config), owner_of(config))

    async def told(found: Alert) -> None:
        english = alert_words(found, "en")
        words = lambda language: alert_words(found, language)  # noqa: E731
        await outbox.deliver(Notice(owner, english, "report", words=words))

    def wrap(adapter: Model) -> Model:
        settings = config.llm
        reply = settings.max_tokens
        return MeteredModel(adapter, ledger, settings.model, reply_tokens=reply, on_alert=told)

    return wrap
