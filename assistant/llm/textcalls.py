"""Reading tool calls that a model wrote as text, for models without native tool calling.

Accepted: fenced ```json blocks, bare JSON objects in prose, ``<tool_call>`` tags, arrays of
calls, several calls in one reply; the shapes ``{"tool", "args"}``, ``{"name", "arguments"}``
and ``{"type": "function", "function": {...}}``. Nothing is repaired: a block that tries to be
a call and fails is reported as broken so that the model can be asked to correct it.

Linear in the reply: segments are found with regular expressions free of backtracking, JSON
is decoded by the C decoder, and every scan resumes where the previous one stopped.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from assistant.llm.jsonscan import (
    CALL_KEY,
    CALL_KEYS,
    Next,
    Unreadable,
    call_opening,
    find,
    raw_decode,
)
from assistant.llm.markup import read_markup
from assistant.llm.types import BrokenCall, Extraction, ToolCall

_FENCE, _TAG_OPEN, _TAG_CLOSE = "```", "<tool_call>", "</tool_call>"
_FENCE_OPEN = re.compile(r"```([A-Za-z0-9_+-]*+)[^\S\n]*+\n?")
_JSON_LANGS = frozenset({"", "json", "jsonc", "json5", "tool", "tool_call", "tool_code"})
# Text is scanned for call keys, which start with a quote, so junk of brackets is skipped in C.
_NEXT = re.compile(rf"{_FENCE}|{_TAG_OPEN}|{CALL_KEY}")
# A block that means to be a call but has no quoted call key: {tool: "x"}, {'name': ...}.
_LOOSE_KEY = re.compile(r"[{,]\s*+'?(?:tool|name|function|args|arguments)\b'?\s*+:")
_ANY_KEY = re.compile(f"{CALL_KEY}|{_LOOSE_KEY.pattern}")
# A fence labelled "tool..." may hold a call although no key says so.
_TOOL_FENCE = "```tool"
_ARG_KEYS = ("args", "arguments", "parameters", "input")
_BLANK_LINES = re.compile(r"\n[^\S\n]*(?:\n[^\S\n]*)+\n")
_SNIPPET = 160
MAX_CALLS = 256
MAX_BROKEN = 16
# Above this size a reply is read in a worker thread, so that other chats are not kept waiting.
THREAD_THRESHOLD = 64 * 1024


def extract_tool_calls(text: str) -> Extraction:
    """Split a model's reply into its prose, the tool calls it wrote, and broken attempts."""
    marked = read_markup(text)
    rest = _Reader(marked.text).read()
    if not marked.calls and not marked.broken:
        return rest
    named = [*marked.calls, *rest.calls][:MAX_CALLS]
    calls = tuple(ToolCall(f"call_{i}", c.name, c.arguments) for i, c in enumerate(named, 1))
    return Extraction(rest.text, calls, (*marked.broken, *rest.broken)[:MAX_BROKEN])


async def read_tool_calls(text: str) -> Extraction:
    """Like ``extract_tool_calls``, but large replies are read off the event loop."""
    if len(text) < THREAD_THRESHOLD:
        return extract_tool_calls(text)
    return await asyncio.to_thread(extract_tool_calls, text)


