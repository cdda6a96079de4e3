"""generate_image: offered only with an endpoint, arguments checked, the picture attached."""

from __future__ import annotations

import base64
import json

import httpx

from assistant import app
from assistant.config import parse_config
from assistant.llm.types import ToolCall
from assistant.memory.audit import AuditLog
from assistant.net.images import ImageClient
from assistant.tools import Executor, ToolContext
from assistant.tools.services import Services

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 100


def endpoint(seen: list, reply: httpx.Response | None = None) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return reply or httpx.Response(
            200, json={"data": [{"b64_json": base64.b64encode(PNG).decode()}]}
        )

    return httpx.MockTransport(handle)


def test_the_tool_is_offered_only_with_an_endpoint():
    assert "generate_image" not in app.build_registry(parse_config({})).names()
    configured = parse_config({"images": {"base_url": "http://127.0.0.1:7860/v1"}})
    assert "generate_image" in app.build_registry(configured).names()


async def run(conn, clock, client, **arguments):
    config = parse_config({"images": {"base_url": "http://x/v1"}})
    executor = Executor(app.build_registry(config), AuditLog(conn, clock))
    context = ToolContext(1, 1, "r", "UTC", clock, Services(images=client))
    (result,) = await executor.run([ToolCall("c", "generate_image", arguments)], context)
    return result, context


async def test_a_picture_is_made_and_attached_for_the_channel(conn, clock):
    seen: list[httpx.Request] = []
    client = ImageClient(
        "http://images.local/v1", "k", "flux", sampling=True, transport=endpoint(seen)
    )
    result, context = await run(
        conn, clock, client, prompt="a red bicycle", width=512, height=768, steps=8
    )
    assert not result.is_error and "512x768" in result.content
    (attachment,) = context.attachments
    assert attachment.data == PNG and attachment.caption == "a red bicycle"
    body = json.loads(seen[0].content)
    assert seen[0].url.path == "/v1/images/generations" and body["size"] == "512x768"
    assert (
        body["steps"] == 8
        and body["guidance_scale"] == 3.5
        and body["response_format"] == "b64_json"
    )
    await client.close()


async def test_bad_sizes_are_refused_before_any_request(conn, clock):
    seen: list[httpx.Request] = []
    client = ImageClient("http://images.local/v1", "k", "m", transport=endpoint(seen))
    result, _ = await run(conn, clock, client, prompt="x", width=1000)
    assert result.is_error and "multiple of 64" in result.content and seen == []
    await client.close()


async def test_an_endpoint_failure_is_a_clear_error(conn, clock):
    client = ImageClient(
        "http://images.local/v1", "k", "m", transport=endpoint([], httpx.Response(500, text="boom"))
    )
    result, context = await run(conn, clock, client, prompt="x")
    assert result.is_error and "refused (HTTP 500)" in result.content and context.attachments == []
    await client.close()
