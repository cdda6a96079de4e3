"""The markup open models wrap their calls and reasoning in, read before the JSON reader.

Recognised, from each format's public documentation: Python-call lists (Llama 4, OLMo 3,
LFM2), a tool name outside its JSON (Mistral ``[TOOL_CALLS]``, DeepSeek V3/V3.1, Kimi K2,
gpt-oss harmony), XML or key-value arguments (Qwen3-Coder, Seed-OSS, GLM-4.5, MiniMax-M2,
Step-3, FunctionGemma), name-keyed JSON (Apertus). Reasoning (``<think>`` and its kin) is
dropped: a call inside it is never run and the user never sees it. Wrapper markers around
JSON are removed so that the JSON reader sees plain JSON.

One pass: markers are found with ``str.find`` from a heap of cached positions, closers
through a cache; every step reads at least one character. A block without its closer is a
broken attempt, never run. A JSON value a call key opens is kept whole: markers in it are data.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable
from typing import Literal, assert_never

from assistant.llm import callsyntax
from assistant.llm.callsyntax import Broken, Parsed
from assistant.llm.jsonscan import (
    Next,
    Objects,
    Unreadable,
    find,
    has_call_key,
    raw_decode,
)
from assistant.llm.types import BrokenCall, Extraction, ToolCall

Kind = Literal["reasoning", "block", "stray", "name_json", "harmony", "fence"]
Keep = Literal["block", "content"]  # not this reader's: leave it to the JSON reader
Reader = Callable[[str], Parsed | Keep]

_REASONING = {
    "<think>": "</think>",
    "<thinking>": "</thinking>",
    "<seed:think>": "</seed:think>",
    "<|inner_prefix|>": "<|inner_suffix|>",
}
_SECTION_ARGS, _SECTION_SEP = "<|tool_call_argument_begin|>", re.compile(r"<[|｜]tool[▁_]sep[|｜]>")
_JSONISH = re.compile(r"\s*+(?:\{|\[\s*+\{|\[\s*+\])")
_GLM_HEAD = re.compile(r"\s*+[A-Za-z_][\w.\-]*+\s*+(?:<arg_key>|\Z)")
_PYTHON_HEAD = re.compile(r"\s*+\[?\s*+[A-Za-z_][\w.]*+\(")
_SNIPPET = 160
MAX_BARE = 16  # Python-call lists tried outside any marker, per reply
_BARE_SPAN = 4096  # and how far each may reach


def _tagged(content: str) -> Parsed | Keep:
    if content.lstrip().startswith("<function="):
        return callsyntax.xml_calls(content)
    if _GLM_HEAD.match(content):
        return callsyntax.key_value_call(content)
    if _PYTHON_HEAD.match(content):
        return callsyntax.python_calls(content)
    return "block"


def _python_or_json(content: str) -> Parsed | Keep:
    return "content" if _JSONISH.match(content) else callsyntax.python_calls(content)


def _keyed(content: str) -> Parsed:
    """Apertus: ``[{"name": {arguments}}, ...]``."""
    value = callsyntax.json_arguments(content)
    if isinstance(value, Broken):
        return value
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(item, dict) and len(item) == 1 for item in items):
        return Broken('expected [{"TOOL": {arguments}}, ...]')
    return [next(iter(item.items())) for item in items]


def _section(content: str) -> Parsed:
    """DeepSeek V3/V3.1, Kimi K2 and Step-3 calls between their begin and end markers."""
    if _SECTION_ARGS in content:
        head, _, arguments = content.partition(_SECTION_ARGS)
        return callsyntax.named(head, callsyntax.json_arguments(arguments))
    parts = _SECTION_SEP.split(content, maxsplit=1)
    if len(parts) < 2:
        return Broken("expected a tool name, a separator marker and the arguments")
    left, right = parts
    if right.lstrip().startswith(("<invoke", "<steptml:invoke")):
        return callsyntax.invoke_calls(right)
    if left.strip() in ("", "function"):
        left, _, right = right.lstrip().partition("\n")
    return callsyntax.named(left, callsyntax.json_arguments(right))


# opener → (closer, reader); a reader of None drops the content (reasoning).
_BLOCKS: dict[str, tuple[str, Reader | None]] = {
    **{opener: (closer, None) for opener, closer in _REASONING.items()},
    "<tool_call>": ("</tool_call>", _tagged),
    "<seed:tool_call>": ("</seed:tool_call>", callsyntax.xml_calls),
    "<function=": ("</function>", callsyntax.xml_calls),
    "<minimax:tool_call>": ("</minimax:tool_call>", callsyntax.invoke_calls),
    "<start_function_call>": ("<end_function_call>", callsyntax.gemma_call),
    "<|tools_prefix|>": ("<|tools_suffix|>", _keyed),
    "<function_calls>": ("</function_calls>", callsyntax.python_calls),
    "<|python_start|>": ("<|python_end|>", _python_or_json),
    "<|tool_call_start|>": ("<|tool_call_end|>", _python_or_json),
    "<｜tool▁call▁begin｜>": ("<｜tool▁call▁end｜>", _section),
    "<｜tool_call_begin｜>": ("<｜tool_call_end｜>", _section),
    "<|tool_call_begin|>": ("<|tool_call_end|>", _section),
}
_WRAPPERS = (
    "<tool_calls>",
    "</tool_calls>",
    "<|function_call|>",
    "<TOOLCALL>",
    "</TOOLCALL>",
    "<|python_tag|>",
    "<|tool_call|>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool_calls_begin｜>",
    "<｜tool_calls_end｜>",
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|start|>assistant",
    "<|return|>",
    "<|call|>",
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<end_of_turn>",
)
_KINDS: dict[str, Kind] = {
    **dict.fromkeys(_REASONING, "reasoning"),
    **dict.fromkeys((k for k in _BLOCKS if k not in _REASONING), "block"),
    "```": "fence",  # a Markdown fence holds JSON or code, never model markup: kept as is
    "<|end|>": "stray",  # harmony's end of a message; also the closer of its analysis
    "[TOOL_CALLS]": "name_json",
    "<|channel|>": "harmony",
    "to=functions.": "harmony",
}
_NOT_FENCES = tuple(marker for marker in _KINDS if marker != "```")
# A line that starts a Python-call list; the reply's first line is read with a leading "\n".
_BARE_PYTHON = re.compile(r"\n[^\S\n]*+\[[^\S\n]*+[A-Za-z_][\w.]*+\(")
_LINE_END = re.compile(r"[^\S\n]*+(?:\n|\Z)")
# v11+: ``name{...}`` or ``name[ARGS]{...}``; a word before a JSON list is prose before a pre-v11
# call list (``[TOOL_CALLS] [{"name": ...}]``), not a tool's name.
_MISTRAL_NAME = re.compile(
    r"\s*+([A-Za-z_][\w.\-]*+)(?:\[CALL_ID\][\w\-]{0,64})?(?:\[ARGS\])?(?!\s*+\[)"
)
_HARMONY_TO = re.compile(r"to=functions\.([\w.\-]+)")
MARKERS = (*_KINDS, *_WRAPPERS, "</think>")  # what a streamed reply holds back
# Wrapper markers are noise around calls, but text inside a Markdown fence and data inside a
# JSON string (an argument may hold one): fences and strings are matched whole and kept.
_UNWRAP = re.compile(
    r'```.*?(?:```|\Z)|"(?:[^"\\\n]|\\.)*+"|'
    + "|".join(map(re.escape, sorted(_WRAPPERS, key=len, reverse=True))),
    re.S,
)
_THINK = re.compile(r"<think>.*?</think>", re.S)
_SPACE = re.compile(r"\s*+")
_MESSAGE, _HEADER_MAX = "<|message|>", 256


def read_markup(text: str) -> Extraction:
    """The reply with model-specific call markup read into calls and reasoning removed."""
    return _Markup(_unwrapped(text)).read()


def _unwrapped(text: str) -> str:
    """The text without wrapper and end-of-turn markers, except inside fences and JSON strings:
    one C-speed search per marker, and one pass when any is there. With a Markdown fence in
    the reply, harmony's end and reasoning are left to the marker pass, outside fences only."""
    if any(wrapper in text for wrapper in _WRAPPERS):
        text = _UNWRAP.sub(_kept, text)
    if "```" in text or ("<|end|>" not in text and "</think>" not in text):
        return text
    ends = "<|channel|>analysis" not in text  # else <|end|> closes the analysis
    if not has_call_key(text):
        return _swept(text, ends=ends)
    # Swept between the JSON values that call keys open: in their strings a marker is data.
    objects, pos, pieces = Objects(text), 0, list[str]()
    while (value := objects.before(pos, len(text))) is not None:
        pieces += (_swept(text[pos : value[0]], ends=ends), text[value[0] : value[1]])
        pos = value[1]
    return "".join((*pieces, _swept(text[pos:], ends=ends)))


