"""How a turn's model replies are kept and worded: calls as history keeps them, corrections
for invalid calls, and the closing texts (awaiting approval, invalid calls, out of steps)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from assistant.llm.types import AssistantMessage, Completion, Message, ToolCall, ToolMessage
from assistant.tools import ToolResult, ValidCall
from assistant.tools.validation import out_of_bounds


def recordable(calls: Sequence[ToolCall]) -> tuple[ToolCall, ...]:
    """The calls as history keeps them: arguments too deep or big to send again are replaced
    by why (the call itself is refused with that reason when it is checked)."""
    return tuple(
        replace(call, arguments={"refused": problem})
        if (problem := out_of_bounds(call.arguments))
        else call
        for call in calls
    )


def corrections(
    checked: Sequence[ValidCall | ToolResult], completion: Completion
) -> list[ToolResult]:
    """Errors for the invalid calls; the valid ones are held back so that nothing half runs."""
    held = "not run: another call in this reply was invalid; send all the calls again, fixed"
    results = [
        c
        if isinstance(c, ToolResult)
        else ToolResult(c.call.id, c.call.name, held, True, "invalid")
        for c in checked
    ]
    results += [
        ToolResult(
            f"unreadable-{n}", "unreadable_call", f"{b.reason}: {b.snippet}", True, "invalid"
        )
        for n, b in enumerate(completion.broken)
    ]
    return results


def awaiting_text(awaiting: Sequence[str], completion: Completion) -> str:
    names = ", ".join(dict.fromkeys(awaiting))
    ask = f"I need your approval to run {names}: answer the request above. It runs only then."
    return f"{completion.text.strip()}\n\n{ask}" if completion.text.strip() else ask


def invalid_text(results: Sequence[ToolResult]) -> str:
    problems = [r for r in results if r.outcome in ("invalid", "unknown_tool")]
    detail = "; ".join(f"{r.name}: {r.content.splitlines()[0]}" for r in problems[-3:])
    done = [r.name for r in results if r.outcome == "ok" and not r.is_error]
    before = (
        f"I did: {', '.join(done)}. Then the model kept making invalid tool calls, so nothing "
        "more was run."
        if done
        else "I could not do that: the model kept making invalid tool calls, so nothing was run."
    )
    return before + (f" ({detail})" if detail else "") + " Try saying it differently."


def max_steps_text(steps: int, results: Sequence[ToolResult]) -> str:
    done = [f"- {r.name}: {'failed' if r.is_error else 'done'}" for r in results]
    lines = "\n".join(done) if done else "- nothing yet"
    return (
        f"I stopped after {steps} steps without a final answer. What I did:\n{lines}\n"
        "Ask me to continue if you want more."
    )


def tool_message(result: ToolResult) -> ToolMessage:
    return ToolMessage(result.call_id, result.name, result.content, result.is_error)


def close_open_calls(new: list[Message], reason: str) -> None:
    """Give every call of the last reply a result, so the stored history stays well formed."""
    last = next((m for m in reversed(new) if isinstance(m, AssistantMessage)), None)
    if last is None:
        return
    answered = {m.call_id for m in new if isinstance(m, ToolMessage)}
    new.extend(ToolMessage(c.id, c.name, reason, True) for c in last.calls if c.id not in answered)
