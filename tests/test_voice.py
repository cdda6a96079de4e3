"""Voice notes and audio files: transcribed by an OpenAI-compatible endpoint, shown back in a
quote, then taken exactly as typed text; a clear line whenever they cannot be."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fakehttp import Reply, fake_server
from llm_fixtures import chat_reply
from test_telegram import ADA, eventually, served

AUDIO = b"OggS\x00fake voice bytes\x00" * 20


@asynccontextmanager
async def hearing(tmp_path, clock, monkeypatch, words="what is on my shopping list?", **speech):
    async with fake_server() as whisper:
        whisper.default = lambda request: Reply(json={"text": words})
        settings = {"base_url": f"{whisper.url}/v1", "model": "whisper-small", **speech}
        async with served(tmp_path, clock, monkeypatch, speech=settings) as running:
            yield running.telegram, running.model, whisper


async def test_a_voice_note_is_quoted_back_and_answered_as_if_typed(tmp_path, clock, monkeypatch):
    async with hearing(tmp_path, clock, monkeypatch) as (telegram, model, whisper):
        model.script(chat_reply("Your list is empty."))
        telegram.voice(ADA, AUDIO)
        await eventually(lambda: "Your list is empty." in telegram.texts())
        quote = next(p for p in telegram.sent() if "🎙" in str(p["text"]))
        assert quote["text"] == "🎙 what is on my shopping list?"
        assert quote["entities"] == [
            {"type": "blockquote", "offset": 0, "length": 31}
        ]  # 🎙 is 2 units
        upload = whisper.requests[0]
        assert upload.path == "/v1/audio/transcriptions"
        assert AUDIO in upload.body and b"whisper-small" in upload.body
        messages = model.requests[0].json()["messages"]
        assert messages[-1] == {"role": "user", "content": "what is on my shopping list?"}
        assert [c.method for c in telegram.calls].count("download") == 1


async def test_a_spoken_command_runs_like_a_typed_one(tmp_path, clock, monkeypatch):
    spoken = "/remind in 10m stretch"
    async with hearing(tmp_path, clock, monkeypatch, words=spoken) as (telegram, model, _):
        telegram.voice(ADA, AUDIO, kind="audio")
        await eventually(lambda: any("stretch" in t and "🎙" not in t for t in telegram.texts()))
        assert model.requests == []  # a command: no model involved


async def test_a_spoken_everyday_request_is_understood_without_the_model(
    tmp_path, clock, monkeypatch
):
    spoken = "напомни через 10 минут размяться"
    async with hearing(tmp_path, clock, monkeypatch, words=spoken) as (telegram, model, _):
        telegram.voice(ADA, AUDIO)
        await eventually(lambda: any(t.startswith("✅ Напоминание") for t in telegram.texts()))
        made = next(t for t in telegram.texts() if t.startswith("✅ Напоминание"))
        assert "размяться — один раз" in made and model.requests == []


async def test_voice_notes_unconfigured_get_one_line_saying_how(tmp_path, clock, monkeypatch):
    async with served(tmp_path, clock, monkeypatch) as running:
        running.telegram.voice(ADA, AUDIO)
        await eventually(lambda: any("[speech] base_url" in t for t in running.telegram.texts()))
        assert "download" not in [c.method for c in running.telegram.calls]
        assert running.model.requests == []


async def test_a_voice_note_over_the_caps_is_refused_before_download(tmp_path, clock, monkeypatch):
    async with hearing(tmp_path, clock, monkeypatch, max_seconds=60, max_bytes=100) as (
        telegram,
        model,
        whisper,
    ):
        telegram.voice(ADA, b"x" * 50, seconds=600)
        await eventually(lambda: any("10 min long" in t for t in telegram.texts()))
        telegram.voice(ADA, AUDIO, seconds=5)
        await eventually(lambda: any("MB" in t for t in telegram.texts()))
        assert "download" not in [c.method for c in telegram.calls]
        assert whisper.requests == [] and model.requests == []


async def test_a_speech_endpoint_failure_is_one_clear_line(tmp_path, clock, monkeypatch):
    async with hearing(tmp_path, clock, monkeypatch) as (telegram, model, whisper):
        whisper.default = lambda request: Reply(500, {"error": "boom"})
        telegram.voice(ADA, AUDIO)
        expected = "I could not transcribe that voice note: the speech endpoint refused (HTTP 500)."
        await eventually(lambda: expected in telegram.texts())
        whisper.default = lambda request: Reply(json={"text": "   "})
        telegram.voice(ADA, AUDIO)
        await eventually(lambda: any("no words were heard" in t for t in telegram.texts()))
        assert model.requests == []
