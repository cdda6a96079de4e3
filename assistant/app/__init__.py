"""The composition root: builds the assistant's parts from the configuration."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal, assert_never
from zoneinfo import ZoneInfo

from assistant import __version__
from assistant.agent import AgentSettings
from assistant.app import datadir
from assistant.clock import Clock, SystemClock
from assistant.config import Config
from assistant.db import FILE_NAME, Database, open_database
from assistant.errors import ConfigError, LLMError
from assistant.llm.modes import StoredModes
from assistant.llm.provider import build_model
from assistant.memory.audit import AuditLog
from assistant.memory.conversation import Conversations
from assistant.memory.handover import LOCAL
from assistant.memory.notes import Notes
from assistant.memory.people import People
from assistant.net import AddressPolicy, GuardedClient, Limits
from assistant.net.images import ImageClient
from assistant.net.search import DuckDuckGo
from assistant.net.secrets import Secret, SecretBook
from assistant.net.speech import SpeechClient
from assistant.scheduler import SchedulerSettings
from assistant.schedules import next_after, read_schedule
from assistant.tasks import TaskStore
from assistant.tasks.task import KINDS
from assistant.tools import Executor, Registry, Tool
from assistant.tools.builtin import OPTIONAL, builtin_tools
from assistant.tools.registry import ToolSource
from assistant.tools.sandbox import ENABLE_NAMESPACES, Sandbox, SandboxLimits
from assistant.tools.services import Services

CatalogueFormat = Literal["text", "openai", "anthropic"]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Setup:
    """A loaded configuration and where it came from."""

    config: Config
    source: str
    base: Path | None = None

    def database_path(self) -> Path:
        """The SQLite file inside the configured data directory."""
        return self.config.data_path(self.base) / FILE_NAME


def build_registry(
    config: Config,
    *,
    isolated: bool = False,
    own: Sequence[Tool] = (),
    sources: Sequence[ToolSource] = (),
) -> Registry:
    """The built-in tools, the folder's (``own``) and the servers' that are up (``sources``),
    with the configured allow and deny lists applied; ``execute_code`` only when enabled and a
    sandbox was ``isolated`` here."""
    deny = (*config.tools.deny, *(["search_web"] if config.net.search_backend == "none" else []))
    code = config.tools.execute_code and isolated
    tools = builtin_tools(code=code, images=bool(config.images.base_url))
    return Registry(
        [*tools, *own],
        allow=config.tools.allow,
        deny=deny,
        switched_off=OPTIONAL,
        sources=sources,
        catalogue_tokens=config.llm.catalogue_tokens,
    )


def build_services(
    config: Config,
    conn: Database,
    clock: Clock,
    tasks: TaskStore | None = None,
    sandbox: Sandbox | None = None,
    *,
    registry: Registry | None = None,
) -> Services:
    """The stores and clients the tools work with; the caller closes ``services.http``."""
    net = config.net
    tools = registry or build_registry(config, isolated=sandbox is not None)
    limits = Limits(max_bytes=net.max_body_bytes, timeout=net.timeout_seconds)
    secrets = SecretBook(
        Secret(name, s.env, frozenset(h.lower() for h in s.hosts))
        for name, s in net.secrets.items()
    )
    return Services(
        tasks=tasks
        or TaskStore(conn, clock, max_live_per_user=config.scheduler.max_tasks_per_user),
        notes=Notes(conn, clock),
        conversations=Conversations(conn, clock),
        http=GuardedClient(
            AddressPolicy.allowing(net.allow_hosts, net.allow_networks), limits=limits
        ),
        search=DuckDuckGo(timeout=net.timeout_seconds)
        if net.search_backend == "duckduckgo"
        else None,
        secrets=secrets,
        min_interval=timedelta(seconds=config.scheduler.min_interval_seconds),
        read_only_tools=lambda: frozenset(t.name for t in tools if t.read_only),
        registry=tools,
        sandbox=sandbox,
        images=_images(config),
        speech=_speech(config),
    )


async def close_services(services: Services) -> None:
    """Close the clients the services hold."""
    for client in (services.http, services.images, services.speech):
        if client is not None:
            await client.close()


def _images(config: Config) -> ImageClient | None:
    settings = config.images
    if not settings.base_url:
        return None
    return ImageClient(
        settings.base_url,
        os.environ.get(settings.api_key_env, ""),
        settings.model,
        sampling=settings.send_sampling,
        timeout=settings.timeout_seconds,
    )


def _speech(config: Config) -> SpeechClient | None:
    settings = config.speech
    if not settings.base_url:
        return None
    key = os.environ.get(settings.api_key_env, "")
    return SpeechClient(settings.base_url, key, settings.model, timeout=settings.timeout_seconds)


def catalogue(registry: Registry, form: CatalogueFormat) -> str:
    """The tool catalogue in the form a model of the given kind reads."""
    if form == "text":
        return registry.catalogue()
    if form == "openai":
        return json.dumps(registry.openai_tools(), indent=2)
    if form == "anthropic":
        return json.dumps(registry.anthropic_tools(), indent=2)
    assert_never(form)


def agent_settings(config: Config) -> AgentSettings:
    """The agent's bounds from the ``[llm]`` section."""
    llm = config.llm
    return AgentSettings(
        max_steps=llm.max_steps,
        corrections=llm.corrections_per_turn,
        llm_timeout=llm.timeout_seconds * (llm.retries + 1) + 5,
        history_tokens=llm.history_tokens,
        stream=llm.stream,
        context_tokens=llm.context_tokens or None,
        max_new_tasks=llm.max_tasks_per_turn,
        reply_tokens=llm.max_tokens,
        named_hosts=frozenset(
            h.lower().rstrip(".")
            for h in (
                *config.net.allow_hosts,
                *(h for s in config.net.secrets.values() for h in s.hosts),
            )
        ),
    )


