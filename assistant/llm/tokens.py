"""Counting tokens approximately, behind an interface a real tokenizer can fill."""

from __future__ import annotations

import json
from typing import Protocol

from assistant.llm.types import AssistantMessage, Message, ToolMessage, UserMessage

MESSAGE_OVERHEAD = 4  # role and separators, as chat formats add them


class TokenCounter(Protocol):
    """Tells how many tokens a text is for some model."""

    def count(self, text: str) -> int:
        """Tokens in ``text``."""
        ...


class ApproxCounter:
    """About four ASCII characters per token, one per other character (CJK, Cyrillic, emoji).

    Errs on the high side for non-Latin scripts, so a budget is not overrun.
    """

    def count(self, text: str) -> int:
        """Tokens in ``text``, approximately."""
        ascii_chars = len(text.encode("ascii", "ignore"))
        return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def message_tokens(message: Message, counter: TokenCounter) -> int:
    """Tokens a message costs in a request."""
    match message:
        case UserMessage(text=text):
            body = text
        case AssistantMessage(text=text, calls=calls):
            body = text + "".join(c.name + json.dumps(c.arguments, default=str) for c in calls)
        case ToolMessage(name=name, content=content):
            body = name + content
    return counter.count(body) + MESSAGE_OVERHEAD
