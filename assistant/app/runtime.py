"""One composition for every command: database, scheduler, tools, model, agent, approvals.

``compose`` builds the parts in dependency order and closes them in reverse; ``run``, ``chat``,
``ask``, ``doctor`` and the operator's commands all go through it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, nullcontext
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from assistant.agent import Agent, EventSink, Person, Prompts, Turns
from assistant.agent.approving.desk import ApprovalDesk
from assistant.agent.dialog.scheduled import AgentTaskExecutor
from assistant.agent.front.acting import Acting
from assistant.agent.front.answers import Answers
from assistant.agent.front.commands import Commands
from assistant.agent.front.door import FrontDoor
from assistant.agent.front.local import LocalFirst
from assistant.agent.front.nomodel import NoModel
from assistant.agent.front.response import Response
from assistant.agent.front.spending import Spending
from assistant.app import (
    Setup,
    agent_settings,
    build_executor,
    build_registry,
    build_services,
    close_services,
    datadir,
    open_sandbox,
    owner_of,
    scheduler_settings,
)
from assistant.app.deliveries import Deliveries, welcome_back
from assistant.app.outside import Outside, outside
from assistant.app.spending import kept_for_owner, meter
from assistant.clock import Clock
from assistant.db import Database, open_database
from assistant.errors import FetchError, LLMError
from assistant.llm.model import Model
from assistant.llm.provider import build_model, build_sizer
from assistant.llm.types import Attachment, Completion, Payer, Request, StreamEvent
from assistant.locales import known_language, spoken
from assistant.memory.approvals import ApprovalBook
from assistant.memory.audit import AuditLog
from assistant.memory.conversation import Conversations
from assistant.memory.export import gather
from assistant.memory.handover import hand_over
from assistant.memory.people import People
from assistant.memory.questions import Questions
from assistant.scheduler import Executor as TaskExecutor
from assistant.scheduler import Outbox, ReminderExecutor, Scheduler
from assistant.tasks import TaskKind, TaskStore
from assistant.tools import Registry
from assistant.tools.jobs import ApiCallExecutor, WebSearchExecutor
from assistant.tools.services import Services
from assistant.tools.validation import unencodable
from assistant.usage.counted import Counted
from assistant.usage.kept import KeptAlerts
from assistant.usage.ledger import Ledger

log = logging.getLogger(__name__)
SPEECH_OFF = (
    "voice notes are off: set [speech] base_url (and model) in config.toml to an "
    "OpenAI-compatible speech-to-text endpoint, OpenAI's or a local Whisper server"
)
SPEECH_SLACK = 5.0  # seconds beyond the client's own timeout, for the upload itself


def unreadable(what: str) -> str:
    """The answer to a message that holds text no store or channel can take."""
    return f"That message holds text that cannot be read ({what}); nothing was done."


class UnconfiguredModel:
    """Stands in when no model can be reached: every turn is refused with the line its person
    is told (how to set one up is the operator's, said by ``assistant doctor``)."""

    name = "none"

    def __init__(self, told: NoModel) -> None:
        self.told = told
        self.reason = told.reason

    async def complete(self, request: Request) -> Completion:
        """Refuse, in the person's words."""
        raise LLMError(await self.told.said(request.payer))

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Refuse, in the person's words, once the stream is read."""
        return self._refused(request)

    async def _refused(self, request: Request) -> AsyncIterator[StreamEvent]:
        raise LLMError(await self.told.said(request.payer))
        yield  # a generator, so the refusal is raised where the stream is read

    async def close(self) -> None:
        """Nothing to close."""


@dataclass(frozen=True, kw_only=True)
class Runtime:
    """The running parts, for a channel to talk to (the ``Assistant`` channels see)."""

    setup: Setup
    db: Database
    clock: Clock
    services: Services
    people: People
    tasks: TaskStore
    scheduler: Scheduler
    agent: Agent
    turns: Turns
    commands: Commands
    desk: ApprovalDesk
    model: Model
    deliveries: Deliveries
    outside: Outside | None = None  # servers and the tools folder, where tools are used
    door: FrontDoor  # where every message and button press goes in
    local: LocalFirst | None = None  # requests understood without the model
    ledger: Ledger | None = None  # every model call's use, held to the budgets
    kept: KeptAlerts | None = None  # budget alerts the owner could not be sent yet

    async def person(
        self, user_id: int, chat_id: int, name: str = "", language: str = ""
    ) -> Person:
        """Whom a message is from, in their timezone (the configured one until they set one)
        and language (the channel's hint, such as Telegram's, is kept the first time)."""
        profile = await self.people.get(user_id)
        zone = profile.timezone or self.setup.config.assistant.timezone
        spoken = profile.language
        if name and name != profile.name:  # the name the channel gives: kept to say who is who
            await self.people.set_name(user_id, name)
        if not spoken and (hint := known_language(language)):
            await self.people.set_language(user_id, hint)
            spoken = hint
        return Person(user_id, chat_id, zone, name or profile.name, spoken)

    async def press(self, person: Person, data: str) -> Response:
        """What a button does."""
        return await self.door.press(person, data)

    async def located(self, person: Person, latitude: float, longitude: float) -> Response:
        """A shared location sets the person's zone."""
        return await self.door.located(person, latitude, longitude)

    async def decide(self, token: str, user_id: int, approve: bool) -> str:
        """Answer an approval request: approving runs exactly the stored call."""
        return await self.desk.answer(token, user_id, approve)

    async def transcribe(
        self, audio: bytes, filename: str, person: Person | None = None, seconds: float = 0.0
    ) -> str:
        """The words of a voice note, through the configured speech endpoint; its minutes held
        to the person's budget first and counted at the speech model's price."""
        speech, settings = self.services.speech, self.setup.config.speech
        if speech is None:
            raise FetchError(SPEECH_OFF)
        metered: AbstractAsyncContextManager[None] = nullcontext()
        if person is not None and self.ledger is not None:
            payer = Payer(person.user_id, person.timezone, "speech")
            metered = self.ledger.held(payer, settings.model, Counted(audio_seconds=seconds))
        try:
            async with metered, asyncio.timeout(settings.timeout_seconds + SPEECH_SLACK):
                return await speech.transcribe(audio, filename)
        except TimeoutError:
            raise FetchError("the speech endpoint did not answer in time") from None

    async def answer(
        self,
        person: Person,
        text: str,
        sink: EventSink | None = None,
        *,
        attachments: Sequence[Attachment] = (),
    ) -> Response:
        """A slash command's reply, or the agent's answer to plain words (and attachments)."""
        if bad := unencodable(text):
            return Response(unreadable(bad), ending="invalid")
        welcome = await welcome_back(self.people, self.tasks, person.user_id)
        result = await self.door.answer(person, text, sink, attachments=attachments)
        kept = ""
        if self.kept is not None and person.user_id == owner_of(self.setup.config):
            kept = await kept_for_owner(self.kept, self.people, spoken(person.language, ""))
        told = "\n\n".join(filter(None, (welcome, kept)))
        return replace(result, text=f"{told}\n\n{result.text}") if told else result


@asynccontextmanager
async def compose(
    setup: Setup,
    clock: Clock,
    outbox: Outbox,
    prompts: Prompts,
    *,
    owner: bool = True,
    tools: bool = False,
) -> AsyncIterator[Runtime]:
    """Build everything in dependency order; ``owner`` takes the database's lock (run, chat),
    else changes to tasks nudge the process that holds it (ask, operator commands); ``tools``
    starts the MCP servers and loads the tools folder (run, chat, ask)."""
    async with AsyncExitStack() as stack:
        path = setup.database_path()
        datadir.prepare(path)
        if owner:
            stack.callback(datadir.own(path).close)
        db = await open_database(path)
        stack.push_async_callback(db.close)
        if setup.config.telegram.allowed_user_ids:
            await hand_over(db, setup.config.telegram.allowed_user_ids[0])
        found = None
        if tools:
            found = await stack.enter_async_context(outside(setup.config, setup.base, path.parent))
        yield await _build(setup, clock, db, (outbox, prompts), stack, owner=owner, found=found)


async def _build(
    setup: Setup,
    clock: Clock,
    db: Database,
    channel: tuple[Outbox, Prompts],
    stack: AsyncExitStack,
    *,
    owner: bool,
    found: Outside | None,
) -> Runtime:
    config, (outbox, prompts) = setup.config, channel

    def changed() -> None:  # the scheduler is built below, before any task can change
        scheduler.wake()

    tasks = TaskStore(
        db,
        clock,
        max_live_per_user=config.scheduler.max_tasks_per_user,
        on_change=changed if owner else lambda: datadir.nudge(setup.database_path()),
    )
    sandbox, _ = await open_sandbox(config)
    registry = build_registry(
        config,
        isolated=sandbox is not None,
        own=found.own() if found else (),
        sources=[found.servers] if found else [],
    )
    services = build_services(config, db, clock, tasks=tasks, sandbox=sandbox, registry=registry)
    stack.push_async_callback(close_services, services)
    people, audit, conversations = People(db, clock), AuditLog(db, clock), Conversations(db, clock)
    deliveries = Deliveries(outbox, people, tasks, clock, ApprovalBook(db))
    llm = config.llm
    ledger = Ledger(db, clock, config.budgets, llm.prices, llm.currency)
    told = lambda reason: NoModel(reason, owner_of(config), clock, people.language)  # noqa: E731
    kept = KeptAlerts(db, clock)
    wrap = meter(config, ledger, deliveries, people, kept)
    model = _model(setup, db, say=owner, wrap=wrap, told=told)
    stack.push_async_callback(model.close)
    executor = build_executor(config, audit, registry)
    desk = ApprovalDesk(
        ApprovalBook(db),
        executor,
        conversations,
        prompts,
        clock,
        ttl=timedelta(minutes=config.tools.approval_minutes),
        services=services,
        languages=people.language,
    )
    agent = Agent(
        model,
        executor,
        conversations,
        clock,
        approver=desk,
        settings=agent_settings(config),
        services=services,
        sizer=build_sizer(config),
    )
    turns = Turns(agent, turn_timeout=config.llm.turn_timeout_seconds)
    scheduler = Scheduler(
        setup.database_path(),
        clock,
        _executors(services, registry, agent, deliveries),
        deliveries,
        scheduler_settings(config),
        wrote=db.checkpointer.wrote,
    )
    stack.push_async_callback(scheduler.close)

    async def exporter(user_id: int) -> dict[str, Any]:
        return await gather(db, user_id, clock.now().isoformat())

    acting = Acting(executor, desk, services, clock)
    spending = Spending(db, clock, ledger.unit, owner_of(config), tasks, people=people)
    commands = Commands(
        services,
        people,
        audit,
        turns,
        clock,
        exporter=exporter,
        acting=acting,
        default_zone=config.assistant.timezone,
        more={"usage": spending.usage},
        costs=spending.costs,
    )
    local, answers = None, None
    if config.assistant.local_first:
        no_model = model.told if isinstance(model, UnconfiguredModel) else None
        questions = Questions(db, clock)
        local = LocalFirst(
            acting,
            services,
            conversations,
            clock,
            questions=questions,
            people=people,
            no_model=no_model,
            spending=spending,
        )
        answers = Answers(questions, local, services, clock, desk)
    return Runtime(
        setup=setup,
        db=db,
        clock=clock,
        services=services,
        people=people,
        tasks=tasks,
        scheduler=scheduler,
        agent=agent,
        turns=turns,
        commands=commands,
        desk=desk,
        model=model,
        deliveries=deliveries,
        outside=found,
        local=local,
        ledger=ledger,
        kept=kept,
        door=FrontDoor(commands, turns, local, answers),
    )


def _model(
    setup: Setup,
    db: Database,
    *,
    say: bool,
    wrap: Callable[[Model], Model] | None = None,
    told: Callable[[str], NoModel],
) -> Model:
    """The configured model, or why there is none (logged where the bot or chat runs; a
    one-shot command that needs it says it as its error)."""
    try:
        return build_model(setup.config, db, wrap)
    except LLMError as exc:
        if say:
            log.warning("no model: %s", exc)
        return UnconfiguredModel(told(str(exc)))


def _executors(
    services: Services, registry: Registry, agent: Agent, outbox: Outbox
) -> dict[TaskKind, TaskExecutor]:
    executors: dict[TaskKind, TaskExecutor] = {"reminder": ReminderExecutor(outbox)}
    if services.http is not None:
        executors["api_call"] = ApiCallExecutor(services.http, services.secrets, outbox)
    if services.search is not None:
        executors["web_search"] = WebSearchExecutor(services.search, outbox)
    executors["agent_task"] = AgentTaskExecutor(agent, registry, outbox)
    return executors
