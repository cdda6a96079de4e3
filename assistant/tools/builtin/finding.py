"""Finding tools that did not fit the catalogue of a request."""

from __future__ import annotations

from assistant.tools.finder import Finder
from assistant.tools.services import need, services_of
from assistant.tools.tool import ToolContext, tool

FOUND = 3  # tools added to the turn by one search


@tool(read_only=True)
async def find_tools(context: ToolContext, query: str) -> str:
    """Find more tools by what they do, when none in your list fits; those found can be called
    next.

    Args:
        query: what the tool should do, in a few words
    """
    registry = need(services_of(context).registry, "finding tools")
    finder = Finder(t for t in registry if t.name != "find_tools")
    found = finder.search(query, FOUND)
    if not found:
        return f"No tool matches {query[:100]!r}; try other words."
    context.found.update(f.tool.name for f in found)
    lines = [f"{f.tool.signature()}: {f.tool.description}" for f in found]
    return "Found, and callable now:\n" + "\n".join(lines)
