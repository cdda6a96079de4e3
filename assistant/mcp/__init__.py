"""Outside tool servers spoken to with the Model Context Protocol (the official SDK)."""

from assistant.mcp.hub import Hub
from assistant.mcp.names import exposed_name
from assistant.mcp.remote import Backoff, Image, Outcome, RemoteTool, ServerSpec

__all__ = ["Backoff", "Hub", "Image", "Outcome", "RemoteTool", "ServerSpec", "exposed_name"]
