"""The OpenAI-compatible adapter: OpenAI itself, Ollama, vLLM, llama.cpp's server, LM Studio.

Requests are plain JSON built here (so a snapshot test sees exactly what goes on the wire);
replies are read from the SDK's objects as plain dicts, defensively, because compatible
servers differ in what they leave out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assistant.errors import LLMBadResponseError, LLMError
from assistant.llm.catalogue import openai_tool
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

if TYPE_CHECKING:
    import openai

PATH = "/chat/completions"
_FINISH: Mapping[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}


class OpenAIModel(RetryingAdapter):
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        endpoint: Endpoint,
        api_key: str,
        *,
        timeout: float = 60.0,
        max_tokens: int | None = None,
        retry: RetryPolicy | None = None,
        temperature: float | None = None,
    ) -> None:
        super().__init__(endpoint, timeout, retry, temperature)
        self._max_tokens = max_tokens
        self._key = api_key
        self._sdk: openai.AsyncOpenAI | None = None

    @property
    def _client(self) -> openai.AsyncOpenAI:
        """The SDK's client, made on the first request: importing the SDK takes longer than
        the rest of the start-up together, and the bot polls Telegram without it."""
        if self._sdk is None:
            import openai

            # Retries are ours (bounded, Retry-After honoured); the SDK's would double them.
            self._sdk = openai.AsyncOpenAI(
                api_key=self._key or "none",  # local servers take any key; the SDK wants one
                base_url=self._endpoint.base_url,
                timeout=self._timeout,
                max_retries=0,
            )
        return self._sdk

    async def close(self) -> None:
        """Close the HTTP connections."""
        if self._sdk is not None:
            await self._sdk.close()

    async def _complete(self, request: Request) -> Completion:
        body = self._tuned(
            payload(self._endpoint.model, request, stream=False, max_tokens=self._max_tokens)
        )
        client = self._client
        import openai
        from openai.types.chat import ChatCompletion

        try:
            async with asyncio.timeout(self._timeout + 5):
                # The body is ours, already plain JSON: posting it as is skips the SDK's
                # typed transform of every request (about 5 ms with a full tool catalogue).
                reply = await client.post(PATH, cast_to=ChatCompletion, body=body)
        except (openai.APIError, TimeoutError) as exc:
            raise self._failure(exc, bool(request.tools)) from None
        return read_completion(reply.to_dict())

    async def _stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        body = self._tuned(
            payload(self._endpoint.model, request, stream=True, max_tokens=self._max_tokens)
        )
        assembly = StreamAssembly()
        client = self._client
        import openai
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        try:
            async with asyncio.timeout(self._timeout + 5):
                chunks = await client.post(
                    PATH,
                    cast_to=ChatCompletion,
                    body=body,
                    stream=True,
                    stream_cls=openai.AsyncStream[ChatCompletionChunk],
                )
            async with chunks:
                async for chunk in chunks:
                    if text := assembly.add(chunk.to_dict()):
                        yield TextDelta(text)
        except (openai.APIError, TimeoutError) as exc:
            raise self._failure(exc, bool(request.tools)) from None
        yield assembly.completion()

    def _failure(self, exc: BaseException, offered_tools: bool) -> LLMError:
        import openai

        if isinstance(exc, openai.APIStatusError):
            headers = dict(exc.response.headers)
            return self._status_failure(
                exc.status_code, exc.body, exc.message, headers, offered_tools
            )
        if isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError):
            # An error object inside a 200 (or mid-stream): not a reply we can use.
            return bad_reply(exc.message)
        return unreachable(self._endpoint, exc)


def payload(
    model: str, request: Request, *, stream: bool, max_tokens: int | None = None
) -> dict[str, Any]:
    """The JSON body of a ``/chat/completions`` request."""
    body: dict[str, Any] = {"model": model, "messages": messages(request.system, request.messages)}
    if request.tools:
        body["tools"] = [openai_tool(spec) for spec in request.tools]
    if request.schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": dict(request.schema)},
        }
    limits = [n for n in (max_tokens, request.max_tokens) if n]
    if limits:
        body["max_tokens"] = min(limits)
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}  # the usage that calibrates budgets
    return body


def messages(system: str, history: Any) -> list[dict[str, Any]]:
    """The conversation in OpenAI's message format, the system prompt first."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    out.extend(_message(m) for m in history)
    return out


