"""Counting tokens approximately, behind an interface a real tokenizer can fill."""

from __future__ import annotations

import json
from typing import Protocol

from assistant.llm.types import AssistantMessage, Message, ToolMessage, UserMessage

MESSAGE_OVERHEAD = 4  # role and separators, as chat formats add them
# A call on the wire: its id, type and the arguments as an escaped JSON string (measured: a
# call of 45 characters of name and arguments takes 118 in OpenAI's request format).
CALL_OVERHEAD = 20
IMAGE_TOKENS = 1_000  # what a picture costs a vision model, about (OpenAI: 85 to 1,105)


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


class OverCounter:
    """A stated overestimate, for holding a call's worst case against a budget: three ASCII
    characters a token (tokenizers average about four in English, fewer in code and JSON) and
    one a token for every other character."""

    def count(self, text: str) -> int:
        """Tokens in ``text``, at most."""
        ascii_chars = len(text.encode("ascii", "ignore"))
        return (ascii_chars + 2) // 3 + (len(text) - ascii_chars)


def message_tokens(message: Message, counter: TokenCounter) -> int:
    """Tokens a message costs in a request."""
    match message:
        case UserMessage(images=images):
            body = message.sent_text()
            if images:
                return counter.count(body) + MESSAGE_OVERHEAD + IMAGE_TOKENS * len(images)
        case AssistantMessage(text=text, calls=calls):
            body = text + "".join(c.name + json.dumps(c.arguments, default=str) for c in calls)
            if calls:
                return counter.count(body) + MESSAGE_OVERHEAD + CALL_OVERHEAD * len(calls)
        case ToolMessage(name=name, content=content):
            body = name + content
    return counter.count(body) + MESSAGE_OVERHEAD


class Calibration:
    """How many of the model's tokens one estimated token is, learned from the usage it reports.

    Our estimate undercounts some tokenizers (a small model's by a tenth or more), so budgets
    are scaled by what the server counted. Kept within bounds, so one odd report cannot starve
    or flood the window.
    """

    LOW, HIGH = 1.0, 3.0  # never more room than the estimate gives: it errs high already
    MIN_ESTIMATE = 256  # smaller requests are mostly template overhead: no signal

    def __init__(self) -> None:
        self.scale = 1.0
        self._seen = False

    def observe(self, estimated: int, reported: int) -> None:
        """Learn from one request: our estimate of its prompt and the server's count."""
        if estimated < self.MIN_ESTIMATE or reported <= 0:
            return
        ratio = min(max(reported / estimated, self.LOW), self.HIGH)
        self.scale = (self.scale + ratio) / 2 if self._seen else ratio
        self._seen = True
