"""Secrets never reach a log line: messages, arguments, httpx request logs, tracebacks."""

from __future__ import annotations

import io
import logging

import httpx
import pytest

from assistant.logs import configure_logging
from assistant.redaction import is_sensitive_key, redact_text, redact_value

BOT_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
OPENAI_KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"


@pytest.fixture
def log_output():
    stream = io.StringIO()
    handler = configure_logging("DEBUG", stream)
    yield stream
    logging.getLogger().removeHandler(handler)


@pytest.mark.parametrize(
    "text",
    [
        f"POST https://api.telegram.org/bot{BOT_TOKEN}/getMe",
        f"token is {BOT_TOKEN}",
        f"key={OPENAI_KEY}",
        "Authorization: Bearer abc.def.ghi",
        "headers={'authorization': 'Bearer abc.def.ghi'}",
        "GET /weather?api_key=zzz123&city=Berlin",
        "https://x.org/cb?token=qqq&access_token=www",
    ],
)
def test_redact_text_masks_every_kind(text: str) -> None:
    out = redact_text(text)
    for secret in (BOT_TOKEN.split(":")[1], OPENAI_KEY, "abc.def.ghi", "zzz123", "qqq", "www"):
        assert secret not in out
    assert "[REDACTED]" in out


def test_redact_keeps_ordinary_text() -> None:
    text = "meeting at 10:30, room 12345:B, see https://example.org/page?id=7"
    assert redact_text(text) == text


def test_sensitive_keys() -> None:
    for name in (
        "password",
        "api_key",
        "X-Api-Key",
        "Authorization",
        "access_token",
        "secret",
        "key",
    ):
        assert is_sensitive_key(name), name
    for name in ("keyword", "monkey", "tokens_used", "query", "message"):
        assert not is_sensitive_key(name), name
    assert redact_value({"headers": {"Authorization": "x"}, "q": [f"k {OPENAI_KEY}"]}) == {
        "headers": {"Authorization": "[REDACTED]"},
        "q": ["k [REDACTED]"],
    }


async def test_httpx_request_log_is_redacted(log_output) -> None:
    logging.getLogger("httpx").setLevel(logging.DEBUG)
    try:
        transport = httpx.MockTransport(lambda request: httpx.Response(200, json={"ok": True}))
        async with httpx.AsyncClient(transport=transport) as client:
            await client.get(f"https://api.telegram.org/bot{BOT_TOKEN}/getMe")
    finally:
        logging.getLogger("httpx").setLevel(logging.WARNING)
    text = log_output.getvalue()
    assert "getMe" in text and "HTTP Request" in text
    assert BOT_TOKEN not in text and "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" not in text


def test_traceback_and_arguments_are_redacted(log_output) -> None:
    log = logging.getLogger("assistant.test")
    try:
        raise RuntimeError(f"request to https://api.telegram.org/bot{BOT_TOKEN}/sendMessage failed")
    except RuntimeError:
        log.exception("send failed with key %s", OPENAI_KEY)
    text = log_output.getvalue()
    assert "Traceback" in text and "RuntimeError" in text
    assert BOT_TOKEN not in text and OPENAI_KEY not in text


def test_httpx_is_quiet_by_default(log_output) -> None:
    assert logging.getLogger("httpx").level == logging.WARNING
