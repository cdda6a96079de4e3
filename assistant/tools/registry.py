"""The registry of tools: lookup, allow and deny lists, the catalogue's budget, and the formats
models read."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any, Protocol

from assistant.errors import ConfigError, UnknownToolError
from assistant.llm.catalogue import anthropic_tool, openai_tool, text_catalogue
from assistant.llm.tokens import ApproxCounter
from assistant.llm.types import ToolSpec
from assistant.tools.tool import Tool

FINDER = "find_tools"  # offered only when some tools do not fit the catalogue


class ToolSource(Protocol):
    """Tools that come and go (an outside server's), looked up at every use."""

    def tools(self) -> Mapping[str, Tool]:
        """The tools offered now, by name."""
        ...


class Registry:
    """The tools a model may call, in registration order, with allow and deny lists applied."""

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        allow: Iterable[str] = (),
        deny: Iterable[str] = (),
        switched_off: Iterable[str] = (),
        sources: Iterable[ToolSource] = (),
        catalogue_tokens: int | None = None,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._sources = tuple(sources)
        self._budget = catalogue_tokens
        self._off = frozenset(switched_off)  # real tools the config left out: may be listed
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

    def _check_names(self, key: str, names: frozenset[str]) -> None:
        unknown = sorted(names - self._tools.keys() - self._off)
        if unknown:
            raise ConfigError(
                f"{key}: unknown tool {unknown[0]!r}; known tools: {', '.join(self._tools)}"
            )

    def allowed(self, name: str) -> bool:
        """Tell whether a registered tool passes the allow and deny lists (an outside tool
        passes its server's own lists instead)."""
        if name not in self._tools:
            return any(name in source.tools() for source in self._sources)
        return name not in self._deny and (not self._allow or name in self._allow)

    def __iter__(self) -> Iterator[Tool]:
        yield from (t for t in self._tools.values() if self.allowed(t.name))
        for source in self._sources:
            yield from source.tools().values()

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def names(self) -> list[str]:
        """Names of the allowed tools, in registration order."""
        return [t.name for t in self]

    def get(self, name: str) -> Tool | None:
        """Return an allowed tool by name, or None."""
        if name in self._tools:
            return self._tools[name] if self.allowed(name) else None
        return next((s.tools()[name] for s in self._sources if name in s.tools()), None)

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
        return [_spec(t) for t in self]

    def offered(self, found: Collection[str] = ()) -> list[ToolSpec]:
        """What one request carries: the built-ins, then outside tools in config order while
        they fit the catalogue's budget, then those ``find_tools`` found in this turn; the
        finder itself only when some tools were left out."""
        own = [t for t in self._tools.values() if self.allowed(t.name) and t.name != FINDER]
        outside = [t for source in self._sources for t in source.tools().values()]
        room = self._budget - sum(map(_cost, own)) if self._budget is not None else None
        chosen, left = [*own], False
        for item in outside:
            cost = _cost(item)
            if room is None or cost <= room:
                chosen.append(item)
                room = None if room is None else room - cost
            elif item.name in found:
                chosen.append(item)
            else:
                left = True
        finder = self.get(FINDER)
        if left and finder is not None:
            chosen.append(finder)
        return [_spec(t) for t in chosen]

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools in OpenAI's ``tools`` request format."""
        return [openai_tool(spec) for spec in self.specs()]

    def anthropic_tools(self) -> list[dict[str, Any]]:
        """The tools in Anthropic's ``tools`` request format."""
        return [anthropic_tool(spec) for spec in self.specs()]

    def catalogue(self) -> str:
        """The compact text catalogue of the seed, for prompts of models without native tools."""
        return text_catalogue(self.specs())


def _spec(tool: Tool) -> ToolSpec:
    return ToolSpec(tool.name, tool.description, tool.parameters, tool.signature(), tool.param_docs)


def _cost(tool: Tool) -> int:
    """Tokens a tool's entry takes of a request, about (as OpenAI's tools format writes it)."""
    return ApproxCounter().count(json.dumps(openai_tool(_spec(tool)), ensure_ascii=False))
