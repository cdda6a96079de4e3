"""Running Python for the user: off unless enabled, always approved, always sandboxed."""

from __future__ import annotations

from assistant.errors import ToolError
from assistant.tools.sandbox import SandboxLimits, run_python
from assistant.tools.services import services_of
from assistant.tools.tool import ToolContext, tool

MAX_CODE = 20_000


@tool(risk="high", needs_approval=True, timeout=60.0, summary_chars=4000)
async def execute_code(context: ToolContext, code: str) -> str:
    """Run a short Python program in a sandbox (no network, no files kept) and show its output.

    Args:
        code: the whole program; print what you want to see
    """
    limits = services_of(context).sandbox
    if not isinstance(limits, SandboxLimits):
        raise ToolError("running code is switched off in this installation")
    if len(code) > MAX_CODE:
        raise ToolError(f"the program is {len(code):,} characters; at most {MAX_CODE:,}")
    result = await run_python(code, limits)
    return result.report()
