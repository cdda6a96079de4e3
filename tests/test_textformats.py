"""Tool calls in the markup of open models, as each format's public documentation shows it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from assistant.llm.markup import MARKERS, without_reasoning
from assistant.llm.modes import ToolModeModel
from assistant.llm.textcalls import extract_tool_calls
from assistant.llm.textmode import HeldBack
from assistant.llm.types import Completion, Request, StreamEvent, TextDelta, ToolSpec, UserMessage

W = ("get_weather", {"city": "Paris", "unit": "c"})
T = ("get_time", {})

# (format, reply, expected calls, expected prose)
FORMATS = [
    ("pythonic", "[get_weather(city='Paris', unit='c')]", [W], ""),
    ("pythonic, two", "[get_weather(city='Paris', unit='c'), get_time()]", [W, T], ""),
    (
        "pythonic, JSON literals",
        "[set_flag(on=true, value=null, tags=['a', 'b'], n=-2.5)]",
        [("set_flag", {"on": True, "value": None, "tags": ["a", "b"], "n": -2.5})],
        "",
    ),
    ("pythonic after prose", "Checking.\n[get_weather(city='Paris', unit='c')]", [W], "Checking."),
    ("Llama 4", "<|python_start|>[get_weather(city='Paris', unit='c')]<|python_end|>", [W], ""),
    ("LFM2", "<|tool_call_start|>[get_weather(city='Paris', unit='c')]<|tool_call_end|>", [W], ""),
    (
        "OLMo 3",
        "<function_calls>\nget_weather(city='Paris', unit='c')\nget_time()\n</function_calls>",
        [W, T],
        "",
    ),
    ("Llama 3.1 python_tag", '<|python_tag|>{"name": "get_time", "parameters": {}}', [T], ""),
    ("Mistral v11", '[TOOL_CALLS]get_weather{"city": "Paris", "unit": "c"}', [W], ""),
    ("Mistral v13", '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "unit": "c"}', [W], ""),
    (
        "Mistral, two",
        '[TOOL_CALLS]get_time[ARGS]{}[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "unit": "c"}',
        [T, W],
        "",
    ),
    (
        "Mistral v3 JSON list",
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}]',
        [W],
        "",
    ),
    (
        "DeepSeek V3",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Paris", "unit": "c"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        [W],
        "",
    ),
    (
        "DeepSeek V3.1",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
        '{"city": "Paris", "unit": "c"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        [W],
        "",
    ),
    (
        "Kimi K2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris", "unit": "c"}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        [W],
        "",
    ),
    (
        "gpt-oss harmony",
        "<|channel|>analysis<|message|>Need weather. [get_time()]<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
        '<|message|>{"city": "Paris", "unit": "c"}<|call|>',
        [W],
        "",
    ),
    (
        "gpt-oss harmony, recipient first",
        "<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>",
        [T],
        "",
    ),
    ("gpt-oss final", "<|channel|>final<|message|>It is sunny.<|return|>", [], "It is sunny."),
    (
        "Apertus",
        '<|tools_prefix|>[{"get_weather": {"city": "Paris", "unit": "c"}}]<|tools_suffix|>',
        [W],
        "",
    ),
    (
        "Qwen3-Coder",
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=unit>\nc\n</parameter>\n</function>\n</tool_call>",
        [W],
        "",
    ),
    (
        "Qwen3-Coder, an object value",
        '<tool_call>\n<function=save>\n<parameter=item>\n{"a": [1, 2]}\n</parameter>\n</function>\n</tool_call>',
        [("save", {"item": {"a": [1, 2]}})],
        "",
    ),
    (
        "Seed-OSS",
        "<seed:think>The user wants weather.</seed:think><seed:tool_call>\n<function=get_weather>\n"
        "<parameter=city>Paris</parameter>\n<parameter=unit>c</parameter>\n</function>\n"
        "</seed:tool_call>",
        [W],
        "",
    ),
    (
        "GLM-4.5",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "<arg_key>unit</arg_key>\n<arg_value>c</arg_value>\n</tool_call>",
        [W],
        "",
    ),
    ("GLM-4.5, no arguments", "<tool_call>get_time\n</tool_call>", [T], ""),
    (
        "MiniMax-M2",
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
        '<parameter name="unit">c</parameter>\n</invoke>\n</minimax:tool_call>',
        [W],
        "",
    ),
    (
        "Step-3",
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        '<steptml:invoke name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter>'
        '<steptml:parameter name="unit">c</steptml:parameter></steptml:invoke>'
        "<｜tool_call_end｜><｜tool_calls_end｜>",
        [W],
        "",
    ),
    (
        "FunctionGemma",
        "<start_function_call>call:get_weather{city:<escape>Paris<escape>,unit:<escape>c<escape>}"
        "<end_function_call>",
        [W],
        "",
    ),
    (
        "FunctionGemma, nested and numbers",
        "<start_function_call>call:plan{days:3,ok:true,stops:[<escape>a, b<escape>,"
        "<escape>c<escape>],at:{lat:1.5}}<end_function_call>",
        [("plan", {"days": 3, "ok": True, "stops": ["a, b", "c"], "at": {"lat": 1.5}})],
        "",
    ),
    (
        "Nemotron TOOLCALL",
        '<TOOLCALL>[{"name": "get_time", "arguments": {}}]</TOOLCALL>',
        [T],
        "",
    ),
    ("Granite", '<|tool_call|>[{"name": "get_time", "arguments": {}}]', [T], ""),
    ("function_call marker", '<|function_call|>{"name": "get_time", "arguments": {}}', [T], ""),
    (
        "tool_calls wrapper",
        '<tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls>',
        [T],
        "",
    ),
    (
        "arguments as a JSON string",
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\", \\"unit\\": \\"c\\"}"}</tool_call>',
        [W],
        "",
    ),
]


@pytest.mark.parametrize(
    ("reply", "calls", "prose"), [f[1:] for f in FORMATS], ids=[f[0] for f in FORMATS]
)
def test_each_format_is_read(reply: str, calls: list[tuple[str, object]], prose: str) -> None:
    result = extract_tool_calls(reply)
    assert [(c.name, c.arguments) for c in result.calls] == calls
    assert result.text == prose
    assert result.broken == ()
    assert [c.id for c in result.calls] == [f"call_{i}" for i in range(1, len(calls) + 1)]


REASONING = [
    ("think", '<think>Maybe {"tool": "delete_note", "args": {"id": 1}}</think>Hello!'),
    ("thinking", "<thinking>[delete_note(id=1)]</thinking>Hello!"),
    ("orphan close", 'I should call {"tool": "delete_note", "args": {"id": 1}}</think>Hello!'),
    ("Apertus inner", "<|inner_prefix|><tool_call>delete_note</tool_call><|inner_suffix|>Hello!"),
    ("harmony analysis", "<|channel|>analysis<|message|>[delete_note(id=1)]<|end|>Hello!"),
    ("unclosed", 'Hello!<think>{"tool": "delete_note", "args": {}}'),
]


@pytest.mark.parametrize("reply", [r[1] for r in REASONING], ids=[r[0] for r in REASONING])
def test_a_call_inside_reasoning_is_never_run_or_shown(reply: str) -> None:
    result = extract_tool_calls(reply)
    assert result.calls == () and result.broken == ()
    assert result.text == "Hello!"
    assert without_reasoning(reply) == "Hello!"


# A marker that an argument holds is its text: in a bare, fenced or tagged call alike.
IN_STRINGS = sorted({*MARKERS, "</tool_call>", "<|message|>"})
SHAPES = {
    "bare": "Sure. {call} Done.",
    "fenced": "Sure.\n```json\n{call}\n```\nDone.",
    "tagged": "Sure.<tool_call>{call}</tool_call>Done.",
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("marker", IN_STRINGS)
def test_a_marker_inside_an_argument_is_kept_as_data(marker: str, shape: str) -> None:
    arguments = {"text": f"before {marker} after", marker: [marker]}
    call = json.dumps({"name": "save_note", "arguments": arguments}, ensure_ascii=False)
    result = extract_tool_calls(SHAPES[shape].format(call=call))
    assert [(c.name, c.arguments) for c in result.calls] == [("save_note", arguments)]
    assert result.broken == ()


def test_fenced_blocks_are_kept_whole_up_to_a_call_after_them() -> None:
    fenced = '```json\n{"tool": "get_time", "args": {}}\n```\n'
    bare = json.dumps({"tool": "save_note", "args": {"<thinking>": None}})
    result = extract_tool_calls("```\nplain\n```\n" * 3 + fenced + f"Then {bare} ok")
    assert [(c.name, c.arguments) for c in result.calls] == [T, ("save_note", {"<thinking>": None})]
    assert result.text.count("```") == 6 and result.text.endswith("Then  ok")


def test_reasoning_beside_a_call_is_still_removed() -> None:
    call = json.dumps({"tool": "save_note", "args": {"text": "a </think> b <|end|>"}})
    reply = f"<think>secret</think>Saving.<|end|> {call} Done.<|end|>"
    result = extract_tool_calls(reply)
    assert [c.arguments for c in result.calls] == [{"text": "a </think> b <|end|>"}]
    assert result.text == "Saving.  Done."
    assert without_reasoning(f"<think>secret</think>Hi {call}") == f"Hi {call}"


def test_an_orphan_close_after_a_call_holding_one_is_found() -> None:
    call = json.dumps({"tool": "save_note", "args": {"text": "</think>"}})
    result = extract_tool_calls(f"I could call {call}</think>Hello!")
    assert result.calls == () and result.text == "Hello!"


BROKEN = [
    ("Mistral without arguments", "[TOOL_CALLS]get_weather and then"),
    ("Mistral bad JSON", '[TOOL_CALLS]get_weather{"city": Paris}'),
    ("Python positional", "<|python_start|>[get_weather('Paris')]<|python_end|>"),
    (
        "Python expression",
        "<function_calls>\nget_weather(city=__import__('os'))\n</function_calls>",
    ),
    ("Python syntax", "<|tool_call_start|>[get_weather(city='Paris'</tool_call_end|>"),
    (
        "Qwen name unclosed",
        "<tool_call>\n<function=get_weather\n<parameter=city>x</parameter>\n</tool_call>",
    ),
    ("GLM missing value", "<tool_call>get_weather\n<arg_key>city</arg_key>\n</tool_call>"),
    (
        "Gemma unclosed escape",
        "<start_function_call>call:get_weather{city:<escape>Paris}<end_function_call>",
    ),
    ("Gemma no call:", "<start_function_call>get_weather{}<end_function_call>"),
    ("DeepSeek no separator", "<｜tool▁call▁begin｜>get_weather {}<｜tool▁call▁end｜>"),
    (
        "Kimi bad JSON",
        "<|tool_call_begin|>functions.x:0<|tool_call_argument_begin|>{oops<|tool_call_end|>",
    ),
    ("Apertus shape", '<|tools_prefix|>[{"a": {}, "b": {}}]<|tools_suffix|>'),
    ("MiniMax no invoke", "<minimax:tool_call>get_weather</minimax:tool_call>"),
    (
        "harmony bad JSON",
        "<|channel|>commentary to=functions.x <|constrain|>json<|message|>{x}<|call|>",
    ),
]


@pytest.mark.parametrize("reply", [b[1] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_a_broken_attempt_in_any_format_is_reported(reply: str) -> None:
    result = extract_tool_calls(reply)
    assert result.calls == ()
    assert len(result.broken) == 1 and result.broken[0].reason


PROSE = [
    "See the list [above(that)] for details.",
    "Call me at 5 (or 6) [maybe]",
    "Use print() in Python:\n[print(x) for x in xs]",
    "The expression [f(a=1)] inside a sentence is not a call.",
    "Compare a < b and c > d <here>.",
    "to=functions is a phrase, not a call",
]


@pytest.mark.parametrize("reply", PROSE)
def test_prose_is_never_read_as_a_call(reply: str) -> None:
    result = extract_tool_calls(reply)
    assert result.calls == () and result.broken == ()
    assert result.text == reply


def test_wrapper_markers_never_reach_the_user() -> None:
    reply = "Done.<|eot_id|>"
    assert extract_tool_calls(reply).text == "Done."


def test_markup_shown_in_a_code_fence_is_kept_and_never_run() -> None:
    reply = "To end a turn:\n```\n<|im_end|> and <tool_call>x</tool_call>\n```\nDone.<|eot_id|>"
    result = extract_tool_calls(reply)
    assert result.calls == () and result.broken == ()
    assert result.text == reply.removesuffix("<|eot_id|>")


def test_a_json_call_in_a_fence_is_still_read() -> None:
    reply = 'Here:\n```json\n{"tool": "get_time", "args": {}}\n```'
    result = extract_tool_calls(reply)
    assert [(c.name, c.arguments) for c in result.calls] == [T]


def test_python_calls_are_never_evaluated(tmp_path: object) -> None:
    reply = "[get_weather(city=open('/etc/passwd').read())]"
    result = extract_tool_calls(reply)
    assert result.calls == ()  # kept as prose: not a literal, so not a call


def test_many_unclosed_markers_stay_linear() -> None:
    text = "<tool_call><function=x" * 20_000 + "[f(" * 20_000 + "<think>"
    result = extract_tool_calls(text)
    assert len(result.broken) <= 16


def _streamed(deltas: list[str]) -> str:
    held = HeldBack()
    return "".join(held.feed(delta) for delta in deltas)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


CALLS_ONLY = [f for f in FORMATS if not f[3]]


@pytest.mark.parametrize("size", [1, 3, 7, 1000])
@pytest.mark.parametrize("reply", [f[1] for f in CALLS_ONLY], ids=[f[0] for f in CALLS_ONLY])
def test_no_call_syntax_is_ever_streamed(reply: str, size: int) -> None:
    assert _streamed(_pieces("Let me see.\n" + reply, size)) == "Let me see.\n"


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_plain_prose_streams_whole(size: int) -> None:
    text = "It is 9:00 in Paris [UTC+1] and a < b; see (this) list.\n[1, 2] done"
    assert _streamed(_pieces(text, size)) == text


@pytest.mark.parametrize("size", [1, 5])
def test_reasoning_is_never_streamed(size: int) -> None:
    assert _streamed(_pieces("<think>secret plan</think>Hi", size)) == ""


async def test_a_native_stream_never_shows_a_call_written_as_text() -> None:
    class Writer:
        name = "writer"

        async def complete(self, request: Request) -> Completion:
            raise AssertionError("streamed")

        async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
            reply = "Sure.\n[TOOL_CALLS]get_time[ARGS]{}"
            for piece in _pieces(reply, 2):
                yield TextDelta(piece)
            yield Completion(reply)

        async def close(self) -> None:
            return None

    model = ToolModeModel(Writer(), "native")  # type: ignore[arg-type]
    request = Request("s", [UserMessage("time?")], (ToolSpec("get_time", "", {"type": "object"}),))
    events = [event async for event in model.stream(request)]
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    final = events[-1]
    assert shown == "Sure.\n"
    assert isinstance(final, Completion) and [c.name for c in final.calls] == ["get_time"]
    assert final.text == "Sure."
