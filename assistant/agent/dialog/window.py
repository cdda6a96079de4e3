"""Fitting a request to the model's context window: the prompt and the catalogue first, then
room for the reply, then the user's message (cut with a note if it cannot fit), then history."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from assistant.agent.dialog.history import Costed, fit
from assistant.llm.catalogue import openai_tool
from assistant.llm.tokens import MESSAGE_OVERHEAD, ApproxCounter, TokenCounter, message_tokens
from assistant.llm.types import Message, ToolMessage, ToolSpec

MARGIN = 64  # chat templates add tokens of their own
TOO_LONG = (
    "This conversation is too long for this model's context window, even with less history. "
    "/clear starts afresh (your notes and tasks stay); a shorter message may also work."
)
CUT_NOTE = "\n\n[The message was cut here: the rest does not fit this model's context window.]"
RESULT_CUT = "\n[cut: the rest does not fit the context window]"
MIN_RESULT = 32  # tokens of a cut result kept at least, so the model sees what it was


@dataclass(frozen=True)
class Window:
    """The model's window in tokens (None when unknown) and what a reply may take of it."""

    tokens: int | None
    reply: int
    counter: TokenCounter = field(default_factory=ApproxCounter)
    fixed: int = 0  # the system prompt and the catalogue of this turn
    scale: float = 1.0  # the model's tokens per estimated token, learned from reported usage

    @property
    def known(self) -> bool:
        """Whether requests are fitted to a known window."""
        return self.tokens is not None

    def left(self, prompt: str, specs: Sequence[ToolSpec]) -> Window:
        """The window with this turn's prompt and catalogue counted in."""
        catalogue = json.dumps([openai_tool(spec) for spec in specs])  # the longest form sent
        fixed = self.counter.count(prompt) + self.counter.count(catalogue) + MARGIN
        return replace(self, fixed=fixed)

    def scaled(self, scale: float) -> Window:
        """The window with estimates scaled to the model's real tokens."""
        return replace(self, scale=scale)

    def _room(self) -> int:
        """Estimated tokens left for the message and history."""
        assert self.tokens is not None
        return int((self.tokens - self.reply) / self.scale) - self.fixed

    def message(self, text: str) -> str:
        """The user's message, cut with a note to the model when it alone cannot fit."""
        if self.tokens is None:
            return text
        room = self._room()
        if self.counter.count(text) <= room:
            return text
        return self._cut(text, room, CUT_NOTE)

    def room(self) -> int | None:
        """Estimated tokens left for the messages, or None when the window is unknown."""
        return None if self.tokens is None else self._room()

    def squeeze(self, new: Sequence[Message], room: int) -> list[Message]:
        """A turn's messages within ``room``: the largest tool results cut first, with a note
        (a listing of many tasks must not push the turn past the window); when that is not
        enough, results are cut down to the note alone."""
        out = list(new)
        for floor in (MIN_RESULT, 0):
            costs = [message_tokens(m, self.counter) for m in out]
            over = sum(costs) - room
            for index in sorted(range(len(out)), key=lambda i: -costs[i]):
                if over <= 0:
                    return out
                message = out[index]
                if isinstance(message, ToolMessage) and costs[index] > floor + MESSAGE_OVERHEAD:
                    keep = max(costs[index] - over - MESSAGE_OVERHEAD, floor)
                    out[index] = replace(
                        message, content=self._cut(message.content, keep, RESULT_CUT)
                    )
                    over -= costs[index] - message_tokens(out[index], self.counter)
        return out

    def fit_turn(
        self, room: int, history: list[Message], recent: Sequence[Costed], new: Sequence[Message]
    ) -> tuple[list[Message], list[Message]]:
        """The history and a turn's messages within ``room``: the turn's tool results cut
        first, then older history left out (``recent`` is the history with its costs)."""
        squeezed = self.squeeze(new, room)
        left = room - sum(message_tokens(m, self.counter) for m in squeezed)
        if sum(message_tokens(m, self.counter) for m in history) > left:
            history = fit(recent, max(left, 0), strict=True)
        return history, squeezed

    def _cut(self, text: str, tokens: int, note: str) -> str:
        keep = max(tokens - self.counter.count(note), 0)
        cut = text[:keep]  # a character is at least a quarter of a token: safe
        while cut and self.counter.count(cut) > keep:
            cut = cut[: len(cut) * 3 // 4]
        return cut + note

    def history(self, configured: int, message: str) -> int:
        """Tokens left for history: the configured budget, or less when the window is small."""
        if self.tokens is None:
            return configured
        left = self._room() - self.counter.count(message)
        return max(0, min(configured, left))
