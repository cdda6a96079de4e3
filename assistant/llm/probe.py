"""Which tool mode an endpoint really supports, found by asking it: native calls, a JSON
schema (grammar), or neither (text). A server that silently drops ``tools`` answers in prose
to the native probe, and is noticed here rather than trusted."""

from __future__ import annotations

from assistant.errors import (
    LLMAuthError,
    LLMError,
    LLMUnavailableError,
    ModelNotFoundError,
    ToolsUnsupportedError,
)
from assistant.llm.grammar import grammar_request, read_grammar_reply
from assistant.llm.model import Model
from assistant.llm.types import Request, ToolMode, ToolSpec, UserMessage

PING = ToolSpec(
    "ping",
    "Answer the check by calling this tool.",
    {
        "type": "object",
        "properties": {"word": {"type": "string", "description": "the word to send"}},
        "required": ["word"],
    },
)
ASK = 'This is a check. Call the tool "ping" with the word "hello". Do not answer in prose.'


async def probe_mode(model: Model) -> tuple[ToolMode, str]:
    """The mode this endpoint and model work in, and why."""
    request = Request(ASK, [UserMessage("check")], (PING,))
    try:
        native = await model.complete(request)
    except ToolsUnsupportedError:
        native = None
    if native is not None and any(call.name == "ping" for call in native.calls):
        return "native", "it returned a real tool call"
    dropped = "refuses native tools" if native is None else "ignores native tools"
    try:
        grammar = read_grammar_reply(await model.complete(grammar_request(request)))
    except (LLMAuthError, ModelNotFoundError, LLMUnavailableError):
        raise  # the endpoint itself is unusable now: nothing is learned
    except LLMError:  # it rejects the schema request
        return "text", f"it {dropped} and refuses JSON schemas"
    if any(call.name == "ping" for call in grammar.calls):
        return "grammar", f"it {dropped} but honours a JSON schema"
    return "text", f"it {dropped} and does not keep to a JSON schema"
