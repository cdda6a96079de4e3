"""Running Python for the user: off unless enabled and isolated, always approved."""

from __future__ import annotations

from assistant.tools.services import need, services_of
from assistant.tools.tool import ToolContext, tool


@tool(risk="high", needs_approval=True, timeout=60.0, summary_chars=4000)
async def execute_code(context: ToolContext, code: str) -> str:
    """Run a short Python program in a sandbox (no network, no files kept) and show its output.

    Args:
        code: the whole program; print what you want to see
    """
    sandbox = need(services_of(context).sandbox, "running code")
    result = await sandbox.run(code)
    return result.report()
