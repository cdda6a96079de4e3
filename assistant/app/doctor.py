"""``assistant doctor``: checks the config, the database, the model and Telegram, and says
what to fix."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable
from typing import TextIO, TypeVar

from assistant.app import Setup, open_sandbox
from assistant.app.runtime import UnconfiguredModel, compose
from assistant.app.serve import NoChannel
from assistant.clock import SystemClock
from assistant.db import open_database
from assistant.errors import AssistantError, LLMError
from assistant.llm.model import Model
from assistant.llm.modes import ToolModeModel
from assistant.llm.probe import probe_mode
from assistant.llm.provider import build_sizer
from assistant.llm.types import ToolSpec
from assistant.telegram.identity import whoami

PING = ToolSpec("ping", "Answer the check.", {"type": "object", "properties": {}})
CHECK_SECONDS = 45.0
_T = TypeVar("_T")


async def doctor(setup: Setup, out: TextIO) -> bool:
    """Run every check, print one line each; True when nothing needs fixing."""
    results = [
        _line(out, True, "config", setup.source),
        await _database(setup, out),
        await _model(setup, out),
        await _telegram(setup, out),
        await _sandbox(setup, out),
    ]
    if not setup.config.telegram.allowed_user_ids:
        _line(
            out,
            False,
            "allowed users",
            "telegram.allowed_user_ids is empty: the bot answers nobody",
        )
        results.append(False)
    return all(results)


def _line(out: TextIO, ok: bool, what: str, detail: str) -> bool:
    out.write(f"{'✓' if ok else '✗'} {what}: {detail}\n")
    return ok


async def _database(setup: Setup, out: TextIO) -> bool:
    path = setup.database_path()
    try:
        conn = await open_database(path)
        try:
            version = await conn.user_version()
        finally:
            await conn.close()
    except AssistantError as exc:
        return _line(out, False, "database", str(exc))
    return _line(out, True, "database", f"{path} (schema {version})")


async def _model(setup: Setup, out: TextIO) -> bool:
    channel = NoChannel()
    async with compose(setup, SystemClock(), channel, channel, owner=False) as runtime:
        return await _probe(setup, runtime.model, out)


async def _probe(setup: Setup, model: Model, out: TextIO) -> bool:
    llm = setup.config.llm
    if not isinstance(model, ToolModeModel):
        reason = model.reason if isinstance(model, UnconfiguredModel) else "no model"
        return _line(out, False, "model", reason)
    inner = model.adapter  # the check is about the endpoint itself, not the tool mode
    try:
        works, why = await _bounded(probe_mode(inner))
    except (LLMError, TimeoutError) as exc:
        return _line(out, False, "model", str(exc) or f"no answer within {CHECK_SECONDS:g} s")
    fits = llm.tool_mode in ("auto", works) or (llm.tool_mode == "text")
    window = await build_sizer(setup.config).size()
    detail = (
        f"{llm.model} at {llm.base_url} answers; tool calls work in {works} mode ({why}); "
        f"context window {window.tokens:,} tokens ({window.source})"
    )
    if not fits:
        detail += f"; set llm.tool_mode = {works!r} (it is {llm.tool_mode!r})"
    return _line(out, fits, "model", detail)


async def _telegram(setup: Setup, out: TextIO) -> bool:
    settings = setup.config.telegram
    token = os.environ.get(settings.token_env, "").strip()
    if not token:
        return _line(
            out, False, "telegram", f"${settings.token_env} is empty: get a token from @BotFather"
        )
    try:
        ok, detail = await _bounded(whoami(token, settings.base_url))
    except TimeoutError:
        ok, detail = False, f"no answer from {settings.base_url}"
    return _line(out, ok, "telegram", detail)


async def _sandbox(setup: Setup, out: TextIO) -> bool:
    sandbox, detail = await open_sandbox(setup.config)
    return _line(out, sandbox is not None or not setup.config.tools.execute_code, "code", detail)


async def _bounded(awaitable: Awaitable[_T]) -> _T:
    async with asyncio.timeout(CHECK_SECONDS):
        return await awaitable
