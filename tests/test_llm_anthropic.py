"""The Anthropic adapter against a fake Messages API on 127.0.0.1 that the real SDK talks to."""

from __future__ import annotations

import pytest
from fakehttp import fake_server
from llm_fixtures import anthropic_reply, anthropic_stream, call, check_snapshot, error_reply
from test_llm_openai import CONVERSATION, REMIND, TIME, Sleeps

from assistant.errors import LLMAuthError, LLMUnavailableError, ModelNotFoundError
from assistant.llm.anthropic import AnthropicModel
from assistant.llm.failures import Endpoint, RetryPolicy
from assistant.llm.types import Completion, Request, TextDelta, ToolCall, UserMessage


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


@pytest.fixture
async def sleeps():
    return Sleeps()


@pytest.fixture
async def model(server, sleeps):
    endpoint = Endpoint("anthropic", "claude-test", server.url, "TEST_ANTHROPIC_KEY")
    adapter = AnthropicModel(
        endpoint, "sk-ant-test", timeout=5, max_tokens=512, retry=RetryPolicy(sleep=sleeps)
    )
    yield adapter
    await adapter.close()


async def test_request_payload_uses_blocks_and_matches_the_snapshot(server, model):
    server.script(anthropic_reply("It is 14:00."))
    await model.complete(
        Request("You are a test.", [*CONVERSATION, UserMessage("thanks")], (REMIND, TIME))
    )
    (sent,) = server.requests
    assert sent.path == "/v1/messages"
    assert "sk-ant-test" in (
        sent.headers.get("x-api-key", "") + sent.headers.get("authorization", "")
    )
    body = sent.json()
    # tool results and the next user words share one user turn; the error is flagged
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][2]["content"][1]["is_error"] is True
    check_snapshot("anthropic_native", body)


async def test_tool_use_blocks_become_calls(server, model):
    server.script(
        anthropic_reply(
            "Sure.", (call("toolu_1", "add_reminder", {"when": "in 5m", "message": "tea"}),)
        )
    )
    completion = await model.complete(Request("s", [UserMessage("x")], (REMIND,)))
    assert completion.text == "Sure."
    assert completion.calls == (
        ToolCall("toolu_1", "add_reminder", {"when": "in 5m", "message": "tea"}),
    )
    assert completion.finish_reason == "tool_calls"
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (21, 9)


async def test_a_streamed_answer_with_a_streamed_tool_use_is_assembled(server, model):
    server.script(
        anthropic_stream(
            ("Let me ", "check."), (call("toolu_2", "get_current_time", {"tz": "UTC"}),)
        )
    )
    events = [e async for e in model.stream(Request("s", [UserMessage("x")], (TIME,)))]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Let me ", "check."]
    final = events[-1]
    assert isinstance(final, Completion) and final.text == "Let me check."
    assert final.calls == (ToolCall("toolu_2", "get_current_time", {"tz": "UTC"}),)
    assert final.usage.output_tokens == 9


async def test_streamed_request_payload_matches_the_snapshot(server, model):
    server.script(anthropic_stream(("ok",)))
    [e async for e in model.stream(Request("Be brief.", [UserMessage("hi")], (TIME,)))]
    check_snapshot("anthropic_stream", server.requests[0].json())


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, LLMAuthError), (404, ModelNotFoundError)],
)
async def test_provider_errors_are_mapped(server, model, status, error):
    server.script(error_reply(status, "nope"))
    with pytest.raises(error):
        await model.complete(Request("s", [UserMessage("x")]))


async def test_overload_is_retried_then_reported(server, model, sleeps):
    server.script(*(error_reply(529, "Overloaded") for _ in range(3)))
    with pytest.raises(LLMUnavailableError):
        await model.complete(Request("s", [UserMessage("x")]))
    assert sleeps.waits == [1.0, 2.0]


def anthropic_setup(tmp_path, url: str, **llm):
    from assistant import app
    from assistant.config import parse_config

    raw = {
        "assistant": {"data_dir": str(tmp_path), "timezone": "Asia/Tokyo", "local_first": False},
        "telegram": {"allowed_user_ids": [4242]},
        "llm": {"provider": "anthropic", "base_url": url, "api_key_env": "TEST_ANT_KEY", **llm},
    }
    return app.Setup(parse_config(raw), "test", tmp_path)


@pytest.mark.parametrize("stream", [True, False])
async def test_the_installed_sdk_runs_a_tool_and_sends_its_result_back(
    tmp_path, monkeypatch, clock, stream
):
    """A fresh install's SDK (no ``temperature`` parameter) with the config's default 0.2."""
    import io

    from assistant.app import serve

    monkeypatch.setenv("TEST_ANT_KEY", "sk-ant-test")
    first = (call("toolu_1", "get_current_time", {}),)
    async with fake_server() as server:
        if stream:
            server.script(
                anthropic_stream((), first),
                anthropic_stream(
                    (
                        "It is ",
                        "late.",
                    )
                ),
            )
        else:
            server.script(anthropic_reply("", first), anthropic_reply("It is late."))
        out = io.StringIO()
        answer = await serve.ask(
            anthropic_setup(tmp_path, server.url, stream=stream), "what time is it?", clock, out
        )
    assert answer.ending == "answered"
    assert out.getvalue().endswith("It is late.\n")
    asked, answered = (r.json() for r in server.requests)
    assert asked["temperature"] == 0.2 and asked.get("stream", False) is stream
    (result,) = [b for b in answered["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert result["tool_use_id"] == "toolu_1" and "18:26" in str(result["content"])


async def test_a_plain_answer_with_a_temperature(server):
    endpoint = Endpoint("anthropic", "claude-test", server.url, "TEST_ANTHROPIC_KEY")
    adapter = AnthropicModel(endpoint, "k", timeout=5, temperature=0.7)
    server.script(anthropic_reply("Hi."))
    try:
        completion = await adapter.complete(Request("s", [UserMessage("x")]))
    finally:
        await adapter.close()
    assert completion.text == "Hi." and server.requests[0].json()["temperature"] == 0.7
