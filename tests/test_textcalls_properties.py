"""Properties of the text tool-call reader over generated replies."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.llm.textcalls import extract_tool_calls

names = st.from_regex(r"[a-z][a-z_]{0,20}", fullmatch=True)
leaves = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.dictionaries(st.text(max_size=10), values, max_size=4)
prose = st.text(alphabet=st.characters(blacklist_characters='{}[]"`<'), max_size=80)
shapes = st.sampled_from(["fence", "bare", "tag"])


def render(name: str, args: dict[str, object], shape: str) -> str:
    call = json.dumps({"tool": name, "args": args}, ensure_ascii=False)
    if shape == "fence":
        return f"\n```json\n{call}\n```\n"
    if shape == "tag":
        return f"<tool_call>{json.dumps({'name': name, 'arguments': args})}</tool_call>"
    return f" {call} "


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(prose, names, arguments, shapes), min_size=1, max_size=4), prose)
def test_calls_written_in_prose_come_back_exactly(parts, tail) -> None:
    reply = "".join(text + render(name, args, shape) for text, name, args, shape in parts) + tail
    result = extract_tool_calls(reply)
    assert [(c.name, c.arguments) for c in result.calls] == [(n, a) for _, n, a, _ in parts]
    assert result.broken == ()


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}[]":,`<>/ \ntoolnamejsargu_1\\')), max_size=400))
def test_any_text_is_read_without_crashing(text: str) -> None:
    result = extract_tool_calls(text)
    assert all(isinstance(c.name, str) and c.name for c in result.calls)
