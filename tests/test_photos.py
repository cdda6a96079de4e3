"""Photos: shown to a model that sees (OpenAI image parts, Anthropic image blocks), never kept
in the history; a model that refuses pictures is remembered, and the user told plainly."""

from __future__ import annotations

import base64

import pytest
from fakehttp import Reply, fake_server
from llm_fixtures import chat_reply
from test_telegram import ADA, eventually, served

from assistant.errors import VisionUnsupportedError
from assistant.llm.anthropic import _blocks
from assistant.llm.failures import BLIND, Endpoint, status_error
from assistant.llm.openai import _message
from assistant.llm.tokens import IMAGE_TOKENS, MESSAGE_OVERHEAD, ApproxCounter, message_tokens
from assistant.llm.types import Image, UserMessage

SMALL, LARGE = b"\xff\xd8small-jpeg", b"\xff\xd8large-jpeg" * 10
PICTURE = Image("image/jpeg", b"\xff\xd8abc")


def test_a_picture_is_an_image_part_for_openai_and_an_image_block_for_anthropic():
    message = UserMessage("what is it?", (PICTURE,))
    encoded = base64.b64encode(PICTURE.data).decode()
    assert _message(message) == {"role": "user", "content": [
        {"type": "text", "text": "what is it?"},
        {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{encoded}"}},
    ]}  # fmt: skip
    assert _blocks(message) == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/jpeg", "data": encoded},
        },
        {"type": "text", "text": "what is it?"},
    ]
    assert _message(UserMessage("plain")) == {"role": "user", "content": "plain"}


def test_the_token_budget_counts_pictures():
    counter = ApproxCounter()
    plain = message_tokens(UserMessage("look"), counter)
    assert (
        message_tokens(UserMessage("look", (PICTURE, PICTURE)), counter) == plain + 2 * IMAGE_TOKENS
    )
    assert plain == counter.count("look") + MESSAGE_OVERHEAD


@pytest.mark.parametrize(
    "detail",
    [
        "Invalid content type. image_url is only supported by certain models.",
        "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
        "registry.ollama.ai/library/llama3 does not support images",
        "Qwen/Qwen2.5-7B is not a multimodal model",
    ],
)
def test_each_wording_of_a_refused_picture_is_recognised(detail):
    where = Endpoint("openai", "m", "http://127.0.0.1:1/v1", "KEY")
    error = status_error(where, 400, detail, {}, offered_tools=False)
    assert isinstance(error, VisionUnsupportedError) and str(error) == BLIND


async def test_a_photo_reaches_the_model_and_only_its_words_stay_in_the_history(
    tmp_path, clock, monkeypatch
):
    async with served(tmp_path, clock, monkeypatch) as running:
        telegram, model = running.telegram, running.model
        model.script(chat_reply("A cat on a sofa."), chat_reply("It was grey."))
        telegram.photo(ADA, [SMALL, LARGE], caption="what is this?")
        await eventually(lambda: "A cat on a sofa." in telegram.texts())
        content = model.requests[0].json()["messages"][-1]["content"]
        assert content[0] == {"type": "text", "text": "[photo] what is this?"}
        assert content[1]["image_url"]["url"] == (
            "data:image/jpeg;base64," + base64.b64encode(LARGE).decode()
        )
        telegram.message(ADA, "what colour was it?")
        await eventually(lambda: "It was grey." in telegram.texts())
        history = model.requests[1].json()["messages"]
        assert {"role": "user", "content": "[photo] what is this?"} in history
        assert "image_url" not in str(history)


async def test_a_model_that_refuses_a_picture_is_remembered_and_the_user_told(
    tmp_path, clock, monkeypatch
):
    async with served(tmp_path, clock, monkeypatch) as running:
        telegram, model = running.telegram, running.model
        refusal = {"error": {"message": "image input is not supported - hint: mmproj"}}
        model.script(Reply(400, refusal), chat_reply("Hello!"))
        telegram.photo(ADA, [SMALL])
        await eventually(lambda: any(BLIND in t for t in telegram.texts()))
        telegram.photo(ADA, [SMALL], caption="and this one?")
        await eventually(lambda: sum(BLIND in t for t in telegram.texts()) == 2)
        assert len(model.requests) == 1  # the second picture was not sent
        telegram.message(ADA, "hi")
        await eventually(lambda: "Hello!" in telegram.texts())


async def test_vision_off_never_sends_a_picture(tmp_path, clock, monkeypatch):
    async with served(tmp_path, clock, monkeypatch, vision="off") as running:
        running.telegram.photo(ADA, [SMALL], caption="look")
        await eventually(lambda: any("llm.vision is off" in t for t in running.telegram.texts()))
        assert running.model.requests == []


async def test_a_generated_picture_arrives_as_a_photo_upload(tmp_path, clock, monkeypatch):
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
    async with fake_server() as painter:
        painter.default = lambda request: Reply(
            json={"data": [{"b64_json": base64.b64encode(png).decode()}]}
        )
        images = {"base_url": f"{painter.url}/v1", "api_key_env": "TEST_LLM_KEY"}
        async with served(tmp_path, clock, monkeypatch, images=images) as running:
            telegram, model = running.telegram, running.model
            model.script(
                chat_reply(None, (("c1", "generate_image", {"prompt": "a grey cat"}),)),
                chat_reply("Here is your cat."),
            )
            telegram.message(ADA, "draw me a grey cat")
            await eventually(lambda: len(telegram.sent("sendPhoto")) == 1)
            (photo,) = telegram.sent("sendPhoto")
            assert photo["photo"] == png and photo["caption"] == "a grey cat"
            assert int(photo["chat_id"]) == ADA
