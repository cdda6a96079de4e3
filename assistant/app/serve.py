"""The long-running commands and the one-shot ones, each over the one composition."""

from __future__ import annotations

import asyncio
import logging
import os
import shlex
import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import datetime, timedelta
from typing import TextIO

import tzlocal

from assistant.agent import Answer, Pending, Person
from assistant.agent.front.buttons import Reply
from assistant.agent.front.chats import ChatQueues
from assistant.app import Setup, backups, datadir, owner_of, systemd
from assistant.app.alerts import Alerts, Condition, disk, servers
from assistant.app.health import serve_health
from assistant.app.runtime import Runtime, UnconfiguredModel, compose, unreadable
from assistant.app.terminals import Door, Switchboard, socket_path
from assistant.channels.console import Console, Printer
from assistant.channels.telegram.bot import TelegramChannel, Webhook
from assistant.clock import Clock, zone_or_none
from assistant.errors import ConfigError, LLMError, RunError
from assistant.locales import spoken, tr
from assistant.memory.inbox import Inbox
from assistant.scheduler import Notice
from assistant.tasks import Owner
from assistant.tools.validation import unencodable

log = logging.getLogger(__name__)


class NoChannel:
    """For commands that send nothing (ask, the operator's): approvals are refused."""

    async def deliver(self, notice: Notice) -> int:
        """There is nobody to send to here."""
        raise RunError("this command has no channel to send through")

    async def present(self, pending: Pending) -> int | None:
        """Nobody can answer an approval here, so it is refused."""
        raise RunError("approvals are answered in the chat; here they are refused")

    async def close(self, pending: Pending, outcome: str) -> None:
        """Nothing was shown."""


def console_user(setup: Setup) -> int:
    """Who types at the terminal or asks from the command line: the owner (so tasks are
    shared with the bot), else the local user, whose data the first owner is given."""
    return owner_of(setup.config)


async def ask(setup: Setup, text: str, clock: Clock, out: TextIO) -> Answer:
    """One turn as the owner (or the local user), streamed to ``out``; approvals are refused,
    the running bot's scheduler is woken for anything it schedules."""
    if bad := unencodable(text):
        out.write(unreadable(bad) + "\n")
        return Answer(unreadable(bad), ending="invalid")
    owner = console_user(setup)
    channel = NoChannel()
    async with compose(setup, clock, channel, channel, owner=False, tools=True) as runtime:
        await machine_zone(runtime, owner)
        person = await runtime.person(owner, owner, "")
        before = await _waiting(runtime, owner)
        answer = await _answered(runtime, person, text, out)
        if await _waiting(runtime, owner) - before and not datadir.holder(setup.database_path()):
            out.write(nothing_fires(spoken(person.language, text)) + "\n")
        return answer


async def _answered(runtime: Runtime, person: Person, text: str, out: TextIO) -> Answer:
    """The request answered without the model when it can be, else by the model's turn; a
    failure of ours (the database could not be written) is the command's error."""
    if reply := await runtime.door.without_model(person, text):
        if reply.failure is not None:
            raise reply.failure
        out.write(reply.text + "\n" + ask_hints(reply))
        return Answer(reply.text, ending="answered")
    if isinstance(runtime.model, UnconfiguredModel):
        local = runtime.local
        raise LLMError(
            local.without_model(text, person.language) if local else runtime.model.reason
        )
    printer = Printer(out)
    answer = await runtime.turns.reply(person, text, printer.show)
    printer.finish(answer)
    return answer


async def _waiting(runtime: Runtime, user_id: int) -> set[tuple[str, datetime, str]]:
    """The person's tasks that will fire, each as it stands (made, moved or resumed shows)."""
    tasks = await runtime.tasks.list_tasks(user_id, ("active",))
    return {(task.id, task.next_run, task.schedule_text) for task in tasks}


def nothing_fires(language: str) -> str:
    """Said by ``ask`` when it made or moved a task and no assistant runs to fire it."""
    return tr(
        language,
        "It will fire while the assistant runs (assistant run, or assistant chat); none runs now.",
    )


def ask_hints(reply: Reply) -> str:
    """How to press a reply's buttons from the command line: one more ``ask`` each."""
    buttons = [b for row in reply.buttons for b in row]
    if not buttons:
        return ""
    lines = [f"  {b.text}: assistant ask {shlex.quote(_typed(b.data))}" for b in buttons]
    return "\n".join(["(to answer or press a button, run one of these:)", *lines]) + "\n"


def _typed(data: str) -> str:
    """What to type for a button: a time of day is said as itself, the rest pressed."""
    if data.startswith("local:"):
        return data.split(":", 2)[2]  # local:KEY:09:00
    return f"/press {data}"


@asynccontextmanager
async def services(runtime: Runtime) -> AsyncIterator[asyncio.TaskGroup]:
    """The scheduler and the approval desk running beside a channel, stopped on the way out."""
    loop = asyncio.get_running_loop()
    with suppress(ValueError, RuntimeError):  # not the main thread: no nudges, that is all
        loop.add_signal_handler(signal.SIGUSR1, runtime.scheduler.wake)
    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(runtime.scheduler.run())
            checkpoints = group.create_task(runtime.db.checkpointer.run())
            desk = group.create_task(runtime.desk.run())
            folder = runtime.setup.database_path().parent / "backups"
            copies = runtime.setup.config.storage.backups
            daily = group.create_task(backups.daily(runtime.db, folder, copies, runtime.clock))
            try:
                yield group
            finally:
                runtime.scheduler.stop()
                desk.cancel()
                daily.cancel()
                checkpoints.cancel()
    finally:
        with suppress(ValueError, RuntimeError):
            loop.remove_signal_handler(signal.SIGUSR1)