def _swept(text: str, *, ends: bool) -> str:
    """The text without harmony's ends and closed reasoning blocks, at C speed."""
    if ends and "<|end|>" in text:
        text = text.replace("<|end|>", "")
    if text.rfind("</think>") > text.rfind("<think>") >= 0:
        # Every <think> has a </think> after it, so each lazy match reads only its own span.
        text = _THINK.sub("", text)
    return text


def _kept(match: re.Match[str]) -> str:
    token = match.group()
    return token if token.startswith(("```", '"')) else ""


def without_reasoning(text: str) -> str:
    """The reply without its reasoning blocks, for replies whose calls came natively."""
    if not any(opener in text for opener in (*_REASONING, "</think>", "<|channel|>analysis")):
        return text
    return _Markup(_unwrapped(text), reasoning_only=True).read().text


class _Markup:
    """One pass over one reply."""

    def __init__(self, text: str, *, reasoning_only: bool = False) -> None:
        self.text, self.reasoning_only = text, reasoning_only
        self.kept: list[str] = []
        self.calls: list[ToolCall] = []
        self.broken: list[BrokenCall] = []
        self._marks = _Markers(text)
        self._others = _Markers(text, _NOT_FENCES)
        self._objects = Objects(text)
        self._lines = "\n" + text  # a match at i here is the line starting at i in ``text``
        self._bare = Next(_BARE_PYTHON, self._lines)
        self._closers: dict[str, Next] = {}
        self._bare_left = 0 if reasoning_only else MAX_BARE

    def read(self) -> Extraction:
        text, pos = self.text, _after_orphan_reasoning(self.text)
        while len(self.calls) < 256 and len(self.broken) < 16:
            mark, marker = self._marks.at_or_after(pos)
            bare = self._bare.at_or_after(pos) if self._bare_left else len(text)
            at = min(mark, bare)
            if at >= len(text):
                break
            if (value := self._objects.before(pos, at)) is not None:
                self.kept.append(text[pos : value[1]])
                pos = value[1]
                continue
            self.kept.append(text[pos:at])
            step = self._bare_python(at) if bare < mark else self._marker(marker, at)
            pos = min(len(text), max(step, at + 1))  # every step reads at least one character
        self.kept.append(text[pos:])
        return Extraction("".join(self.kept), tuple(self.calls), tuple(self.broken))

    def _marker(self, marker: str, at: int) -> int:
        kind, after = _KINDS[marker], at + len(marker)
        if self.reasoning_only and kind not in ("reasoning", "harmony", "fence"):
            self.kept.append(marker)
            return after
        match kind:
            case "reasoning" | "block":
                return self._block(marker, at, after)
            case "stray":
                return after
            case "fence":
                return self._fences(at)
            case "name_json":
                return self._name_json(at, after)
            case "harmony":
                return self._harmony(marker, at, after)
            case _:
                assert_never(kind)

    def _fences(self, at: int) -> int:
        """Keep the fenced blocks from ``at`` as they are: every one up to the next other
        marker, call line or call key at once when they pair up before it (a search in C,
        not a step a fence), else this one up to its closing fence."""
        text, fence = self.text, "```"
        bare = self._bare.at_or_after(at + 1) if self._bare_left else len(text)
        # A call key may open JSON whose strings hold markers: the jump stops before it.
        key = self._objects.next_key(at)
        stop = min(self._others.at_or_after(at + len(fence))[0], bare, key)
        last = text.rfind(fence, at, stop)  # at least the one at ``at``
        end = stop if text.count(fence, at, stop) % 2 == 0 else last
        if end == at:  # one fence, open past the next marker: that marker is inside it
            end = min(len(text), self._closer(fence, at + len(fence)) + len(fence))
        self.kept.append(text[at:end])
        return end

    def _closer(self, closer: str, start: int) -> int:
        return self._closers.setdefault(closer, Next(closer, self.text)).at_or_after(start)

    def _block(self, opener: str, at: int, start: int) -> int:
        closer, reader = _BLOCKS[opener]
        close = self._closer(closer, start)
        end = min(len(self.text), close + len(closer))
        if reader is None:
            return end
        # "<function=" is part of what it opens
        content = self.text[at if opener == "<function=" else start : close]
        parsed = reader(content)
        if close >= len(self.text) and not isinstance(parsed, (str, Broken)):
            # No closer: the call was cut off, and an unfinished call is never run.
            parsed = Broken(f"the call is unfinished: {closer} is missing")
        if parsed == "block":
            self.kept.append(self.text[at:end])
        elif parsed == "content":
            self.kept.append(content)
        else:
            self._take(parsed, at, end)
        return end

    def _name_json(self, at: int, start: int) -> int:
        """Mistral: ``[TOOL_CALLS]name[ARGS]{...}``, or a plain wrapper before JSON."""
        name = _MISTRAL_NAME.match(self.text, start)
        if name is None:
            return start
        return self._json_call(name.group(1), at, name.end())

    def _harmony(self, marker: str, at: int, start: int) -> int:
        """gpt-oss: a channel header, then ``<|message|>``; analysis is reasoning."""
        message = self.text.find(_MESSAGE, start, start + _HEADER_MAX)
        if message < 0:
            return start  # a stray marker: dropped
        body = message + len(_MESSAGE)
        if marker == "<|channel|>" and self.text.startswith("analysis", start):
            close = self._closer("<|end|>", body)
            return min(len(self.text), close + len("<|end|>"))
        name = _HARMONY_TO.search(self.text, at, message)
        if name is None or self.reasoning_only:
            return body  # a message to the user: its header goes, its text stays
        end = self._json_call(name.group(1), at, body)
        return end + len("<|call|>") if self.text.startswith("<|call|>", end) else end

    def _json_call(self, name: str, at: int, start: int) -> int:
        begin = _SPACE.match(self.text, start).end()  # type: ignore[union-attr]
        try:
            value, end = raw_decode(self.text, begin)
        except Unreadable as exc:
            end = min(len(self.text), max(exc.pos, begin + 1))
            reason = "are missing" if begin == len(self.text) else f"are not valid JSON: {exc.msg}"
            self._take(Broken(f"the arguments of {name} {reason}"), at, end)
            return end
        except RecursionError:
            self._take(Broken("the arguments are nested too deeply"), at, len(self.text))
            return len(self.text)
        self._take(callsyntax.named(name, value), at, end)
        return end

    def _bare_python(self, at: int) -> int:
        """A line that is a Python-call list, outside any marker; anything else stays prose."""
        match = _BARE_PYTHON.match(self._lines, at)
        assert match is not None
        self._bare_left -= 1  # a few tries per reply: the rest is prose
        bracket = self.text.index("[", at)
        end = callsyntax.balanced_end(self.text, bracket, bracket + _BARE_SPAN)
        if end < 0 or not _LINE_END.match(self.text, end):
            self.kept.append(self.text[at : match.end() - 1])
            return match.end() - 1
        parsed = callsyntax.python_calls(self.text[bracket:end])
        if isinstance(parsed, Broken):  # prose that looks like a call, not an attempt at one
            self.kept.append(self.text[at:end])
        else:
            self._take(parsed, at, end)
        return end

    def _take(self, parsed: Parsed, begin: int, end: int) -> None:
        if isinstance(parsed, Broken):
            snippet = self.text[begin : min(end, begin + _SNIPPET)]
            snippet += "…" if end - begin > _SNIPPET else ""
            self.broken.append(BrokenCall(snippet, parsed.reason, begin))
            return
        for name, arguments in parsed:
            self.calls.append(ToolCall(f"call_{len(self.calls) + 1}", name, arguments))


