"""Requests fitted to a small model's window; a context refusal retried once, then said
plainly; and a chat that never locks itself."""

from __future__ import annotations

import json

import pytest
from agent_fixtures import ME, build_rig
from fakehttp import Reply, fake_server
from llm_fixtures import chat_reply, error_reply

from assistant.agent import AgentSettings
from assistant.errors import ContextTooLongError
from assistant.llm.contextsize import DEFAULT, ContextSizer, discover
from assistant.llm.failures import Endpoint, status_error
from assistant.llm.tokens import MESSAGE_OVERHEAD, ApproxCounter, Calibration
from assistant.llm.types import UserMessage


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


ENDPOINT = Endpoint("openai", "small", "http://127.0.0.1:1/v1", "K")
WINDOW = AgentSettings(stream=False, context_tokens=1500, reply_tokens=256)


@pytest.mark.parametrize(
    "wording",
    [
        "This model's maximum context length is 4096 tokens. However, your messages resulted "
        "in 5000 tokens. (context_length_exceeded)",
        "the request exceeds the available context size, try increasing it",
        "input length exceeds maximum context length",
        "This model's maximum context length is 2048 tokens. However, you requested 3000 tokens",
        "prompt is too long: 9000 tokens > 8192 maximum",
        "Trying to keep the first 5000 tokens when context the overflows. n_ctx: 4096",
    ],
)
def test_every_servers_context_refusal_is_told_apart(wording):
    assert isinstance(status_error(ENDPOINT, 400, wording, {}, True), ContextTooLongError)


def sent_tokens(request) -> int:
    """What the request costs by the estimate the agent fits with: each message's text and
    calls with a per-message overhead, and the tools as sent."""
    body, counter = request.json(), ApproxCounter()
    messages = sum(
        counter.count(str(m.get("content") or "") + json.dumps(m.get("tool_calls") or ""))
        + MESSAGE_OVERHEAD
        for m in body["messages"]
    )
    return messages + counter.count(json.dumps(body.get("tools", [])))


async def test_a_long_history_is_cut_to_the_window(server, conn, clock):
    rig = await build_rig(server, conn, clock, settings=WINDOW)
    for n in range(40):
        server.script(chat_reply(f"answer {n} " + "words " * 40))
        await rig.agent.reply(ME, f"question {n} " + "more " * 40)
    server.script(chat_reply("fine"))
    await rig.agent.reply(ME, "and now?")
    last = server.requests[-1]
    assert sent_tokens(last) <= 1500 - 256
    assert last.json()["messages"][-1]["content"].endswith("and now?")
    await rig.inner.close()


async def test_a_message_longer_than_the_window_is_cut_with_a_note_and_does_not_lock(
    server, conn, clock
):
    rig = await build_rig(server, conn, clock, settings=WINDOW)
    server.script(chat_reply("got the start"), chat_reply("hello again"))
    answer = await rig.agent.reply(ME, "x" * 40_000)
    sent = server.requests[0].json()["messages"][-1]["content"]
    assert answer.text == "got the start" and "does not fit this model's context window" in sent
    assert sent_tokens(server.requests[0]) <= 1500 - 256
    assert (await rig.agent.reply(ME, "hi")).text == "hello again"  # the chat is not locked
    assert sent_tokens(server.requests[1]) <= 1500 - 256
    await rig.inner.close()


async def test_a_context_refusal_is_retried_with_less_history_then_said_plainly(
    server, conn, clock
):
    rig = await build_rig(server, conn, clock)
    for n in range(6):
        server.script(chat_reply(f"answer {n}"))
        await rig.agent.reply(ME, f"question {n}")
    refusal = error_reply(400, "This model's maximum context length is 4096 tokens")
    server.script(refusal, chat_reply("shorter works"))
    assert (await rig.agent.reply(ME, "again")).text == "shorter works"
    first, second = (r.json()["messages"] for r in server.requests[-2:])
    assert len(second) < len(first)
    server.script(refusal, refusal)
    answer = await rig.agent.reply(ME, "and again")
    assert answer.ending == "error" and "/clear starts afresh" in answer.text
    server.script(chat_reply("still here"))
    assert (await rig.agent.reply(ME, "hello")).text == "still here"  # never locked
    history = await rig.conversations.history(ME.chat_id)
    assert UserMessage("hello") in history
    await rig.inner.close()


