"""Secrets never reach a log line: messages, arguments, httpx request logs, tracebacks."""

from __future__ import annotations

import io
import json
import logging
import os
from datetime import date
from types import MappingProxyType
from urllib.parse import quote

import httpx
import pytest

from assistant.config import parse_config
from assistant.llm.types import ToolCall
from assistant.logs import configure_logging
from assistant.memory.audit import AuditLog
from assistant.redaction import (
    forget_secrets,
    is_sensitive_key,
    redact_text,
    redact_value,
    redacted_json,
    remember_secrets,
)
from assistant.tools import Executor, Registry, ToolContext
from assistant.tools.tool import tool

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


def test_redacted_json_masks_keys_and_secrets_and_keeps_the_text() -> None:
    value = MappingProxyType(
        {"Api-Key": "k", "text": f"café {OPENAI_KEY}", "when": date(2026, 1, 2), "n": (1, None)}
    )
    assert json.loads(redacted_json(value)) == {
        "Api-Key": "[REDACTED]",
        "text": "café [REDACTED]",
        "when": "2026-01-02",  # what JSON cannot hold is written as text
        "n": [1, None],
    }
    assert "café" in redacted_json(value)  # not escaped to \\u00e9


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


SHAPELESS = {
    "GROQ": "gsk_7Hq2mWbV9xLk3ZrT5yPd",
    "GOOGLE": "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "ANTHROPIC": "sk-ant-api03-Zx9y8W7v6U5t",
    "WEBHOOK": "hook-secret-of-the-owner",
}


@pytest.fixture
def remembered(monkeypatch):
    """The config names these variables; their values are masked wherever they appear."""
    for name, value in SHAPELESS.items():
        monkeypatch.setenv(f"TEST_{name}", value)
    config = parse_config(
        {
            "llm": {"api_key_env": "TEST_GROQ"},
            "images": {"api_key_env": "TEST_GOOGLE"},
            "telegram": {"webhook_secret_env": "TEST_WEBHOOK"},
            "net": {"secrets": {"HOME": {"env": "TEST_ANTHROPIC", "hosts": ["home.lan"]}}},
        }
    )
    remember_secrets(config.secret_values(os.environ))
    yield
    forget_secrets()


def test_configured_secrets_are_masked_by_value_whatever_their_shape(remembered, log_output):
    logging.getLogger("telegram.ext").debug(
        "calling setWebhook with %s", {"secret_token": SHAPELESS["WEBHOOK"], "url": "https://x"}
    )
    for value in SHAPELESS.values():
        logging.getLogger("assistant.test").warning("the key is %s (%s)", value, quote(value))
    text = log_output.getvalue()
    assert text.count("[REDACTED]") >= 5
    assert not any(value in text for value in SHAPELESS.values())


async def test_a_configured_secret_never_reaches_the_model_or_the_audit(remembered, conn, clock):
    @tool
    async def echo(text: str) -> str:
        """Say it back.

        Args:
            text: what to say
        """
        return f"you said {text}"

    audit = AuditLog(conn, clock)
    executor = Executor(Registry([echo]), audit)
    context = ToolContext(1, 1, "r", "UTC", clock)
    (result,) = await executor.run([ToolCall("c", "echo", {"text": SHAPELESS["GROQ"]})], context)
    assert SHAPELESS["GROQ"] not in result.content and "[REDACTED]" in result.content
    (row,) = await audit.recent(1)
    assert SHAPELESS["GROQ"] not in json.dumps(row.arguments) + row.result
