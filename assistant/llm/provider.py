"""The configured model: its provider's adapter, the key from the environment, the tool mode."""

from __future__ import annotations

import os
from collections.abc import Callable

from assistant.config import Config, LLMSettings
from assistant.db import Database
from assistant.errors import ConfigError, LLMAuthError
from assistant.llm.contextsize import ContextSizer
from assistant.llm.failures import Endpoint, RetryPolicy
from assistant.llm.model import Model
from assistant.llm.modes import StoredModes, ToolModeModel
from assistant.llm.vision import VisionModel

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"
HOW_TO_CONFIGURE = (
    "Set the key in ${env}, or point the assistant at another model in config.toml: "
    '[llm] base_url = "http://localhost:11434/v1" for Ollama (any key), or '
    'provider = "anthropic" with ANTHROPIC_API_KEY.'
)


def endpoint(settings: LLMSettings) -> Endpoint:
    """Where the model lives; Anthropic gets its own URL and key variable unless set."""
    if settings.provider == "anthropic":
        url = (
            ANTHROPIC_DEFAULT_URL if settings.base_url == OPENAI_DEFAULT_URL else settings.base_url
        )
        env = (
            "ANTHROPIC_API_KEY"
            if settings.api_key_env == "OPENAI_API_KEY"
            else settings.api_key_env
        )
        return Endpoint("anthropic", settings.model, url, env)
    return Endpoint("openai", settings.model, settings.base_url, settings.api_key_env)


def api_key(where: Endpoint) -> str:
    """The key from its variable; only OpenAI's own API and Anthropic insist on one."""
    key = os.environ.get(where.key_env, "").strip()
    needs_key = where.provider == "anthropic" or where.base_url == OPENAI_DEFAULT_URL
    if not key and needs_key:
        raise LLMAuthError(
            f"No API key for the model: ${where.key_env} is empty. "
            + HOW_TO_CONFIGURE.format(env=where.key_env)
        )
    return key


def build_sizer(config: Config) -> ContextSizer:
    """Where the model's window comes from: the config, else its server, else a default."""
    where = endpoint(config.llm)
    key = os.environ.get(where.key_env, "").strip()
    return ContextSizer(config.llm.context_tokens, where.base_url, where.model, key)


def build_model(
    config: Config, db: Database, wrap: Callable[[Model], Model] | None = None
) -> ToolModeModel:
    """The configured model, wrapped in its tool mode, remembering fallbacks in the database;
    ``wrap`` goes round the provider's adapter (counting every call it sends)."""
    settings = config.llm
    where = endpoint(settings)
    key = api_key(where)
    retry = RetryPolicy(retries=settings.retries, max_delay=settings.retry_max_wait_seconds)
    if where.provider == "anthropic":
        try:
            from assistant.llm.anthropic import AnthropicModel
        except ImportError:
            raise ConfigError(
                "llm.provider = 'anthropic' needs the anthropic extra: in the assistant's folder, "
                ".venv/bin/pip install -e '.[anthropic]'"
            ) from None
        adapter: Model = AnthropicModel(
            where,
            key,
            timeout=settings.timeout_seconds,
            max_tokens=settings.max_tokens,
            retry=retry,
            temperature=settings.temperature,
        )
    else:
        from assistant.llm.openai import OpenAIModel

        adapter = OpenAIModel(
            where,
            key,
            timeout=settings.timeout_seconds,
            max_tokens=settings.max_tokens,
            retry=retry,
            temperature=settings.temperature,
        )
    # Anthropic's API always takes native tools: nothing to learn by probing it.
    native = where.provider == "anthropic" and settings.tool_mode == "auto"
    mode = "native" if native else settings.tool_mode
    modes = StoredModes(db)
    sighted = VisionModel(wrap(adapter) if wrap else adapter, settings.vision, modes)
    return ToolModeModel(sighted, mode, modes, reply_tokens=settings.max_tokens)