WINDOW_REPLIES = {
    "llama.cpp": ("/props", {"default_generation_settings": {"n_ctx": 2048}}, 2048, "llama.cpp"),
    "vLLM": (
        "/v1/models",
        {"data": [{"id": "other", "max_model_len": 99999}, {"id": "small", "max_model_len": 8000}]},
        8000,
        "max_model_len",
    ),
    "Ollama num_ctx": (
        "/api/show",
        {
            "parameters": "stop <|im_end|>\nnum_ctx 16384",
            "model_info": {"qwen2.context_length": 32768},
        },
        16384,
        "num_ctx",
    ),
    "Ollama default": (
        "/api/show",
        {"parameters": "", "model_info": {"llama.context_length": 131072}},
        4096,
        "num_ctx not set",
    ),
    "LM Studio": (
        "/api/v0/models",
        {"data": [{"id": "small", "loaded_context_length": 6000, "max_context_length": 32000}]},
        6000,
        "LM Studio",
    ),
}


@pytest.mark.parametrize("kind", list(WINDOW_REPLIES))
async def test_the_window_is_asked_of_the_server(server, kind):
    path, body, tokens, source = WINDOW_REPLIES[kind]
    server.windows[path] = Reply(json=body)
    size = await discover(f"{server.url}/v1", "small", "K")
    assert size.tokens == tokens and source in size.source
    assert server.requests == []  # no chat request was spent on it


@pytest.mark.parametrize(
    "body",
    [{"n_ctx": -1}, {"n_ctx": "lots"}, {"n_ctx": 10**12}, ["not", "an", "object"], {"n_ctx": None}],
)
async def test_a_nonsense_answer_is_not_believed(server, body):
    server.windows["/props"] = Reply(json=body)
    size = await discover(f"{server.url}/v1", "small", "")
    assert size.tokens == DEFAULT and "did not say" in size.source


async def test_a_hosted_api_is_known_without_asking():
    size = await discover("https://api.openai.com/v1", "gpt-4o-mini", "K")
    assert size.tokens == 128_000


async def test_the_configured_window_wins_and_nothing_is_asked(server):
    sizer = ContextSizer(3000, f"{server.url}/v1", "small", "")
    assert (await sizer.size()).source == "llm.context_tokens"
    assert server.window_questions == []


async def test_requests_fit_the_window_the_server_names(server, conn, clock):
    server.windows["/props"] = Reply(json={"n_ctx": 1500})
    sizer = ContextSizer(0, f"{server.url}/v1", "small", "")
    settings = AgentSettings(stream=False, reply_tokens=256)
    rig = await build_rig(server, conn, clock, settings=settings, sizer=sizer)
    for n in range(30):
        server.script(chat_reply(f"answer {n} " + "words " * 40))
        await rig.agent.reply(ME, f"question {n} " + "more " * 40)
    assert sent_tokens(server.requests[-1]) <= 1500 - 256
    assert len(server.window_questions) == 1  # asked once, not per turn
    await rig.inner.close()


def test_calibration_scales_up_within_bounds():
    calibration = Calibration()
    calibration.observe(100, 900)  # too small a request to learn from
    assert calibration.scale == 1.0
    calibration.observe(1000, 1200)
    assert calibration.scale == pytest.approx(1.2)
    calibration.observe(1000, 50_000)  # one odd report is bounded
    assert calibration.scale == pytest.approx((1.2 + Calibration.HIGH) / 2)
    calibration.observe(1000, 10)  # never more room than the estimate gives
    assert calibration.scale >= 1.0


async def test_reported_usage_shrinks_the_budget_for_a_tokenizer_we_undercount(server, conn, clock):
    rig = await build_rig(server, conn, clock, settings=WINDOW)
    for n in range(30):
        reply = chat_reply(f"answer {n} " + "words " * 40)
        sent = 0 if not server.requests else sent_tokens(server.requests[-1])
        reply.json["usage"]["prompt_tokens"] = 2 * max(sent, 300)  # the server counts double
        server.script(reply)
        await rig.agent.reply(ME, f"question {n} " + "more " * 40)
    assert sent_tokens(server.requests[-1]) <= (1500 - 256) / 1.8
    await rig.inner.close()


async def test_a_turns_own_tool_results_are_cut_to_fit_the_window(server, conn, clock):
    # Measured with a 135M model: a shared chat whose turns each listed many tasks went past
    # the window at the second step, every turn, however much history was left out.
    settings = AgentSettings(stream=False, context_tokens=1400, reply_tokens=256)
    rig = await build_rig(server, conn, clock, settings=settings)
    calls = tuple((f"c{n}", "fetch_page", {"url": f"https://ex.org/{n}"}) for n in range(8))
    server.script(chat_reply(None, calls), chat_reply("done"), chat_reply("still here"))
    answer = await rig.agent.reply(ME, "read them all")
    assert answer.text.startswith("done")
    second = server.requests[1]
    assert sent_tokens(second) <= 1400 - 256
    assert "[cut: the rest does not fit the context window]" in json.dumps(second.json())
    assert (await rig.agent.reply(ME, "hi")).text == "still here"
    assert sent_tokens(server.requests[2]) <= 1400 - 256
    await rig.inner.close()