async def chat(setup: Setup, clock: Clock, console: Console) -> None:
    """The terminal channel with the scheduler running beside it, until the input ends."""
    async with compose(setup, clock, console, console, tools=True) as runtime, services(runtime):
        await machine_zone(runtime, console_user(setup))
        await console.run(runtime)


async def machine_zone(runtime: Runtime, user_id: int) -> str | None:
    """The person at this machine's terminal takes the machine's zone, once, when neither they
    nor the config set one; returns it when it was taken."""
    if "timezone" in runtime.setup.config.assistant.model_fields_set:
        return None
    if (await runtime.people.get(user_id)).timezone is not None:
        return None
    try:
        zone = tzlocal.get_localzone_name()
    except Exception:  # an unreadable machine zone leaves the config's
        log.debug("the machine's zone could not be read", exc_info=True)
        return None
    if not zone or zone_or_none(zone) is None or zone in ("UTC", "Etc/UTC"):
        return None
    await runtime.people.set_timezone(user_id, zone)
    log.info("the terminal's person takes this machine's zone, %s", zone)
    return zone


async def serve_telegram(setup: Setup, clock: Clock, stop: asyncio.Event) -> None:
    """The bot and the scheduler until ``stop`` is set (SIGTERM): polling stops, turns and
    runs in flight get the shutdown grace, then the database is closed."""
    settings = setup.config.telegram
    token = os.environ.get(settings.token_env, "").strip()
    if not token:
        raise ConfigError(
            f"no Telegram token: ${settings.token_env} is empty. Get one from @BotFather "
            "(/newbot), then export it; `assistant chat` works without one."
        )
    if not settings.allowed_user_ids:
        log.warning("telegram.allowed_user_ids is empty: the bot will answer nobody")
    channel = TelegramChannel(
        token,
        settings.base_url,
        settings.allowed_user_ids,
        private_only=settings.private_only,
        webhook=_webhook(setup),
        rate_limit=settings.rate_limit,
        speech=setup.config.speech,
    )
    grace = timedelta(seconds=setup.config.scheduler.shutdown_grace_seconds)
    board = Switchboard(channel)
    try:
        async with (
            compose(setup, clock, board, board, tools=True) as runtime,
            services(runtime) as group,
            ChatQueues.running(clock, grace, settings.queue_per_chat) as queues,
        ):
            monitor = _monitor(setup, group, channel, runtime)
            alerts = _alerts(setup, group, runtime)
            door = Door(runtime, queues, board, console_user(setup))
            terminals = group.create_task(door.listen(socket_path(setup.database_path())))
            try:
                await channel.start(runtime, queues, Inbox(runtime.db, clock))
                systemd.notify("READY=1")  # before the backlog: it may take longer than a start
                await channel.take_updates(timedelta(hours=settings.replay_hours))
                await stop.wait()
            finally:
                terminals.cancel()
                for watcher in (monitor, alerts):
                    if watcher is not None:
                        watcher.cancel()
                systemd.notify("STOPPING=1")
                # Runs in flight and turns in flight share one grace, not one after the other.
                runtime.scheduler.stop()
                await channel.stop_updates()
    finally:
        await channel.shutdown()


def _monitor(
    setup: Setup, group: asyncio.TaskGroup, channel: TelegramChannel, runtime: Runtime
) -> asyncio.Task[None] | None:
    """The health endpoint, when ``[health] listen`` is set."""
    if not setup.config.health.listen:
        return None
    host, port = setup.config.health.address()

    def scheduler() -> str | None:
        return None if runtime.scheduler.alive else "the scheduler loop is not running"

    def polling() -> str | None:
        return channel.polling_problem(time.monotonic())

    return group.create_task(serve_health(host, port, (polling, scheduler)))


def _alerts(setup: Setup, group: asyncio.TaskGroup, runtime: Runtime) -> asyncio.Task[None] | None:
    """The owner (the first allowed user) told once when something stays broken."""
    if not setup.config.telegram.allowed_user_ids:
        return None
    owner = setup.config.telegram.allowed_user_ids[0]
    model = setup.config.llm.model

    def model_down(now: datetime) -> str | None:
        return runtime.agent.model_down.problem(now, f"The model {model} has not answered")

    def deliveries(now: datetime) -> str | None:
        return runtime.deliveries.failing.problem(now, "Messages have failed to go out")

    conditions = (
        Condition("the model", model_down),
        Condition("sending messages", deliveries),
        disk(setup.database_path().parent),
        *(servers(runtime.outside.hub) if runtime.outside else ()),
    )
    watch = Alerts(runtime.deliveries, Owner(owner, owner), runtime.clock, conditions)
    return group.create_task(watch.run())


def _webhook(setup: Setup) -> Webhook | None:
    settings = setup.config.telegram
    if settings.mode == "polling":
        return None
    secret = os.environ.get(settings.webhook_secret_env, "").strip()
    if not settings.webhook_url or len(secret) < 16:
        raise ConfigError(
            "telegram.mode = 'webhook' needs telegram.webhook_url and a secret token of 16+ "
            f"characters (letters, digits, _ and -) in ${settings.webhook_secret_env}"
        )
    return Webhook(settings.webhook_url, settings.webhook_listen, settings.webhook_port, secret)
