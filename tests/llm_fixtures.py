"""Replies of a fake OpenAI-compatible server and a fake Anthropic server, and snapshots."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from fakehttp import Reply

SNAPSHOTS = Path(__file__).parent / "snapshots"


def call(call_id: str, name: str, arguments: Any) -> tuple[str, str, Any]:
    return (call_id, name, arguments)


def chat_reply(
    text: str | None = None, calls: tuple[tuple[str, str, Any], ...] = (), finish: str = ""
) -> Reply:
    """A ``/chat/completions`` reply with text and/or native tool calls."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {
                "id": i,
                "type": "function",
                "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)},
            }
            for i, n, a in calls
        ]
    return Reply(
        json={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "test-model",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": finish or ("tool_calls" if calls else "stop"),
                }
            ],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }
    )


def chat_stream(parts: tuple[str, ...] = (), calls: tuple[tuple[str, str, Any], ...] = ()) -> Reply:
    """A streamed ``/chat/completions`` reply: text deltas, then tool-call deltas in pieces."""
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events: list[Any] = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": p}) for p in parts]
    for index, (i, n, a) in enumerate(calls):
        encoded = a if isinstance(a, str) else json.dumps(a)
        half = len(encoded) // 2
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": i,
                            "type": "function",
                            "function": {"name": n, "arguments": encoded[:half]},
                        }
                    ]
                }
            )
        )
        events.append(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": encoded[half:]}}]})
        )
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    events.append("data: [DONE]\n\n")
    return Reply(events=events)


def error_reply(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, {"error": {"message": message, "type": "error"}}, headers or {})


def anthropic_reply(
    text: str = "", calls: tuple[tuple[str, str, Any], ...] = (), stop: str = ""
) -> Reply:
    """A Messages reply with text and tool_use blocks."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    return Reply(
        json={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": content,
            "stop_reason": stop or ("tool_use" if calls else "end_turn"),
            "stop_sequence": None,
            "usage": {"input_tokens": 21, "output_tokens": 9},
        }
    )


def anthropic_stream(
    parts: tuple[str, ...] = (), calls: tuple[tuple[str, str, Any], ...] = ()
) -> Reply:
    """A streamed Messages reply: raw events as Anthropic sends them."""
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 21, "output_tokens": 1},
    }
    events: list[Any] = [_sse("message_start", {"type": "message_start", "message": message})]
    index = 0
    if parts:
        events.append(
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        events += [
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": p},
                },
            )
            for p in parts
        ]
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for offset, (i, n, a) in enumerate(calls):
        encoded = json.dumps(a)
        at = index + offset
        events.append(
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": at,
                    "content_block": {"type": "tool_use", "id": i, "name": n, "input": {}},
                },
            )
        )
        for piece in (encoded[: len(encoded) // 2], encoded[len(encoded) // 2 :]):
            events.append(
                _sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": at,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
            )
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": at}))
    stop = "tool_use" if calls else "end_turn"
    events.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
        )
    )
    events.append(_sse("message_stop", {"type": "message_stop"}))
    return Reply(events=events)


def _sse(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


def check_snapshot(name: str, payload: Any) -> None:
    """Compare a request body with its stored snapshot (UPDATE_SNAPSHOTS=1 rewrites it)."""
    path = SNAPSHOTS / f"{name}.json"
    text = json.dumps(payload, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}; run the tests with UPDATE_SNAPSHOTS=1"
    assert json.loads(path.read_text(encoding="utf-8")) == payload
