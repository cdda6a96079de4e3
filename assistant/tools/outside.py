"""The tools of outside servers as our own: checked by their schema, approved, audited, timed."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from assistant.errors import RemoteToolError
from assistant.mcp import Hub, RemoteTool
from assistant.servers import ServerSettings
from assistant.tools.arguments import SchemaArguments
from assistant.tools.tool import Attachment, Tool, ToolContext

log = logging.getLogger(__name__)


class _Unchecked(BaseModel):
    """Stands for the pydantic model that built-ins have; outside tools use their schema."""

    model_config = ConfigDict(extra="allow")


class OutsideTools:
    """The tools of the servers that are up, rebuilt when one comes or goes."""

    def __init__(self, hub: Hub, servers: Mapping[str, ServerSettings]) -> None:
        self._hub = hub
        self._servers = servers
        self._version = -1
        self._tools: dict[str, Tool] = {}

    def tools(self) -> Mapping[str, Tool]:
        """The outside tools offered now, by name, in config order."""
        if self._hub.version != self._version:
            self._version = self._hub.version
            self._tools = {}
            for remote in self._hub.tools():
                made = self._made(remote)
                if made is not None and made.name not in self._tools:
                    self._tools[made.name] = made
        return self._tools

    def _made(self, remote: RemoteTool) -> Tool | None:
        try:
            return outside_tool(remote, self._servers[remote.server], self._hub)
        except ValueError as exc:
            log.warning("MCP tool %s of %s left out: %s", remote.name, remote.server, exc)
            return None


def outside_tool(remote: RemoteTool, settings: ServerSettings, hub: Hub) -> Tool:
    """A server's tool as a Tool: read-only only when the server says so and the config does
    not ask for approval of everything; a write asks unless the config says never."""
    arguments = SchemaArguments.of(remote.input_schema)
    read_only = remote.read_only and settings.approve != "always"
    asks = settings.approve == "always" or (settings.approve == "writes" and not read_only)

    async def call(context: ToolContext, **given: Any) -> str:
        outcome = await hub.call(remote.server, remote.name, given)
        for image in outcome.images:
            context.attachments.append(Attachment("image", image.data, remote.exposed))
        if outcome.is_error:
            raise RemoteToolError(outcome.text or "the tool reported an error")
        return outcome.text

    return Tool(
        name=remote.exposed,
        description=f"[{remote.server}] {remote.description}",
        parameters=arguments.shown(),
        fn=call,
        arguments_model=_Unchecked,
        annotations={},
        param_docs={},
        context_param="context",
        risk="medium",
        needs_approval=asks,
        read_only=read_only,
        timeout=settings.timeout_seconds,
        untrusted=True,
        schema_arguments=arguments,
        origin=f"server {remote.server}",
    )
