"""The text-call reader ends on every text, in linear time, and never runs a cut-off call."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.llm import markup
from assistant.llm.textcalls import extract_tool_calls

HARMONY_EMPTY = (
    "<|start|>assistant<|channel|>commentary to=functions.no_args "
    "<|constrain|>json<|message|><|call|>"
)


class _Hung(Exception):
    pass


@contextmanager
def _ends_within(seconds: float) -> Iterator[None]:
    """A guard against a hang (not a speed check): the reader is stopped and the test fails."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise _Hung(f"the reader did not end within {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    "reply",
    [
        HARMONY_EMPTY,
        "<|channel|>commentary to=functions.x<|message|>",
        "to=functions.x <|message|>   ",
        "[TOOL_CALLS]get_weather",
        "[TOOL_CALLS]get_weather[ARGS]",
        "Sure.\n[TOOL_CALLS]get_time[ARGS]   ",
    ],
)
def test_a_call_with_an_empty_body_at_the_end_is_broken_and_ends(reply: str) -> None:
    with _ends_within(10):
        result = extract_tool_calls(reply)
    assert result.calls == ()
    assert [b.reason for b in result.broken] == [f"the arguments of {_name(reply)} are missing"]


def _name(reply: str) -> str:
    for marker in ("to=functions.", "[TOOL_CALLS]"):
        if marker in reply:
            rest = reply.split(marker, 1)[1]
            return rest.split("[", 1)[0].split("<", 1)[0].split()[0]
    raise AssertionError(reply)


