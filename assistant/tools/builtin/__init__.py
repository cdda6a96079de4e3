"""The tools the assistant ships with."""

from __future__ import annotations

from assistant.tools.builtin.clock import get_current_time
from assistant.tools.tool import Tool


def builtin_tools() -> list[Tool]:
    """Every built-in tool, in the order the catalogue shows them."""
    return [get_current_time]