class _Markers:
    """The next marker at or after a position: one cached ``str.find`` per marker, in a heap.

    A regular expression of all the markers would try each at every "<" and "[" in the text;
    ``str.find`` skips to candidates in C, and each marker's text is searched once in all.
    """

    def __init__(self, text: str, markers: Iterable[str] = _KINDS) -> None:
        self._text, self._end = text, len(text)
        self._heap = [(find(text, m, 0), -len(m), m) for m in markers]
        heapq.heapify(self._heap)

    def at_or_after(self, start: int) -> tuple[int, str]:
        """Where the next marker begins, and which (the longest, when two begin there)."""
        if start > self._end:  # noqa: PLR1730 (past the end is the end; cheaper than min())
            start = self._end
        while (top := self._heap[0])[0] < start:
            heapq.heapreplace(self._heap, (find(self._text, top[2], start), top[1], top[2]))
        return top[0], top[2]


def _after_orphan_reasoning(text: str) -> int:
    """Where the answer starts when the template opened ``<think>`` and the model closed it.

    That is after the first ``</think>`` with no ``<think>`` before it, both outside JSON calls.
    """
    if "</think>" not in text:
        return 0
    opens, closes, objects, pos = Next("<think>", text), Next("</think>", text), Objects(text), 0
    while (close := closes.at_or_after(pos)) < len(text):
        first = min(close, opens.at_or_after(pos))
        if (value := objects.before(pos, first)) is None:
            return close + len("</think>") if first == close else 0
        pos = value[1]
    return 0
