"""Tool calls by grammar: the server is asked (``response_format`` with a JSON schema) for one
JSON object that is either the final answer or a call of one catalogue tool with that tool's
arguments. Servers that honour schemas (llama.cpp, vLLM, LM Studio, Ollama) then cannot
write anything else, which is what makes a small model's calls parseable.
"""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from assistant.llm.catalogue import text_catalogue
from assistant.llm.textmode import text_messages
from assistant.llm.types import BrokenCall, Completion, Request, ToolCall, ToolSpec

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
Reply with exactly one JSON object, nothing else:
- to answer the user: {{"answer": "your reply"}}
- to use a tool: {{"tool": "<name>", "arguments": {{...}}}}; its result comes back in the \
next message, then you continue.
Use a tool whenever the user asks for something a tool does; never invent a tool's result.

Tools:
{catalogue}"""


# A small model under a grammar can write a string forever ("1000000…"): bounds end it.
ID_LENGTH, TEXT_LENGTH, ANSWER_LENGTH = 40, 800, 4000


def schema(specs: Sequence[ToolSpec]) -> dict[str, Any]:
    """The JSON schema of one reply: an answer, or a call of one of these tools."""
    answer = {
        "type": "object",
        "properties": {"answer": {"type": "string", "maxLength": ANSWER_LENGTH}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    calls = [
        {
            "type": "object",
            "properties": {"tool": {"const": spec.name}, "arguments": bounded(spec.parameters)},
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for spec in specs
    ]
    return {"anyOf": [answer, *calls]}


def bounded(node: Any, name: str = "") -> Any:
    """A copy of a schema whose strings all have a length bound (identifiers a short one)."""
    if isinstance(node, list):
        return [bounded(item, name) for item in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {field: bounded(sub, field) for field, sub in value.items()}
        else:
            out[key] = bounded(value, name)
    if out.get("type") == "string" and "maxLength" not in out and "enum" not in out:
        out["maxLength"] = ID_LENGTH if name == "id" or name.endswith("_id") else TEXT_LENGTH
    return out


def grammar_request(request: Request) -> Request:
    """The same request, asking for one schema-constrained JSON object."""
    system = f"{request.system}\n\n{INSTRUCTIONS.format(catalogue=text_catalogue(request.tools))}"
    return Request(system.strip(), text_messages(request.messages), (), schema(request.tools))


def read_grammar_reply(completion: Completion) -> Completion:
    """The object the model wrote, as an answer or a call; anything else is a broken call."""
    text = completion.text.strip()
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, Mapping) and isinstance(value.get("answer"), str) and len(value) == 1:
        return replace(completion, text=value["answer"], calls=())
    if isinstance(value, Mapping) and isinstance(value.get("tool"), str):
        arguments = value.get("arguments", {})
        if isinstance(arguments, str):  # some servers double-encode
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments)
        call = ToolCall(f"call-{uuid.uuid4().hex[:8]}", value["tool"], arguments)
        return replace(completion, text="", calls=(call,), finish_reason="tool_calls")
    if isinstance(value, Mapping) or text.startswith("{"):
        log.debug("an unreadable grammar reply (%s): %.300r", completion.finish_reason, text)
        broken = BrokenCall(text[:200], "the reply is not an answer or a tool call object", 0)
        return replace(completion, text="", calls=(), broken=(broken,))
    return replace(completion, calls=())  # plain prose: a server that ignored the schema