class _Reader:
    """One pass over one reply."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.kept: list[str] = []
        self.calls: list[ToolCall] = []
        self.broken: list[BrokenCall] = []
        self._next_key = Next(_ANY_KEY, text)
        self._next_tag = Next(_TAG_OPEN, text)
        self._next_tool_fence = Next(_TOOL_FENCE, text)

    def read(self) -> Extraction:
        text, pos = self.text, 0
        while not self._full() and (match := _NEXT.search(text, pos)) is not None:
            plain = self._plain_until(match.start()) if match.group() == _FENCE else 0
            if plain > match.start():
                self.kept.append(text[pos:plain])
                pos = plain
                continue
            begin = self._start_of(match, pos)
            if begin is None:  # a key inside something else, not the start of a call
                self.kept.append(text[pos : match.end()])
                pos = match.end()
                continue
            self.kept.append(text[pos:begin])
            pos = self._dispatch(match.group(), begin)
        if self._full() and _NEXT.search(text, pos):
            self._add_broken(
                pos,
                len(text),
                f"more than {MAX_CALLS} calls or {MAX_BROKEN} broken"
                " ones in one reply; the rest of the reply was not read",
            )
        self.kept.append(text[pos:])
        prose = _BLANK_LINES.sub("\n\n", "".join(self.kept)).strip()
        return Extraction(prose, tuple(self.calls), tuple(self.broken))

    def _full(self) -> bool:
        """Stop reading a reply that holds more calls or broken attempts than any real one."""
        return len(self.calls) >= MAX_CALLS or len(self.broken) >= MAX_BROKEN

    def _plain_until(self, fence: int) -> int:
        """Skip, in C, the fences before the next call-like key or tag: they hold no calls.

        Returns that key or tag when it stands outside every fence, else the fence around it.
        """
        stop = min(
            self._next_key.at_or_after(fence),
            self._next_tag.at_or_after(fence),
            self._next_tool_fence.at_or_after(fence),
        )
        if self.text.count(_FENCE, fence, stop) % 2 == 0:
            return stop
        return self.text.rfind(_FENCE, fence, stop)

    def _start_of(self, match: re.Match[str], pos: int) -> int | None:
        """Where the block or call object of a match begins; None for a key inside something."""
        if not match.group().startswith('"'):
            return match.start()
        return call_opening(self.text, match.start(), pos)

    def _dispatch(self, token: str, begin: int) -> int:
        if token == _FENCE:
            return self._fence(begin)
        if token == _TAG_OPEN:
            return self._block(begin, begin + len(_TAG_OPEN), _TAG_CLOSE, attempt=True)
        end, used = self._decode(begin)
        if not used:
            self.kept.append(self.text[begin:end])
        return end

    def _fence(self, begin: int) -> int:
        opening = _FENCE_OPEN.match(self.text, begin)
        assert opening is not None  # the pattern matches wherever ``` stands
        lang = opening.group(1).lower()
        if lang in _JSON_LANGS:
            return self._block(begin, opening.end(), _FENCE, attempt=lang.startswith("tool"))
        close = self.text.find(_FENCE, opening.end())
        after = len(self.text) if close < 0 else close + len(_FENCE)
        self.kept.append(self.text[begin:after])
        return after

    def _block(self, begin: int, start: int, closer: str, *, attempt: bool) -> int:
        """Read the calls of a fenced or tagged block; keep it as prose if it holds none."""
        text, pos, used = self.text, start, False
        close = find(text, closer, start)
        while not self._full() and (match := CALL_KEYS.search(text, pos, close)) is not None:
            opening = self._start_of(match, pos)
            pos, found = (match.end(), False) if opening is None else self._decode(opening)
            used = used or found
            if pos > close:  # the closer stood inside a JSON string
                close = find(text, closer, pos)
        if not used and (attempt or _LOOSE_KEY.search(text, start, close)):
            used = self._report_unparsable(start, close)
        after = min(len(text), close + len(closer))
        if not used:
            self.kept.append(text[begin:after])
        return after

    def _report_unparsable(self, start: int, stop: int) -> bool:
        """Report a block that means to hold a call but has none that could be read."""
        content = self.text[start:stop].strip()
        if not content:
            return False
        try:
            json.loads(content)
            reason = 'the block is JSON but not a tool call: expected {"tool": ..., "args": {...}}'
        except json.JSONDecodeError as exc:
            reason = f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        except RecursionError:
            reason = "JSON nested too deeply"
        self._add_broken(start, stop, reason)
        return True

    def _decode(self, begin: int) -> tuple[int, bool]:
        """Decode the call-like JSON at ``begin``; return where it ends and if it was a call."""
        text = self.text
        try:
            value, end = raw_decode(text, begin)
        except Unreadable as exc:
            end = max(exc.pos, begin + 1)
            self._add_broken(begin, end, f"not valid JSON: {exc.msg}")
            return end, True
        except RecursionError:
            # Too deep for the C decoder: the rest up to the next block is one broken attempt.
            end = min(find(text, _FENCE, begin), find(text, _TAG_OPEN, begin))
            self._add_broken(begin, end, "JSON nested too deeply to be a tool call")
            return end, True
        return end, self._add_calls(value, begin, end)

    def _add_calls(self, value: Any, begin: int, end: int) -> bool:
        found = as_calls(value)
        if found is None:
            return False
        if isinstance(found, str):
            self._add_broken(begin, end, found)
            return True
        room = MAX_CALLS - len(self.calls)
        for name, arguments in found[:room]:
            self.calls.append(ToolCall(f"call_{len(self.calls) + 1}", name, arguments))
        if len(found) > room:
            self._add_broken(begin, end, f"more than {MAX_CALLS} tool calls in one reply")
        return True

    def _add_broken(self, begin: int, end: int, reason: str) -> None:
        snippet = self.text[begin : min(end, begin + _SNIPPET)]
        if end - begin > _SNIPPET:
            snippet += "…"
        self.broken.append(BrokenCall(snippet, reason, begin))


def as_calls(value: Any) -> list[tuple[str, Any]] | str | None:
    """Read decoded JSON as calls; None when it is not a call, a reason when it is a bad one."""
    items = value if isinstance(value, list) else [value]
    parsed = [_as_call(item) for item in items]
    if not parsed or all(p is None for p in parsed):
        return None
    for p in parsed:
        if isinstance(p, str):
            return p
        if p is None:
            return "an array of tool calls may hold only tool calls"
    return [p for p in parsed if isinstance(p, tuple)]


def _as_call(obj: Any) -> tuple[str, Any] | str | None:
    if not isinstance(obj, dict):
        return None
    function = obj.get("function")
    if obj.get("type") == "function" and isinstance(function, dict):
        return _named(function.get("name"), _arguments(function))
    if "tool" in obj:
        return _named(obj["tool"], _arguments(obj))
    if "name" in obj and any(key in obj for key in _ARG_KEYS):
        return _named(obj["name"], _arguments(obj))
    return None


def _arguments(obj: dict[str, Any]) -> Any:
    arguments: Any = next((obj[key] for key in _ARG_KEYS if key in obj), {})
    if isinstance(arguments, str) and arguments.lstrip().startswith("{"):
        try:  # arguments sent as a JSON string, as the OpenAI wire format does
            return json.loads(arguments)
        except (json.JSONDecodeError, RecursionError):
            return arguments
    return arguments


def _named(name: Any, arguments: Any) -> tuple[str, Any] | str:
    if not isinstance(name, str) or not name.strip():
        return f"the tool name must be a non-empty string, got {json.dumps(name)[:40]}"
    return name.strip(), arguments