def _message(message: Message) -> dict[str, Any]:
    match message:
        case UserMessage(images=()):
            return {"role": "user", "content": message.sent_text()}
        case UserMessage(images=images):
            text = message.sent_text()
            pictures = [
                {
                    "type": "image_url",
                    "image_url": {"url": f"data:{i.media_type};base64,{i.base64()}"},
                }
                for i in images
            ]
            return {"role": "user", "content": [{"type": "text", "text": text}, *pictures]}
        case AssistantMessage(text=text, calls=calls):
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = [_call_entry(c) for c in calls]
            return entry
        case ToolMessage(call_id=call_id, content=content, is_error=is_error):
            text = f"ERROR: {content}" if is_error else content
            return {"role": "tool", "tool_call_id": call_id, "content": text}


def _call_entry(call: ToolCall) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def read_completion(body: Mapping[str, Any]) -> Completion:
    """A completion from a ``/chat/completions`` reply, refusing error objects and junk."""
    choices = body.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], Mapping):
        raise bad_reply(error_detail(body) or "no choices")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise LLMBadResponseError("The model's reply had no message in it; see the log.")
    calls = tuple(
        _read_call(raw, n) for n, raw in enumerate(message.get("tool_calls") or ()) if raw
    )
    return Completion(
        text=_text(message.get("content")),
        calls=calls,
        usage=_usage(body.get("usage")),
        finish_reason=_finish(choices[0].get("finish_reason"), calls),
    )


@dataclass
class StreamAssembly:
    """Puts a streamed reply back together: text, tool calls by index, finish and usage."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish: str | None = None
    usage: Usage = field(default_factory=Usage)

    def add(self, chunk: Mapping[str, Any]) -> str:
        """Take one chunk; return the text it added."""
        if chunk.get("usage"):
            self.usage = _usage(chunk["usage"])
        choices = chunk.get("choices") or []
        if not choices:
            return ""
        choice = choices[0]
        self.finish = choice.get("finish_reason") or self.finish
        delta = choice.get("delta") or {}
        for part in delta.get("tool_calls") or ():
            self._add_call(part)
        text = _text(delta.get("content"))
        self.text.append(text)
        return text

    def _add_call(self, part: Mapping[str, Any]) -> None:
        index = part.get("index", len(self.calls))
        entry = self.calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
        entry["id"] = part.get("id") or entry["id"]
        function = part.get("function") or {}
        entry["name"] += function.get("name") or ""
        entry["arguments"] += function.get("arguments") or ""

    def completion(self) -> Completion:
        """The whole reply."""
        calls = tuple(
            _read_call({"id": c["id"], "function": c}, n)
            for n, (_, c) in enumerate(sorted(self.calls.items()))
        )
        return Completion(
            text="".join(self.text),
            calls=calls,
            usage=self.usage,
            finish_reason=_finish(self.finish, calls),
        )


def _read_call(raw: Mapping[str, Any], position: int) -> ToolCall:
    function = raw.get("function") or {}
    arguments: Any = function.get("arguments")
    if isinstance(arguments, str):
        # Broken JSON is left raw: validation tells the model what is wrong with it.
        with contextlib.suppress(json.JSONDecodeError):
            arguments = json.loads(arguments) if arguments.strip() else {}
    call_id = raw.get("id") or f"call_{position}_{uuid.uuid4().hex[:8]}"
    return ToolCall(str(call_id), str(function.get("name") or ""), arguments)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers send content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return ""


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, Mapping):
        return Usage()
    details = raw.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, Mapping) else 0
    return Usage(
        int(raw.get("prompt_tokens") or 0), int(raw.get("completion_tokens") or 0), int(cached or 0)
    )


def _finish(raw: Any, calls: tuple[ToolCall, ...]) -> FinishReason:
    if calls:
        return "tool_calls"
    return _FINISH.get(str(raw), "stop" if raw is None else "other")
