"""Tool calls for models without native tool calling: the catalogue in the prompt, calls read
from the reply, and results sent back as a message that names each tool and its outcome."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace

from assistant.llm.catalogue import text_catalogue
from assistant.llm.markup import MARKERS
from assistant.llm.textcalls import extract_tool_calls
from assistant.llm.types import (
    AssistantMessage,
    Completion,
    Message,
    Request,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

# Where a streamed reply may start writing a call or reasoning: from there on it is held back.
CALL_MARKERS = ("```", "<tool_call>", "{", "[{", *MARKERS)
_LONGEST = max(map(len, CALL_MARKERS))
_PREFIXES = frozenset(m[:k] for m in CALL_MARKERS for k in range(1, len(m)))
# A line that starts, or may be starting, a Python-call list: "[name(" or a beginning of it.
_PYTHON_LINE = re.compile(r"(?:\A|\n)[^\S\n]*+\[[^\S\n]*+(?:[A-Za-z_][\w.]*+(?:\(|\Z)|\Z)")

INSTRUCTIONS = """\
You can use tools. To call one, write a JSON block in this form and stop:
```json
{{"tool": "{name}", "args": {{{args}}}}}
```
Write one block per call; for two calls, write two blocks. The results come back in the next \
message, one per tool, marked ok or error; then continue. When you need no tool, answer in \
plain text with no JSON. Never invent a tool's result.

Tools:
{catalogue}"""


def text_request(request: Request) -> Request:
    """The same request for a model that reads tools from its prompt."""
    system = request.system
    if request.tools:
        system = f"{system}\n\n{instructions(request.tools)}".strip()
    return Request(system, text_messages(request.messages), (), payer=request.payer)


def instructions(specs: Sequence[ToolSpec]) -> str:
    """How to call tools in text, with an example built from the first tool."""
    first = specs[0]
    required = first.parameters.get("required", ())
    args = ", ".join(f'"{name}": "..."' for name in required)
    return INSTRUCTIONS.format(name=first.name, args=args, catalogue=text_catalogue(specs))


def text_messages(history: Sequence[Message]) -> list[Message]:
    """The conversation with calls written as JSON blocks and results as user messages."""
    out: list[Message] = []
    results: list[ToolMessage] = []
    for message in history:
        if isinstance(message, ToolMessage):
            results.append(message)
            continue
        if results:
            out.append(UserMessage(results_text(results)))
            results = []
        out.append(_written(message))
    if results:
        out.append(UserMessage(results_text(results)))
    return out


def _written(message: Message) -> Message:
    if isinstance(message, AssistantMessage) and message.calls:
        blocks = [call_block(c.name, c.arguments) for c in message.calls]
        return AssistantMessage("\n\n".join([message.text, *blocks]).strip())
    return message


def call_block(name: str, arguments: object) -> str:
    """A call as the seed writes it: one fenced JSON block."""
    body = json.dumps({"tool": name, "args": arguments}, ensure_ascii=False)
    return f"```json\n{body}\n```"


def results_text(results: Sequence[ToolMessage]) -> str:
    """Tool results as one message that names each tool and its outcome."""
    parts = [f"[{r.name}] {'error' if r.is_error else 'ok'}:\n{r.content}" for r in results]
    return "Tool results:\n\n" + "\n\n".join(parts)


def read_reply(completion: Completion) -> Completion:
    """A text-mode reply with the calls it wrote taken out of its text."""
    found = extract_tool_calls(completion.text)
    finish = "tool_calls" if found.calls else completion.finish_reason
    return replace(
        completion, text=found.text, calls=found.calls, broken=found.broken, finish_reason=finish
    )


class HeldBack:
    """A streamed reply shown up to where a call or reasoning may start; the rest waits for
    the whole reply, which is read as calls and prose. Each delta is searched once."""

    def __init__(self) -> None:
        self._received = ""
        self._shown = 0
        self._cut: int | None = None

    def feed(self, delta: str) -> str:
        """The newly visible text after this delta (empty while it is held back)."""
        start = max(0, len(self._received) - _LONGEST)
        self._received += delta
        if self._cut is None:
            self._cut = _first_marker(self._received, start)
        end = self._cut if self._cut is not None else _safe_end(self._received)
        if end <= self._shown:
            return ""
        shown, self._shown = self._shown, end
        return self._received[shown:end]


def _first_marker(text: str, start: int) -> int | None:
    found = [i for m in CALL_MARKERS if (i := text.find(m, start)) >= 0]
    line = _PYTHON_LINE.search(text, max(0, text.rfind("\n", 0, start)))
    if line and line.group().endswith("("):
        found.append(_line_start(line))
    return min(found, default=None)


def _line_start(line: re.Match[str]) -> int:
    return line.start() + line.group().startswith("\n")


def _safe_end(text: str) -> int:
    """The end of what may be shown: not a tail that may grow into a marker."""
    line = _PYTHON_LINE.search(text, max(0, text.rfind("\n")))
    if line is not None:
        return _line_start(line)
    for size in range(min(_LONGEST, len(text)), 0, -1):
        if text[-size:] in _PREFIXES:
            return len(text) - size
    return len(text)
