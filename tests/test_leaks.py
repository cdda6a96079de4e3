"""Which hosts a turn holding outside content may reach unasked."""

from __future__ import annotations

import pytest

from assistant.agent.guards.leaks import unnamed_host
from assistant.agent.guards.untrusted import frame
from assistant.llm.types import ToolMessage, UserMessage

PAGE = frame("search_web", '[{"url": "https://docs.example/guide?x=1", "title": "Guide"}]')
MESSAGES = [
    UserMessage("look at Example.org and https://status.example.net/now, thanks!"),
    ToolMessage("c1", "search_web", PAGE),
]


@pytest.mark.parametrize(
    ("url", "blocked"),
    [
        ("https://example.org/anything?q=1", None),
        ("https://www.example.org/x", None),
        ("https://status.example.net/other", None),
        ("https://docs.example/guide?x=1", None),  # given whole by the outside content
        ("https://docs.example/guide?x=my-note", "docs.example"),
        ("https://evil.example/c?q=note", "evil.example"),
        ("https://example.org.evil.example/", "example.org.evil.example"),
        ("https://home.lan/api", None),  # the config names it
        ("not a url", None),
    ],
)
def test_only_named_configured_or_given_destinations_pass(url, blocked):
    assert unnamed_host(url, MESSAGES, {"home.lan"}) == blocked


def test_reading_is_linear_on_hostile_text():
    hostile = [
        UserMessage("a." * 200_000 + "x" * 200_000),
        ToolMessage("c", "t", frame("t", "h" * 10**6)),
    ]
    assert unnamed_host("https://evil.example/", hostile) == "evil.example"
