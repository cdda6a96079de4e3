"""The composition root: builds the assistant's parts from the configuration."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, assert_never

from assistant import __version__
from assistant.config import Config
from assistant.db import FILE_NAME, open_database, user_version
from assistant.tools import Registry
from assistant.tools.builtin import builtin_tools

CatalogueFormat = Literal["text", "openai", "anthropic"]


@dataclass(frozen=True)
class Setup:
    """A loaded configuration and where it came from."""

    config: Config
    source: str
    base: Path | None = None

    def database_path(self) -> Path:
        """The SQLite file inside the configured data directory."""
        return self.config.data_path(self.base) / FILE_NAME


def build_registry(config: Config) -> Registry:
    """The built-in tools with the configured allow and deny lists applied."""
    return Registry(builtin_tools(), allow=config.tools.allow, deny=config.tools.deny)


def catalogue(config: Config, form: CatalogueFormat) -> str:
    """The tool catalogue in the form a model of the given kind reads."""
    registry = build_registry(config)
    if form == "text":
        return registry.catalogue()
    if form == "openai":
        return json.dumps(registry.openai_tools(), indent=2)
    if form == "anthropic":
        return json.dumps(registry.anthropic_tools(), indent=2)
    assert_never(form)


async def status(setup: Setup) -> str:
    """Open (and migrate) the database, and describe what this installation has."""
    path = setup.database_path()
    conn = await open_database(path)
    try:
        version = await user_version(conn)
    finally:
        await conn.close()
    registry = build_registry(setup.config)
    return "\n".join(
        [
            f"assistant {__version__}",
            f"config:   {setup.source}",
            f"database: {path} (schema {version})",
            f"timezone: {setup.config.assistant.timezone}",
            f"tools:    {', '.join(registry.names()) or 'none'}",
            "",
            "`assistant tools` prints the catalogue the model reads.",
        ]
    )
