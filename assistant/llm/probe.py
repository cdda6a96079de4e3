"""Which tool mode an endpoint supports, found by asking it: native calls, a JSON schema
(grammar), or neither (text). An endpoint that refuses ``tools`` is a fact; a reply in prose
to a made-up request is only a hint, so it names the fallback and real turns decide."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Probe:
    """What the check found: the mode to use now, why, and the mode to fall back to."""

    mode: ToolMode
    why: str
    fallback: ToolMode  # grammar or text: what real turns switch to if native fails


async def probe_mode(model: Model) -> Probe:
    """The mode this endpoint and model work in, and why.

    An endpoint that accepts ``tools`` is used natively even if it answered the made-up check
    in prose: real turns decide, since a model may call tools for people and not for a check.
    """
    request = Request(ASK, [UserMessage("check")], (PING,))
    try:
        native = await model.complete(request)
    except ToolsUnsupportedError:
        native = None
    if native is not None and any(call.name == "ping" for call in native.calls):
        return Probe("native", "it returned a real tool call", "text")
    fallback, schema = await _fallback(model, request)
    if native is None:
        joined = "but" if fallback == "grammar" else "and"
        return Probe(fallback, f"it refuses native tools {joined} {schema}", fallback)
    why = (
        "it accepts tools but answered the check in prose: real turns decide, "
        f"with {fallback} mode to fall back to (it {schema})"
    )
    return Probe("native", why, fallback)


async def _fallback(model: Model, request: Request) -> tuple[ToolMode, str]:
    """Grammar if the endpoint keeps to a JSON schema, else text; and what was seen."""
    try:
        grammar = read_grammar_reply(await model.complete(grammar_request(request)))
    except (LLMAuthError, ModelNotFoundError, LLMUnavailableError):
        raise  # the endpoint itself is unusable now: nothing is learned
    except LLMError:  # it rejects the schema request
        return "text", "refuses JSON schemas"
    if any(call.name == "ping" for call in grammar.calls):
        return "grammar", "honours a JSON schema"
    return "text", "does not keep to a JSON schema"
