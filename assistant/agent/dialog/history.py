"""The conversation cut to a token budget, never splitting a tool call from its result."""

from __future__ import annotations

from collections.abc import Sequence

from assistant.llm.tokens import TokenCounter, message_tokens
from assistant.llm.types import AssistantMessage, Message, ToolMessage

Costed = tuple[Message, int]


def costed(messages: Sequence[Message], counter: TokenCounter) -> list[Costed]:
    """Messages with their token costs, for callers that do not have them stored."""
    return [(m, message_tokens(m, counter)) for m in messages]


def fit(items: Sequence[Costed], budget: int, *, strict: bool = False) -> list[Message]:
    """The newest whole exchanges that fit in ``budget`` tokens, oldest first.

    An assistant message with calls and the results that follow it form one unit: both go in
    or neither does. The newest unit goes in even over the budget, unless ``strict`` (the
    budget is what the model's window has left: an oversized old message must not lock the
    chat).
    """
    kept: list[list[Costed]] = []
    spent = 0
    for unit in reversed(_units(items)):
        cost = sum(tokens for _, tokens in unit)
        if (kept or strict) and spent + cost > budget:
            break
        kept.append(unit)
        spent += cost
    return [message for unit in reversed(kept) for message, _ in unit]


def _units(items: Sequence[Costed]) -> list[list[Costed]]:
    units: list[list[Costed]] = []
    for item in items:
        message = item[0]
        if isinstance(message, ToolMessage):
            if units and _answers(units[-1], message):
                units[-1].append(item)
            # a result whose call is gone (cut off in storage) is dropped
            continue
        units.append([item])
    return [u for u in units if _complete(u)]


def _answers(unit: list[Costed], result: ToolMessage) -> bool:
    head = unit[0][0]
    return isinstance(head, AssistantMessage) and any(c.id == result.call_id for c in head.calls)


def _complete(unit: list[Costed]) -> bool:
    """A unit with calls must hold a result for each, or a model will refuse it."""
    head = unit[0][0]
    if not isinstance(head, AssistantMessage) or not head.calls:
        return True
    answered = {m.call_id for m, _ in unit[1:] if isinstance(m, ToolMessage)}
    return all(c.id in answered for c in head.calls)
