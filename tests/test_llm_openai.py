"""The OpenAI-compatible adapter against a fake server on 127.0.0.1 that the real SDK talks to."""

from __future__ import annotations

import httpx
import openai
import pytest
from fakehttp import Reply, fake_server
from llm_fixtures import call, chat_reply, chat_stream, check_snapshot, error_reply

from assistant.errors import (
    LLMAuthError,
    LLMBadResponseError,
    LLMUnavailableError,
    ModelNotFoundError,
    ModelSlowError,
    RateLimitedError,
    ToolsUnsupportedError,
)
from assistant.llm.failures import Endpoint, RetryPolicy, unreachable
from assistant.llm.openai import OpenAIModel
from assistant.llm.types import (
    AssistantMessage,
    Completion,
    Request,
    TextDelta,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

TIME = ToolSpec(
    "get_current_time",
    "The current date and time in the user's timezone.",
    {"type": "object", "properties": {}},
    "get_current_time()",
)
REMIND = ToolSpec(
    "add_reminder",
    "Remind the user of something at a time.",
    {
        "type": "object",
        "properties": {"when": {"type": "string"}, "message": {"type": "string"}},
        "required": ["when", "message"],
    },
    "add_reminder(when: str, message: str)",
    {"when": "schedule text as the user said it", "message": "what to say"},
)
CONVERSATION = [
    UserMessage("remind me in 5m to stretch, and what time is it?"),
    AssistantMessage(
        "On it.",
        (
            ToolCall("call_1", "add_reminder", {"when": "in 5m", "message": "stretch"}),
            ToolCall("call_2", "get_current_time", {}),
        ),
    ),
    ToolMessage("call_1", "add_reminder", "Reminder abc123 at 14:05 Europe/Berlin"),
    ToolMessage("call_2", "get_current_time", "clock unavailable", is_error=True),
]


class Sleeps:
    """Records the waits of the retry policy instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
async def model(server, sleeps):
    endpoint = Endpoint("openai", "test-model", f"{server.url}/v1", "TEST_OPENAI_KEY")
    adapter = OpenAIModel(endpoint, "sk-test-key", timeout=5, retry=RetryPolicy(sleep=sleeps))
    yield adapter
    await adapter.close()


async def test_native_request_payload_matches_the_snapshot(server, model):
    server.script(chat_reply("It is 14:00."))
    await model.complete(Request("You are a test.", CONVERSATION, (REMIND, TIME)))
    (sent,) = server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test-key"
    check_snapshot("openai_native", sent.json())


async def test_streamed_request_payload_matches_the_snapshot(server, model):
    server.script(chat_stream(("ok",)))
    [event async for event in model.stream(Request("Be brief.", [UserMessage("hi")], (TIME,)))]
    check_snapshot("openai_stream", server.requests[0].json())


async def test_two_calls_in_one_reply_come_back_in_order_with_usage(server, model):
    server.script(
        chat_reply(
            None,
            (
                call("c1", "add_reminder", {"when": "in 5m", "message": "tea"}),
                call("c2", "get_current_time", {}),
            ),
        )
    )
    completion = await model.complete(Request("s", [UserMessage("x")], (REMIND, TIME)))
    assert [(c.id, c.name, c.arguments) for c in completion.calls] == [
        ("c1", "add_reminder", {"when": "in 5m", "message": "tea"}),
        ("c2", "get_current_time", {}),
    ]
    assert completion.finish_reason == "tool_calls"
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (11, 7)


async def test_broken_argument_json_is_kept_raw_for_validation_to_report(server, model):
    server.script(chat_reply(None, (call("c1", "add_reminder", '{"when": "in 5m",'),)))
    completion = await model.complete(Request("s", [UserMessage("x")], (REMIND,)))
    assert completion.calls[0].arguments == '{"when": "in 5m",'


async def test_a_streamed_answer_with_a_streamed_tool_call_is_assembled(server, model):
    server.script(
        chat_stream(
            ("Let me ", "check."), (call("c9", "add_reminder", {"when": "9am", "message": "go"}),)
        )
    )
    events = [e async for e in model.stream(Request("s", [UserMessage("x")], (REMIND,)))]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Let me ", "check."]
    final = events[-1]
    assert isinstance(final, Completion)
    assert final.text == "Let me check."
    assert final.calls == (ToolCall("c9", "add_reminder", {"when": "9am", "message": "go"}),)


@pytest.mark.parametrize(
    ("reply", "error", "words"),
    [
        (
            error_reply(401, "Incorrect API key provided: sk-test***"),
            LLMAuthError,
            "$TEST_OPENAI_KEY",
        ),
        (error_reply(403, "forbidden"), LLMAuthError, "rejected the key"),
        (
            error_reply(404, "The model `test-model` does not exist"),
            ModelNotFoundError,
            "llm.model",
        ),
        (
            Reply(json={"error": {"message": "upstream exploded", "code": 502}}),
            LLMBadResponseError,
            "instead of a reply",
        ),
        (error_reply(400, "bad things"), Exception, "refused the request"),
    ],
)
async def test_provider_errors_become_messages_a_user_understands(
    server, model, reply, error, words
):
    server.script(reply)
    with pytest.raises(error) as caught:
        await model.complete(Request("s", [UserMessage("x")]))
    assert words in str(caught.value)
    assert "sk-test" not in str(caught.value) and "exploded" not in str(caught.value)


async def test_a_rate_limit_is_retried_after_the_time_the_server_asks(server, model, sleeps):
    server.script(error_reply(429, "slow down", {"retry-after": "2"}), chat_reply("fine"))
    completion = await model.complete(Request("s", [UserMessage("x")]))
    assert completion.text == "fine" and sleeps.waits == [2.0]


async def test_a_retry_after_beyond_the_bound_is_not_waited_for(server, model, sleeps):
    server.script(error_reply(429, "slow down", {"retry-after": "3600"}))
    with pytest.raises(RateLimitedError, match="rate limiting"):
        await model.complete(Request("s", [UserMessage("x")]))
    assert sleeps.waits == [] and len(server.requests) == 1


async def test_server_errors_are_retried_with_backoff_a_bounded_number_of_times(
    server, model, sleeps
):
    server.script(*(error_reply(503, "overloaded") for _ in range(3)))
    with pytest.raises(LLMUnavailableError, match="HTTP 503"):
        await model.complete(Request("s", [UserMessage("x")]))
    assert sleeps.waits == [1.0, 2.0] and len(server.requests) == 3


async def test_an_unreachable_server_is_a_clear_error(sleeps):
    endpoint = Endpoint("openai", "m", "http://127.0.0.1:9/v1", "K")
    model = OpenAIModel(endpoint, "k", timeout=2, retry=RetryPolicy(retries=0, sleep=sleeps))
    with pytest.raises(
        LLMUnavailableError,
        match=r"cannot be reached \(refused\): check the address and the network",
    ) as err:
        await model.complete(Request("s", [UserMessage("x")]))
    assert not isinstance(err.value, ModelSlowError)
    await model.close()


def _wrapped(cause: Exception) -> openai.APIError:
    """An SDK error raised from a transport error, as the SDK raises it."""
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    sdk = openai.APITimeoutError(request=request)
    try:
        try:
            raise cause
        except Exception as exc:
            raise sdk from exc
    except openai.APIError as raised:
        return raised


def test_a_slow_model_is_told_apart_from_a_down_one():
    endpoint = Endpoint("openai", "m", "http://127.0.0.1:9/v1", "K")
    slow = unreachable(endpoint, _wrapped(httpx.ReadTimeout("read")))
    down = unreachable(endpoint, _wrapped(httpx.ConnectTimeout("connect")))
    assert isinstance(slow, ModelSlowError) and "is slow" in str(slow)
    assert not isinstance(down, ModelSlowError) and "no connection in time" in str(down)
    assert RetryPolicy().delay(1, slow) is None  # a busy model is not asked twice
    assert RetryPolicy().delay(1, down) == 1.0


async def test_an_endpoint_refusing_tools_is_recognised(server, model):
    server.script(error_reply(400, "registry.ollama.ai/library/gemma:2b does not support tools"))
    with pytest.raises(ToolsUnsupportedError):
        await model.complete(Request("s", [UserMessage("x")], (TIME,)))


async def test_the_configured_temperature_is_sent(server, sleeps):
    endpoint = Endpoint("openai", "test-model", f"{server.url}/v1", "K")
    adapter = OpenAIModel(
        endpoint, "k", timeout=5, retry=RetryPolicy(sleep=sleeps), temperature=0.2
    )
    server.script(chat_reply("ok"))
    await adapter.complete(Request("sys", [UserMessage("hi")]))
    await adapter.close()
    assert server.requests[0].json()["temperature"] == 0.2
