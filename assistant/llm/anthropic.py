"""The Anthropic adapter (the optional ``anthropic`` extra): tool_use and tool_result blocks.

Requests are plain JSON built here; replies are read as plain dicts. Anthropic wants roles to
alternate, so tool results and the user's next words share one user turn.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anthropic

from assistant.errors import LLMError
from assistant.llm.catalogue import anthropic_tool
from assistant.llm.failures import (
    Endpoint,
    RetryingAdapter,
    RetryPolicy,
    bad_reply,
    error_detail,
    unreachable,
)
from assistant.llm.types import (
    AssistantMessage,
    Completion,
    FinishReason,
    Message,
    Request,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolMessage,
    Usage,
    UserMessage,
)

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"
_FINISH: Mapping[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


class AnthropicModel(RetryingAdapter):
    """A Claude model behind Anthropic's Messages API."""

    def __init__(
        self,
        endpoint: Endpoint,
        api_key: str,
        *,
        timeout: float = 60.0,
        max_tokens: int = 1024,
        retry: RetryPolicy | None = None,
        temperature: float | None = None,
    ) -> None:
        super().__init__(endpoint, timeout, retry, temperature)
        self._max_tokens = max_tokens
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=endpoint.base_url, timeout=timeout, max_retries=0
        )

    async def close(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()

    async def _complete(self, request: Request) -> Completion:
        body = self._tuned(payload(self._endpoint.model, request, self._max_tokens, stream=False))
        try:
            async with asyncio.timeout(self._timeout + 5):
                reply = await self._client.messages.create(**sdk_arguments(body))
        except (anthropic.APIError, TimeoutError) as exc:
            raise self._failure(exc, bool(request.tools)) from None
        return read_completion(reply.to_dict())

    async def _stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        body = self._tuned(payload(self._endpoint.model, request, self._max_tokens, stream=True))
        assembly = StreamAssembly()
        try:
            async with asyncio.timeout(self._timeout + 5):
                events = await self._client.messages.create(**sdk_arguments(body))
            async with events:
                async for event in events:
                    if text := assembly.add(event.to_dict()):
                        yield TextDelta(text)
        except (anthropic.APIError, TimeoutError) as exc:
            raise self._failure(exc, bool(request.tools)) from None
        yield assembly.completion()

    def _failure(self, exc: BaseException, offered_tools: bool) -> LLMError:
        if isinstance(exc, anthropic.APIStatusError):
            headers = dict(exc.response.headers)
            return self._status_failure(
                exc.status_code, exc.body, exc.message, headers, offered_tools
            )
        if isinstance(exc, anthropic.APIError) and not isinstance(
            exc, anthropic.APIConnectionError
        ):
            return bad_reply(exc.message)
        return unreachable(self._endpoint, exc)


def sdk_arguments(body: dict[str, Any]) -> dict[str, Any]:
    """The body as the installed SDK's ``messages.create`` takes it.

    A key the SDK does not name (``temperature`` in anthropic 2.14) still reaches the API, in
    ``extra_body``, rather than failing every call with a TypeError.
    """
    named = _sdk_parameters()
    arguments = {key: value for key, value in body.items() if key in named}
    extra = {key: value for key, value in body.items() if key not in named}
    if extra:
        log.debug("sent outside the SDK's named parameters: %s", sorted(extra))
        arguments["extra_body"] = extra
    return arguments


@functools.cache
def _sdk_parameters() -> frozenset[str]:
    signature = inspect.signature(anthropic.resources.messages.AsyncMessages.create)
    return frozenset(signature.parameters) - {"self", "extra_body"}


def payload(model: str, request: Request, max_tokens: int, *, stream: bool) -> dict[str, Any]:
    """The JSON body of a ``/v1/messages`` request."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": min(max_tokens, request.max_tokens or max_tokens),
        "messages": messages(request.messages),
    }
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [anthropic_tool(spec) for spec in request.tools]
    if stream:
        body["stream"] = True
    return body


def messages(history: Sequence[Message]) -> list[dict[str, Any]]:
    """The conversation as alternating user and assistant turns of content blocks."""
    turns: list[dict[str, Any]] = []
    for message in history:
        role = "assistant" if isinstance(message, AssistantMessage) else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _blocks(message: Message) -> list[dict[str, Any]]:
    match message:
        case UserMessage(images=images):
            text = message.sent_text()
            pictures = [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": i.media_type, "data": i.base64()},
                }
                for i in images
            ]
            return pictures + ([{"type": "text", "text": text}] if text else [])
        case AssistantMessage(text=text, calls=calls):
            blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
            return blocks + [_tool_use(call) for call in calls]
        case ToolMessage(call_id=call_id, content=content, is_error=is_error):
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": content,
            }
            if is_error:
                block["is_error"] = True
            return [block]


def _tool_use(call: ToolCall) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, Mapping) else {"raw": call.arguments}
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": dict(arguments)}


def read_completion(body: Mapping[str, Any]) -> Completion:
    """A completion from a Messages reply, refusing error objects and junk."""
    content = body.get("content")
    if body.get("type") == "error" or not isinstance(content, list):
        raise bad_reply(error_detail(body) or "no content")
    text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
    calls = tuple(
        ToolCall(str(b.get("id") or ""), str(b.get("name") or ""), b.get("input") or {})
        for b in content
        if b.get("type") == "tool_use"
    )
    return Completion(text, calls, _usage(body.get("usage")), _finish(body.get("stop_reason")))


@dataclass
class StreamAssembly:
    """Puts a streamed Messages reply back together from its raw events."""

    blocks: dict[int, dict[str, Any]] = field(default_factory=dict)
    stop_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    def add(self, event: Mapping[str, Any]) -> str:
        """Take one event; return the text it added."""
        kind = event.get("type")
        if kind == "message_start":
            usage = (event.get("message") or {}).get("usage") or {}
            self.input_tokens = int(usage.get("input_tokens") or 0)
            self.cached_tokens = int(usage.get("cache_read_input_tokens") or 0)
        elif kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            block.setdefault("text", "")
            block["json"] = ""
            self.blocks[int(event.get("index", len(self.blocks)))] = block
        elif kind == "content_block_delta":
            return self._delta(int(event.get("index", 0)), event.get("delta") or {})
        elif kind == "message_delta":
            self.stop_reason = (event.get("delta") or {}).get("stop_reason") or self.stop_reason
            usage = event.get("usage") or {}
            self.output_tokens = int(usage.get("output_tokens") or self.output_tokens)
        return ""

    def _delta(self, index: int, delta: Mapping[str, Any]) -> str:
        block = self.blocks.setdefault(index, {"type": "text", "text": "", "json": ""})
        if delta.get("type") == "input_json_delta":
            block["json"] += delta.get("partial_json") or ""
            return ""
        text = str(delta.get("text") or "")
        block["text"] += text
        return text

    def completion(self) -> Completion:
        """The whole reply."""
        content = [_finished(block) for _, block in sorted(self.blocks.items())]
        usage = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cached_tokens,
        }
        return read_completion(
            {"content": content, "usage": usage, "stop_reason": self.stop_reason}
        )


def _finished(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") != "tool_use":
        return block
    raw = block.get("json") or ""
    try:
        arguments: Any = json.loads(raw) if raw.strip() else block.get("input") or {}
    except json.JSONDecodeError:
        arguments = raw  # broken: validation tells the model
    return {**block, "input": arguments}


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, Mapping):
        return Usage()
    cached = int(raw.get("cache_read_input_tokens") or 0)  # beside input_tokens, not in them
    return Usage(
        int(raw.get("input_tokens") or 0) + cached, int(raw.get("output_tokens") or 0), cached
    )


def _finish(raw: Any) -> FinishReason:
    return _FINISH.get(str(raw), "stop" if raw is None else "other")
