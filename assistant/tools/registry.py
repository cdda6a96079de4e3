"""The registry of tools: lookup, allow and deny lists, and the formats models read."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from assistant.errors import ConfigError, UnknownToolError
from assistant.llm.catalogue import anthropic_tool, openai_tool, text_catalogue
from assistant.llm.types import ToolSpec
from assistant.tools.tool import Tool


class Registry:
    """The tools a model may call, in registration order, with allow and deny lists applied."""

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        allow: Iterable[str] = (),
        deny: Iterable[str] = (),
        switched_off: Iterable[str] = (),
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._off = frozenset(switched_off)  # real tools the config left out: may be listed
        self._specs: list[ToolSpec] | None = None
        for item in tools:
            self.register(item)
        self._allow = frozenset(allow)
        self._deny = frozenset(deny)
        self._check_names("tools.allow", self._allow)
        self._check_names("tools.deny", self._deny)

    def register(self, item: Tool) -> None:
        """Add a tool; a second tool with the same name is a programming error."""
        if item.name in self._tools:
            raise ValueError(f"a tool named {item.name!r} is already registered")
        self._tools[item.name] = item
        self._specs = None

    def _check_names(self, key: str, names: frozenset[str]) -> None:
        unknown = sorted(names - self._tools.keys() - self._off)
        if unknown:
            raise ConfigError(
                f"{key}: unknown tool {unknown[0]!r}; known tools: {', '.join(self._tools)}"
            )

    def allowed(self, name: str) -> bool:
        """Tell whether a registered tool passes the allow and deny lists."""
        return (
            name in self._tools
            and name not in self._deny
            and (not self._allow or name in self._allow)
        )

    def __iter__(self) -> Iterator[Tool]:
        return (t for t in self._tools.values() if self.allowed(t.name))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def names(self) -> list[str]:
        """Names of the allowed tools, in registration order."""
        return [t.name for t in self]

    def get(self, name: str) -> Tool | None:
        """Return an allowed tool by name, or None."""
        return self._tools[name] if self.allowed(name) else None

    def require(self, name: str) -> Tool:
        """Return an allowed tool, or raise an error that names the closest ones for the model."""
        found = self.get(name)
        if found is not None:
            return found
        names = self.names()
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        listing = ", ".join(names) if names else "none"
        raise UnknownToolError(f"There is no tool named {name!r}.{hint} Tools: {listing}.")

    def subset(self, keep: Callable[[Tool], bool]) -> Registry:
        """A new registry holding the allowed tools for which ``keep`` is true."""
        return Registry(t for t in self if keep(t))

    def specs(self) -> list[ToolSpec]:
        """The allowed tools as models are shown them."""
        return [
            ToolSpec(t.name, t.description, t.parameters, t.signature(), t.param_docs) for t in self
        ]

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools in OpenAI's ``tools`` request format."""
        return [openai_tool(spec) for spec in self.specs()]

    def anthropic_tools(self) -> list[dict[str, Any]]:
        """The tools in Anthropic's ``tools`` request format."""
        return [anthropic_tool(spec) for spec in self.specs()]

    def catalogue(self) -> str:
        """The compact text catalogue of the seed, for prompts of models without native tools."""
        return text_catalogue(self.specs())
