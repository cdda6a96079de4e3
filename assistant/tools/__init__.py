"""Tools the model can call: definition, registry, validation, execution and the built-ins."""

from assistant.errors import ToolError
from assistant.tools.executor import Executor, ToolResult
from assistant.tools.registry import Registry
from assistant.tools.tool import Attachment, Made, Risk, Tool, ToolContext, tool
from assistant.tools.validation import ValidCall, validate

__all__ = [
    "Attachment",
    "Executor",
    "Made",
    "Registry",
    "Risk",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ValidCall",
    "tool",
    "validate",
]
