"""``assistant doctor``: checks the config, the data folder and database, the model and
Telegram, and says what to fix; ``--json`` gives the same checks to scripts."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable
from dataclasses import asdict, dataclass
from typing import TextIO, TypeVar

from assistant.app import Setup, datadir, open_sandbox
from assistant.app.outside import outside
from assistant.app.runtime import UnconfiguredModel, compose
from assistant.app.serve import NoChannel
from assistant.channels.telegram.identity import whoami
from assistant.clock import SystemClock
from assistant.db import open_database
from assistant.errors import AssistantError, ConfigError, LLMError
from assistant.intents.languages import languages, matcher
from assistant.intents.places import count as places
from assistant.llm.model import Model
from assistant.llm.modes import ToolModeModel
from assistant.llm.provider import build_sizer

log = logging.getLogger(__name__)

CHECK_SECONDS = 45.0
_T = TypeVar("_T")


@dataclass(frozen=True)
class Check:
    """One check's outcome: what was checked, whether it is fine, and what to know or do."""

    name: str
    ok: bool
    detail: str


async def doctor(setup: Setup, out: TextIO, *, as_json: bool = False) -> bool:
    """Run every check and print them (a line each, or one JSON object); True when nothing
    needs fixing."""
    checks = [Check("config", True, setup.source), await _guarded("database", _database(setup))]
    if checks[-1].ok:
        checks.append(await _guarded("model", _model(setup)))
    else:
        checks.append(_skipped("model"))
    checks.append(await _guarded("telegram", _telegram(setup)))
    checks.append(await _guarded("code", _sandbox(setup)))
    checks += await _guarded_many("outside tools", _outside(setup))
    checks.append(_local(setup))
    if not setup.config.telegram.allowed_user_ids:
        checks.append(
            Check(
                "allowed users", False, "telegram.allowed_user_ids is empty: the bot answers nobody"
            )
        )
    ok = all(check.ok for check in checks)
    if as_json:
        out.write(json.dumps({"ok": ok, "checks": [asdict(c) for c in checks]}, indent=2) + "\n")
    else:
        out.writelines(f"{'✓' if c.ok else '✗'} {c.name}: {c.detail}\n" for c in checks)
    return ok


def _local(setup: Setup) -> Check:
    """The local step: its sentence files load, and in which languages."""
    if not setup.config.assistant.local_first:
        return Check("understood locally", True, "off (assistant.local_first = false)")
    try:
        matcher()
    except ConfigError as exc:
        return Check("understood locally", False, str(exc))
    said = ", ".join(languages())
    return Check("understood locally", True, f"on: sentences in {said}; {places():,} place names")


async def _guarded(name: str, check: Awaitable[Check]) -> Check:
    """One check, whose failure is a failed line of the list rather than the end of it."""
    return (await _guarded_many(name, _one(check)))[0]


async def _one(check: Awaitable[Check]) -> list[Check]:
    return [await check]


async def _guarded_many(name: str, checks: Awaitable[list[Check]]) -> list[Check]:
    try:
        return await checks
    except AssistantError as exc:
        return [Check(name, False, str(exc))]
    except Exception as exc:
        log.error("doctor's %s check failed on a bug", name, exc_info=exc)
        return [Check(name, False, f"the check itself failed ({type(exc).__name__}): a bug")]


def _skipped(name: str) -> Check:
    return Check(name, False, "not checked: the database must open first")


async def _database(setup: Setup) -> Check:
    path = setup.database_path()
    try:
        datadir.prepare(path)
        conn = await open_database(path)
        try:
            version = await conn.user_version()
        finally:
            await conn.close()
    except AssistantError as exc:
        return Check("database", False, str(exc))
    running = datadir.holder(path)
    detail = f"{path} (schema {version})" + (f"; in use by pid {running}" if running else "")
    return Check("database", True, detail)


async def _model(setup: Setup) -> Check:
    channel = NoChannel()
    async with compose(setup, SystemClock(), channel, channel, owner=False) as runtime:
        return await _probe(setup, runtime.model)


async def _probe(setup: Setup, model: Model) -> Check:
    llm = setup.config.llm
    if not isinstance(model, ToolModeModel):
        reason = model.reason if isinstance(model, UnconfiguredModel) else "no model"
        return Check("model", False, reason)
    try:  # the finding becomes the remembered mode, so doctor and the turns agree
        probe, before = await _bounded(model.reprobe())
    except (LLMError, TimeoutError) as exc:
        return Check("model", False, str(exc) or f"no answer within {CHECK_SECONDS:g} s")
    works = probe.mode
    fits = llm.tool_mode in ("auto", works) or (llm.tool_mode == "text")
    window = await build_sizer(setup.config).size()
    detail = (
        f"{llm.model} at {llm.base_url} answers; tool calls work in {works} mode ({probe.why}); "
        f"context window {window.tokens:,} tokens ({window.source})"
    )
    if llm.tool_mode == "auto" and before is not None and before.mode != works:
        detail += (
            f"; it was in {before.mode} mode since {before.since:%Y-%m-%d %H:%M} UTC "
            f"({before.reason}), now {works}"
        )
    if not fits:
        detail += f"; set llm.tool_mode = {works!r} (it is {llm.tool_mode!r})"
    return Check("model", fits, detail)


async def _telegram(setup: Setup) -> Check:
    settings = setup.config.telegram
    token = os.environ.get(settings.token_env, "").strip()
    if not token:
        return Check(
            "telegram", False, f"${settings.token_env} is empty: get a token from @BotFather"
        )
    try:
        ok, detail = await _bounded(whoami(token, settings.base_url))
    except TimeoutError:
        ok, detail = False, f"no answer from {settings.base_url}"
    return Check("telegram", ok, detail)


async def _sandbox(setup: Setup) -> Check:
    sandbox, detail = await open_sandbox(setup.config)
    return Check("code", sandbox is not None or not setup.config.tools.execute_code, detail)


async def _outside(setup: Setup) -> list[Check]:
    """The tools folder and each MCP server: loaded and up, or why not."""
    checks: list[Check] = []
    async with outside(setup.config, setup.base, setup.database_path().parent) as found:
        if found.folder is not None:
            folder = found.folder
            detail = f"{len(folder.tools)} tools from {folder.path}"
            if folder.problems:
                detail += "; left out: " + "; ".join(str(p) for p in folder.problems)
            checks.append(Check("tools folder", not folder.problems, detail))
        for connection in found.hub:
            name = f"mcp {connection.spec.name}"
            if connection.state == "up":
                checks.append(Check(name, True, f"up, {len(connection.tools)} tools"))
            else:
                checks.append(Check(name, False, f"{connection.state}: {connection.reason}"))
    return checks


async def _bounded(awaitable: Awaitable[_T]) -> _T:
    async with asyncio.timeout(CHECK_SECONDS):
        return await awaitable
