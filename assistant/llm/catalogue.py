"""How tools are shown to models: OpenAI and Anthropic tool entries, and the seed's text form."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assistant.llm.types import ToolSpec


def openai_tool(spec: ToolSpec) -> dict[str, Any]:
    """A tool in OpenAI's ``tools`` request format."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": dict(spec.parameters),
        },
    }


def anthropic_tool(spec: ToolSpec) -> dict[str, Any]:
    """A tool in Anthropic's ``tools`` request format."""
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": dict(spec.parameters),
    }


def text_catalogue(specs: Iterable[ToolSpec]) -> str:
    """The compact catalogue of the seed, for prompts of models without native tools."""
    blocks = []
    for spec in specs:
        lines = [spec.signature or f"{spec.name}(...)", f"  {spec.description}"]
        lines += [f"  {name}: {text}" for name, text in spec.param_docs.items()]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
