"""How many tokens the model's context window holds: as configured, as the server says, or a
default that is named as such.

Asked once per process, lazily (start-up never waits on the model's server): llama.cpp's
``/props``, vLLM's ``/v1/models``, Ollama's ``/api/show`` and LM Studio's ``/api/v0/models``.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

log = logging.getLogger(__name__)

DEFAULT = 8192
ASK_SECONDS = 3.0
HOSTED = {"api.openai.com": 128_000, "api.anthropic.com": 200_000}
_TOKENS = Field(default=None, ge=256, le=10_000_000)
_NUM_CTX = re.compile(r"(?m)^num_ctx\s+(\d{3,8})\s*$")


@dataclass(frozen=True)
class ContextSize:
    """The window in tokens and where that figure came from."""

    tokens: int
    source: str


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Settings(_Loose):
    n_ctx: int | None = _TOKENS


class _Props(_Loose):
    n_ctx: int | None = _TOKENS
    default_generation_settings: _Settings | None = None


class _Entry(_Loose):
    id: str = ""
    max_model_len: int | None = _TOKENS
    loaded_context_length: int | None = _TOKENS
    max_context_length: int | None = _TOKENS


class _Models(_Loose):
    data: list[_Entry] = []


class _Show(_Loose):
    parameters: str = ""
    model_info: dict[str, Any] = {}


@dataclass(frozen=True)
class _Where:
    base_url: str  # ends in /v1 for OpenAI-compatible servers
    root: str  # the server itself
    model: str


Ask = Callable[[httpx.AsyncClient, _Where], Awaitable[ContextSize | None]]


async def _llama_cpp(client: httpx.AsyncClient, where: _Where) -> ContextSize | None:
    props = _Props.model_validate(await _get(client, f"{where.root}/props"))
    settings = props.default_generation_settings
    tokens = props.n_ctx or (settings.n_ctx if settings else None)
    return ContextSize(tokens, "llama.cpp's /props (n_ctx)") if tokens else None


async def _vllm(client: httpx.AsyncClient, where: _Where) -> ContextSize | None:
    models = _Models.model_validate(await _get(client, f"{where.base_url}/models"))
    entry = _entry(models, where.model)
    if entry is None or entry.max_model_len is None:
        return None
    return ContextSize(entry.max_model_len, "the server's /v1/models (max_model_len)")


async def _ollama(client: httpx.AsyncClient, where: _Where) -> ContextSize | None:
    reply = await client.post(f"{where.root}/api/show", json={"model": where.model})
    show = _Show.model_validate(reply.raise_for_status().json())
    configured = _NUM_CTX.search(show.parameters)
    if configured:
        return ContextSize(int(configured.group(1)), "Ollama's /api/show (num_ctx)")
    trained = [v for k, v in show.model_info.items() if k.endswith(".context_length")]
    if not trained:
        return None
    # Without num_ctx Ollama runs the model in its own default window, not the trained one.
    return ContextSize(min(int(trained[0]), 4096), "Ollama's default window (num_ctx not set)")


async def _lm_studio(client: httpx.AsyncClient, where: _Where) -> ContextSize | None:
    models = _Models.model_validate(await _get(client, f"{where.root}/api/v0/models"))
    entry = _entry(models, where.model)
    tokens = entry and (entry.loaded_context_length or entry.max_context_length)
    return ContextSize(tokens, "LM Studio's /api/v0/models") if tokens else None


_ASKS: tuple[Ask, ...] = (_llama_cpp, _vllm, _ollama, _lm_studio)


async def _get(client: httpx.AsyncClient, url: str) -> Any:
    return (await client.get(url)).raise_for_status().json()


def _entry(models: _Models, model: str) -> _Entry | None:
    named = [e for e in models.data if e.id == model] or models.data
    return named[0] if named else None


async def discover(base_url: str, model: str, api_key: str) -> ContextSize:
    """The window as the server says it, or the default, each with its source."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host in HOSTED:
        return ContextSize(HOSTED[host], f"{host} (its models' smallest window)")
    base = base_url.rstrip("/")
    where = _Where(base, base.removesuffix("/v1"), model)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    async with httpx.AsyncClient(timeout=ASK_SECONDS, headers=headers) as client:
        for ask in _ASKS:
            try:
                found = await ask(client, where)
            except (httpx.HTTPError, ValueError, ValidationError):
                continue  # not this kind of server
            if found is not None:
                return found
    return ContextSize(DEFAULT, f"a default of {DEFAULT:,}: the server did not say")


class ContextSizer:
    """The model's window, configured or discovered once; discovery never delays a turn long."""

    def __init__(self, configured: int, base_url: str, model: str, api_key: str) -> None:
        self._configured = configured
        self._where = (base_url, model, api_key)
        self._size: ContextSize | None = None
        self._lock = asyncio.Lock()

    async def size(self) -> ContextSize:
        """The window and where the figure came from."""
        if self._configured:
            return ContextSize(self._configured, "llm.context_tokens")
        async with self._lock:
            if self._size is None:
                self._size = await self._discover()
            return self._size

    async def _discover(self) -> ContextSize:
        try:
            async with asyncio.timeout(ASK_SECONDS * len(_ASKS) + 1):
                size = await discover(*self._where)
        except TimeoutError:
            size = ContextSize(DEFAULT, f"a default of {DEFAULT:,}: the server did not answer")
        log.info("model context window: %d tokens (%s)", size.tokens, size.source)
        return size