async def open_sandbox(config: Config) -> tuple[Sandbox | None, str]:
    """The sandbox for ``execute_code`` once a probe shows it isolated, and what to say of it.

    Fails closed: where the jail cannot be built, the tool is not offered at all."""
    if not config.tools.execute_code:
        return None, "off (tools.execute_code = false)"
    sandbox = Sandbox(SandboxLimits(**config.tools.sandbox.model_dump()))
    reason = await sandbox.check()
    if reason is not None:
        log.warning("execute_code is switched off: %s", reason)
        return None, f"switched off: {reason}. {ENABLE_NAMESPACES}"
    return sandbox, "isolated (user, mount, PID, network, IPC and UTS namespaces)"


def build_executor(config: Config, audit: AuditLog, registry: Registry) -> Executor:
    """The registry's tools behind the executor, every call audited."""
    return Executor(
        registry,
        audit,
        max_concurrency=config.tools.max_concurrency,
        timeout=config.tools.timeout_seconds,
        summary_chars=config.tools.summary_chars,
        summary_chars_per_tool=config.tools.summary_chars_per_tool,
    )


def scheduler_settings(config: Config) -> SchedulerSettings:
    """The scheduler's timing and bounds from the ``[scheduler]`` section."""
    section = config.scheduler
    return SchedulerSettings(
        grace=timedelta(hours=section.grace_hours),
        max_attempts=section.max_attempts,
        retry_base=timedelta(seconds=section.retry_base_seconds),
        retry_max=timedelta(seconds=section.retry_max_seconds),
        run_timeout=section.run_timeout_seconds,
        batch_size=section.batch_size,
        shutdown_grace=timedelta(seconds=section.shutdown_grace_seconds),
        switch_interval=section.switch_interval_ms / 1000 or None,
        concurrency={kind: getattr(section.concurrency, kind) for kind in KINDS},
    )


def preview_schedule(config: Config, text: str, zone: str | None, now: datetime) -> str:
    """How the assistant reads schedule text, and its next runs in local time and UTC."""
    zone = zone or config.assistant.timezone
    minimum = timedelta(seconds=config.scheduler.min_interval_seconds)
    parsed = read_schedule(text, zone, now, minimum)
    lines = [parsed.description, *([f"note: {parsed.note}"] if parsed.note else []), "runs:"]
    run: datetime | None = parsed.first_run
    for _ in range(5):
        if run is None:
            break
        local = run.astimezone(ZoneInfo(zone))
        lines.append(f"  {local:%a %d %b %Y %H:%M %Z}  ({run:%Y-%m-%d %H:%M} UTC)")
        run = next_after(parsed.schedule, run)
    return "\n".join(lines)


async def status(setup: Setup) -> str:
    """Open (and migrate) the database, and describe what this installation has."""
    path = setup.database_path()
    datadir.prepare(path)
    conn = await open_database(path)
    try:
        version = await conn.user_version()
        model = await _model_status(setup.config, conn)
        zone = await _zone_status(setup, conn)
    finally:
        await conn.close()
    tools = await _tools_status(setup)
    return "\n".join(
        [
            f"assistant {__version__}",
            f"config:   {setup.source}",
            f"database: {path} (schema {version})",
            f"timezone: {zone}",
            f"model:    {model}",
            *tools,
            "",
            "`assistant tools` prints the catalogue the model reads;",
            "`assistant schedule 'weekdays 6pm'` shows how a schedule is read;",
            f"`assistant ask 'what time is it?'` asks {setup.config.llm.model} once.",
        ]
    )


async def _tools_status(setup: Setup) -> list[str]:
    """Every tool the model may be offered: built in, the folder's, the servers' (started,
    each within its connect timeout), and the servers that are not up."""
    from assistant.app.outside import outside

    async with outside(setup.config, setup.base, setup.database_path().parent) as found:
        registry = build_registry(setup.config, own=found.own(), sources=[found.servers])
        lines = [f"tools:    {', '.join(registry.names()) or 'none'}"]
        if found.folder is not None and found.folder.problems:
            lines.append(
                f"          {len(found.folder.problems)} left out of the tools folder "
                "(`assistant tools --check` says why)"
            )
        lines += [
            f"          server {c.spec.name}: {c.state} ({c.reason})"
            for c in found.hub
            if c.state != "up"
        ]
    return lines


def owner_of(config: Config) -> int:
    """The owner: the first allowed Telegram user, else the terminal's local user."""
    allowed = config.telegram.allowed_user_ids
    return allowed[0] if allowed else LOCAL


async def _zone_status(setup: Setup, db: Database) -> str:
    """The owner's zone when they set one, else the config's, said as such."""
    mine = (await People(db, SystemClock()).get(owner_of(setup.config))).timezone
    if mine:
        return f"{mine} (yours)"
    return f"{setup.config.assistant.timezone} (the config's; /tz sets yours)"


async def _model_status(config: Config, db: Database) -> str:
    """Whether the model can be used, and why not; in auto mode, the mode its turns use."""
    llm = config.llm
    where = f"{llm.model} at {llm.base_url}"
    try:
        model = build_model(config, db)
    except (LLMError, ConfigError) as exc:
        return f"{where} cannot be used: {exc}"
    try:
        known = await StoredModes(db).recall(model.name) if llm.tool_mode == "auto" else None
    finally:
        await model.close()
    if known is None:
        return f"{where}, tool mode {llm.tool_mode} (`assistant doctor` checks that it answers)"
    return (
        f"{where}, tool calls in {known.mode} mode since {known.since:%Y-%m-%d %H:%M} UTC "
        f"({known.reason}; `assistant doctor` checks again)"
    )
