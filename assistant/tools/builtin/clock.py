"""Telling the model what time it is where the user is."""

from __future__ import annotations

from typing import Any

from assistant.tools.tool import ToolContext, tool


@tool(read_only=True, timeout=2.0)
async def get_current_time(context: ToolContext) -> dict[str, Any]:
    """Get the current date and time in the user's timezone."""
    now = context.local_now()
    return {
        "local": now.strftime("%Y-%m-%d %H:%M:%S"),
        "weekday": now.strftime("%A"),
        "timezone": context.timezone,
        "utc_offset": now.strftime("%z"),
        "utc": context.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
