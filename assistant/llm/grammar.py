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
# With a reply limit, every string together must fit in it, or the limit cuts the JSON
# (measured: "system_stats.json.json.json…", and an answer of ".203000.203000…" until 256
# tokens: a small model's tokenizer spends a token on each digit). One character a token is
# what a run of digits costs; the object's own syntax takes the first tokens.
CHARS_PER_TOKEN, SYNTAX_TOKENS = 1, 48


def schema(specs: Sequence[ToolSpec], reply_tokens: int | None = None) -> dict[str, Any]:
    """The JSON schema of one reply: an answer, or a call of one of these tools, each string
    bounded so that the whole reply fits in ``reply_tokens``."""
    room = TEXT_LENGTH if reply_tokens is None else _room(reply_tokens)
    answer = {
        "type": "object",
        "properties": {"answer": {"type": "string", "maxLength": min(ANSWER_LENGTH, room)}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    calls = [
        {
            "type": "object",
            "properties": {
                "tool": {"const": spec.name},
                "arguments": bounded(spec.parameters, text=_share(spec.parameters, room)),
            },
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for spec in specs
    ]
    return {"anyOf": [answer, *calls]}


def bounded(node: Any, name: str = "", *, text: int = TEXT_LENGTH) -> Any:
    """A copy of a schema whose strings all have a length bound (identifiers a short one)."""
    if isinstance(node, list):
        return [bounded(item, name, text=text) for item in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {field: bounded(sub, field, text=text) for field, sub in value.items()}
        else:
            out[key] = bounded(value, name, text=text)
    if out.get("type") == "string" and "maxLength" not in out and "enum" not in out:
        out["maxLength"] = min(ID_LENGTH, text) if _is_id(name) else text
    return out


def _is_id(name: str) -> bool:
    return name == "id" or name.endswith("_id")


def _room(reply_tokens: int) -> int:
    """How many characters of strings a reply of this many tokens holds."""
    return max(ID_LENGTH, (reply_tokens - SYNTAX_TOKENS) * CHARS_PER_TOKEN)


def _share(parameters: Mapping[str, Any], room: int) -> int:
    """Each free-text argument's share of the room (identifiers and choices are short)."""
    fields = parameters.get("properties", {})
    free = [name for name, sub in fields.items() if not _is_id(name) and _free_text(sub)]
    return min(TEXT_LENGTH, max(ID_LENGTH, room // max(1, len(free))))


def _free_text(node: Any) -> bool:
    """A string argument (or one of its alternatives) with no length or choices of its own."""
    if not isinstance(node, Mapping):
        return False
    if node.get("type") == "string":
        return "enum" not in node and "maxLength" not in node
    return any(_free_text(option) for option in node.get("anyOf", ()))


def grammar_request(request: Request, reply_tokens: int | None = None) -> Request:
    """The same request, asking for one schema-constrained JSON object that fits the reply."""
    system = f"{request.system}\n\n{INSTRUCTIONS.format(catalogue=text_catalogue(request.tools))}"
    constraint = schema(request.tools, reply_tokens)
    return Request(
        system.strip(), text_messages(request.messages), (), constraint, payer=request.payer
    )


def read_grammar_reply(completion: Completion) -> Completion:
    """The object the model wrote, as an answer or a call; anything else is a broken call."""
    text = completion.text.strip()
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if value is None and completion.finish_reason == "length":
        value = _cut_answer(text)
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


def _cut_answer(text: str) -> Mapping[str, Any] | None:
    """An answer whose JSON the reply limit cut inside its string, closed again; a cut call
    stays broken (its arguments are not whole)."""
    if not text.startswith("{") or '"answer"' not in text[:20]:
        return None
    for ending in ('"}', '\\"}', "}"):
        with contextlib.suppress(ValueError):
            value = json.loads(text + ending)
            return value if isinstance(value, Mapping) else None
    return None
