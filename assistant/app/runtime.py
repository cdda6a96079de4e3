"""Everything a channel runs on: database, scheduler, tools, model, agent, commands, approvals."""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import IO

from assistant.agent import Agent, Answer, EventSink, Person, Turns
from assistant.agent.approvals import ApprovalDesk, Presenter
from assistant.agent.commands import Commands, Reply
from assistant.agent.scheduled import AgentTaskExecutor
from assistant.app import (
    Setup,
    agent_settings,
    build_executor,
    build_registry,
    build_services,
    close_services,
    scheduler_settings,
)
from assistant.clock import Clock
from assistant.console import Console
from assistant.db import Database, open_database
from assistant.errors import ConfigError, LLMError, StorageError
from assistant.llm.model import Model
from assistant.llm.provider import build_model
from assistant.llm.types import Completion, Request, StreamEvent
from assistant.memory.audit import AuditLog
from assistant.memory.conversation import Conversations
from assistant.memory.people import People
from assistant.tasks import Executor as TaskExecutor
from assistant.tasks import Outbox, ReminderExecutor, Scheduler, TaskKind, TaskStore
from assistant.telegram.bot import TelegramChannel, Webhook
from assistant.tools import Executor, Registry
from assistant.tools.jobs import ApiCallExecutor, WebSearchExecutor
from assistant.tools.services import Services

log = logging.getLogger(__name__)