# Every marker the reader knows, each format's separators, and the JSON and Python pieces
# that bodies are made of.
VOCABULARY = sorted(
    {
        *markup.MARKERS,
        *(closer for closer, _ in markup._BLOCKS.values()),
        "<|message|>",
        "<|constrain|>json",
        "commentary ",
        "analysis",
        "to=functions.f ",
        "[ARGS]",
        "[CALL_ID]a1",
        "<｜tool▁sep｜>",
        "<|tool_call_argument_begin|>",
        "functions.f:0",
        "<arg_key>",
        "</arg_key>",
        "<arg_value>",
        "</arg_value>",
        "<function=f>",
        "<parameter=a>",
        "</parameter>",
        '<invoke name="f">',
        '<parameter name="a">',
        "</invoke>",
        "call:f",
        "<escape>",
        '{"name": "f", "arguments": ',
        '{"tool": "f", "args": ',
        '"a": ',
        "{}",
        "{",
        "}",
        "[",
        "]",
        "[f(a=1)]",
        "f(",
        ")",
        '"',
        "'",
        ":",
        ",",
        "1",
        "x",
        " ",
        "\n",
        "```json\n",
        "```",
    }
)
texts = st.lists(st.sampled_from(VOCABULARY), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_the_reader_ends_on_any_text_made_of_its_markers(text: str) -> None:
    with _ends_within(10):
        result = extract_tool_calls(text)
    assert all(call.name for call in result.calls)
    assert len(result.text) <= len(text)


def _steps(text: str) -> int:
    """How many Python and C calls reading the text takes: a count, not a time."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        count += 1

    sys.setprofile(profile)
    try:
        extract_tool_calls(text)
    finally:
        sys.setprofile(None)
    return count


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12).map("".join))
def test_the_work_grows_linearly_with_repeats_of_any_marker_text(unit: str) -> None:
    with _ends_within(30):
        small, large = _steps(unit * 40), _steps(unit * 160)
    # Four times the text may cost at most about four times the steps (caps make it less).
    assert large <= 4.5 * small + 2_000, (small, large)


FORMATS = {
    "JSON fence": '```json\n{{"tool": "get_weather", "args": {a}}}\n```',
    "Hermes": '<tool_call>{{"name": "get_weather", "arguments": {a}}}</tool_call>',
    "Mistral v11": "[TOOL_CALLS]get_weather{a}",
    "Mistral v13": "[TOOL_CALLS]get_weather[ARGS]{a}",
    "harmony": "<|start|>assistant<|channel|>commentary to=functions.get_weather "
    "<|constrain|>json<|message|>{a}<|call|>",
    "DeepSeek V3": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
    "```json\n{a}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "DeepSeek V3.1": "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{a}<｜tool▁call▁end｜>",
    "Kimi K2": "<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{a}"
    "<|tool_call_end|>",
    "Apertus": '<|tools_prefix|>[{{"get_weather": {a}}}]<|tools_suffix|>',
}
XML_FORMATS = {
    "Qwen3-Coder": "<tool_call>\n<function=get_weather>\n{a}\n</function>\n</tool_call>",
    "Seed-OSS": "<seed:tool_call>\n<function=get_weather>\n{a}\n</function>\n</seed:tool_call>",
    "MiniMax-M2": '<minimax:tool_call>\n<invoke name="get_weather">\n{a}</invoke>\n'
    "</minimax:tool_call>",
}
PYTHON_FORMATS = {
    "Llama 4": "<|python_start|>[get_weather({a})]<|python_end|>",
    "LFM2": "<|tool_call_start|>[get_weather({a})]<|tool_call_end|>",
    "OLMo 3": "<function_calls>\nget_weather({a})\n</function_calls>",
}
MALFORMED = ["{", '{"city": }', "city=", "<arg_key>city</arg_key>", "city:<escape>Paris"]


def _cases(formats: dict[str, str], bodies: list[str]) -> list[Any]:
    return [
        pytest.param(t.format(a=b), id=f"{n}: {b!r}") for n, t in formats.items() for b in bodies
    ]


def _one_broken(reply: str) -> None:
    with _ends_within(10):
        result = extract_tool_calls(reply)
    assert result.calls == (), "a call was made up from a body that holds none"
    assert len(result.broken) == 1 and result.broken[0].reason


@pytest.mark.parametrize("reply", _cases(FORMATS, ["", "   ", *MALFORMED]))
def test_json_formats_never_take_an_empty_or_malformed_body_as_arguments(reply: str) -> None:
    _one_broken(reply)


@pytest.mark.parametrize("reply", _cases(XML_FORMATS, MALFORMED))
def test_xml_formats_report_text_that_is_not_a_parameter(reply: str) -> None:
    _one_broken(reply)


@pytest.mark.parametrize("reply", _cases(PYTHON_FORMATS, MALFORMED))
def test_python_formats_report_arguments_that_are_not_keywords(reply: str) -> None:
    _one_broken(reply)


@pytest.mark.parametrize(
    "reply",
    [*_cases(XML_FORMATS, ["", "  "]), *_cases(PYTHON_FORMATS, [""])],
)
def test_formats_that_write_no_arguments_as_nothing_call_with_none(reply: str) -> None:
    result = extract_tool_calls(reply)
    assert [(c.name, c.arguments) for c in result.calls] == [("get_weather", {})]


@pytest.mark.parametrize(
    "reply",
    [
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nPar",
        "<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Par",
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris'
        "</parameter>\n</invoke>",
        "<|tool_call_start|>[get_weather(city='Paris')]",
        "<start_function_call>call:get_weather{city:<escape>Paris<escape>}",
    ],
)
def test_an_unfinished_call_is_a_broken_attempt_never_run(reply: str) -> None:
    _one_broken(reply)


def test_a_word_before_a_pre_v11_mistral_list_is_not_the_tool_name() -> None:
    reply = '[TOOL_CALLS]  junk [{"name": "add", "arguments": {"a": 1, "b": 2}}] trail'
    result = extract_tool_calls(reply)
    assert [(c.name, c.arguments) for c in result.calls] == [("add", {"a": 1, "b": 2})]


def test_a_pre_v11_mistral_list_after_a_space_is_read() -> None:
    reply = '[TOOL_CALLS] [{"arguments": {"name": "John"}, "name": "get_age"}]'
    result = extract_tool_calls(reply)
    assert [(c.name, c.arguments) for c in result.calls] == [("get_age", {"name": "John"})]