class UnconfiguredModel:
    """Stands in when no model can be reached: every turn says how to configure one."""

    name = "none"

    def __init__(self, reason: str) -> None:
        self._reason = reason

    async def complete(self, request: Request) -> Completion:
        """Refuse, with what to do about it."""
        raise LLMError(self._reason + " Slash commands work without it: /help.")

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Refuse, with what to do about it."""
        raise LLMError(self._reason + " Slash commands work without it: /help.")

    async def close(self) -> None:
        """Nothing to close."""


@dataclass
class Runtime:
    """The running parts, for a channel to talk to."""

    setup: Setup
    conn: Database
    clock: Clock
    services: Services
    people: People
    scheduler: Scheduler
    agent: Agent
    turns: Turns
    commands: Commands
    desk: ApprovalDesk
    model: Model

    async def person(self, user_id: int, chat_id: int, name: str = "") -> Person:
        """Whom a message is from, in their timezone (the configured one until they set one)."""
        profile = await self.people.get(user_id)
        zone = profile.timezone or self.setup.config.assistant.timezone
        return Person(user_id, chat_id, zone, name or profile.name)

    async def press(self, person: Person, data: str) -> Reply:
        """What a button does."""
        return await self.commands.press(person, data)

    def decide(self, token: str, user_id: int, approve: bool, digest: str) -> str:
        """Answer an approval request."""
        return self.desk.answer(token, user_id, approve, digest)

    async def blocked(self, user_id: int) -> None:
        """The user blocked the bot: pause their active tasks, and remember it."""
        await self.people.set_blocked(user_id, True)
        store = self.services.tasks
        paused = 0
        if store is not None:
            for task in await store.list_tasks(user_id, ("active",), limit=10_000):
                await store.pause(user_id, task.id)
                paused += 1
        log.warning("user %d blocked the bot; paused %d of their tasks", user_id, paused)

    async def answer(
        self, person: Person, text: str, sink: EventSink | None = None
    ) -> Reply | Answer:
        """A slash command's reply, or the agent's answer to plain words."""
        reply = await self.commands.handle(person, text)
        return reply if reply is not None else await self.turns.reply(person, text, sink)


class _Waker:
    """The store wakes the scheduler, which is made after the store."""

    scheduler: Scheduler | None = None

    def __call__(self) -> None:
        if self.scheduler is not None:
            self.scheduler.wake()


@dataclass(frozen=True)
class _Parts:
    setup: Setup
    conn: Database
    clock: Clock
    services: Services
    model: Model


@asynccontextmanager
async def running(
    setup: Setup, clock: Clock, outbox: Outbox, present: Presenter
) -> AsyncIterator[Runtime]:
    """Open everything for a channel; close it all on the way out (the scheduler is the
    caller's to run and stop)."""
    lock = _own(setup.database_path())
    conn = await open_database(setup.database_path())
    config = setup.config
    waker = _Waker()
    store = TaskStore(
        conn, clock, max_live_per_user=config.scheduler.max_tasks_per_user, on_change=waker
    )
    services = build_services(config, conn, clock, tasks=store)
    parts = _Parts(setup, conn, clock, services, _model(setup, conn))
    scheduler = waker.scheduler = Scheduler(
        setup.database_path(), clock, _executors(parts, outbox), outbox, scheduler_settings(config)
    )
    desk = ApprovalDesk(clock, present, timedelta(minutes=config.tools.approval_minutes))
    agent = _agent(parts, desk)
    turns = Turns(agent, turn_timeout=config.llm.turn_timeout_seconds)
    people, audit = People(conn, clock), AuditLog(conn, clock)
    commands = Commands(services, people, audit, turns, clock)
    try:
        yield Runtime(
            setup,
            conn,
            clock,
            services,
            people,
            scheduler,
            agent,
            turns,
            commands,
            desk,
            parts.model,
        )
    finally:
        await scheduler.close()
        await close_services(services)
        await parts.model.close()
        await conn.close()
        lock.close()


def _own(database: Path) -> IO[bytes]:
    """Hold the database's lock file, so one process fires its tasks (released on exit)."""
    database.parent.mkdir(parents=True, exist_ok=True)
    lock = (database.parent / f"{database.name}.lock").open("wb")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise StorageError(
            f"another assistant (run or chat) is using {database}; stop it first"
        ) from None
    return lock


def _model(setup: Setup, conn: Database) -> Model:
    try:
        return build_model(setup.config, conn)
    except LLMError as exc:
        log.warning("no model: %s", exc)
        return UnconfiguredModel(str(exc))


def _agent(parts: _Parts, desk: ApprovalDesk) -> Agent:
    executor = build_executor(parts.setup.config, parts.conn, parts.clock)
    return Agent(
        parts.model, executor, Conversations(parts.conn, parts.clock), parts.clock,
        approver=desk, settings=agent_settings(parts.setup.config), services=parts.services,
    )  # fmt: skip


def _executors(parts: _Parts, outbox: Outbox) -> dict[TaskKind, TaskExecutor]:
    services = parts.services
    executors: dict[TaskKind, TaskExecutor] = {"reminder": ReminderExecutor(outbox)}
    if services.http is not None:
        executors["api_call"] = ApiCallExecutor(services.http, services.secrets, outbox)
    if services.search is not None:
        executors["web_search"] = WebSearchExecutor(services.search, outbox)

    def executor_for(tools: Registry) -> Executor:
        return Executor(tools, AuditLog(parts.conn, parts.clock))

    def make_agent(executor: Executor) -> Agent:
        return Agent(
            parts.model, executor, Conversations(parts.conn, parts.clock), parts.clock,
            settings=agent_settings(parts.setup.config), services=services,
        )  # fmt: skip

    registry = build_registry(parts.setup.config)
    executors["agent_task"] = AgentTaskExecutor(registry, executor_for, make_agent, outbox)
    return executors


async def chat(setup: Setup, clock: Clock, console: Console) -> None:
    """The terminal channel with the scheduler running beside it, until the input ends."""
    async with running(setup, clock, console, console.present) as runtime:
        console.assistant = runtime
        async with asyncio.TaskGroup() as group:
            group.create_task(runtime.scheduler.run())
            try:
                await console.run()
            finally:
                runtime.scheduler.stop()


def console_user(setup: Setup) -> int:
    """Who types at the terminal: the first allowed Telegram user (so tasks are shared), else 0."""
    allowed = setup.config.telegram.allowed_user_ids
    return allowed[0] if allowed else 0


async def serve_telegram(setup: Setup, clock: Clock, stop: asyncio.Event) -> None:
    """The bot and the scheduler, until ``stop`` is set (SIGTERM): polling stops, runs in
    flight finish or are released, and the database is closed."""
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
    )
    async with running(setup, clock, channel, channel.present) as runtime:
        channel.assistant = runtime
        async with asyncio.TaskGroup() as group:
            group.create_task(runtime.scheduler.run())
            try:
                await channel.start()
                await stop.wait()
            finally:
                runtime.scheduler.stop()
                await channel.stop()


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
