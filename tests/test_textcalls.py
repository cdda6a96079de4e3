"""The text tool-call extractor against replies as real models write them."""

from __future__ import annotations

import json

import pytest

from assistant.llm.textcalls import MAX_BROKEN, MAX_CALLS, extract_tool_calls

R = {"tool": "add_reminder", "args": {"delay": "5m", "message": "call mom"}}
RJ = json.dumps(R)
RARGS = {"delay": "5m", "message": "call mom"}
T = '{"tool": "get_current_time", "args": {}}'

# (reply, expected calls as (name, arguments), expected prose, number of broken attempts)
CASES = [
    # 1. The seed's form: one fenced json block, prose around it.
    (
        f"Sure!\n```json\n{RJ}\n```\nI'll confirm.",
        [("add_reminder", RARGS)],
        "Sure!\n\nI'll confirm.",
        0,
    ),
    # 2. Pretty-printed in a fence, as the seed's examples show.
    ("```json\n" + json.dumps(R, indent=4) + "\n```", [("add_reminder", RARGS)], "", 0),
    # 3. A fence without a language.
    (f"```\n{RJ}\n```", [("add_reminder", RARGS)], "", 0),
    # 4. A bare object alone.
    (RJ, [("add_reminder", RARGS)], "", 0),
    # 5. A bare object inside prose.
    (f"Setting it now {RJ} and done.", [("add_reminder", RARGS)], "Setting it now  and done.", 0),
    # 6. Two fenced calls in one reply.
    (
        f"```json\n{RJ}\n```\n```json\n{T}\n```",
        [("add_reminder", RARGS), ("get_current_time", {})],
        "",
        0,
    ),
    # 7. Two bare calls on separate lines.
    (f"{RJ}\n{T}", [("add_reminder", RARGS), ("get_current_time", {})], "", 0),
    # 8. An array of calls.
    (f"[{RJ}, {T}]", [("add_reminder", RARGS), ("get_current_time", {})], "", 0),
    # 9. An array of calls in a fence.
    (f"```json\n[{RJ},\n {T}]\n```", [("add_reminder", RARGS), ("get_current_time", {})], "", 0),
    # 10. Hermes/Qwen style tags with name/arguments.
    (
        '<tool_call>\n{"name": "get_current_time", "arguments": {}}\n</tool_call>',
        [("get_current_time", {})],
        "",
        0,
    ),
    # 11. Two tags in a row.
    (
        '<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>\n<tool_call>{"name": "b", "arguments": {}}</tool_call>',
        [("a", {"x": 1}), ("b", {})],
        "",
        0,
    ),
    # 12. A tag that the model forgot to close.
    (
        'Let me check.\n<tool_call>\n{"name": "get_current_time", "arguments": {}}',
        [("get_current_time", {})],
        "Let me check.",
        0,
    ),
    # 13. OpenAI's function shape, arguments double-encoded as a string: decoded.
    (
        '{"type": "function", "function": {"name": "search_web", "arguments": "{\\"query\\": \\"news\\"}"}}',
        [("search_web", {"query": "news"})],
        "",
        0,
    ),
    # 14. OpenAI's function shape with an object.
    (
        '{"type": "function", "function": {"name": "search_web", "arguments": {"query": "news"}}}',
        [("search_web", {"query": "news"})],
        "",
        0,
    ),
    # 15. name + parameters (Llama style).
    (
        '{"name": "search_web", "parameters": {"query": "weather Berlin"}}',
        [("search_web", {"query": "weather Berlin"})],
        "",
        0,
    ),
    # 16. tool without args.
    ('{"tool": "list_tasks"}', [("list_tasks", {})], "", 0),
    # 17. tool with "arguments" instead of "args".
    (
        '{"tool": "cancel_task", "arguments": {"task_id": "k3x9"}}',
        [("cancel_task", {"task_id": "k3x9"})],
        "",
        0,
    ),
    # 18. A call whose string argument holds a code fence.
    (
        '{"tool": "execute_code", "args": {"code": "```py\\nprint(1)\\n```"}} done',
        [("execute_code", {"code": "```py\nprint(1)\n```"})],
        "done",
        0,
    ),
    # 19. A call with braces inside strings.
    (
        '{"tool": "save_note", "args": {"content": "use {braces} and [brackets]"}}',
        [("save_note", {"content": "use {braces} and [brackets]"})],
        "",
        0,
    ),
    # 20. Unicode arguments.
    (
        '{"tool": "save_note", "args": {"content": "позвонить маме 🎉 电话"}}',
        [("save_note", {"content": "позвонить маме 🎉 电话"})],
        "",
        0,
    ),
    # 21. A tool_call fence label.
    (f"```tool_call\n{RJ}\n```", [("add_reminder", RARGS)], "", 0),
    # 22. Prose only.
    ("The capital of France is Paris.", [], "The capital of France is Paris.", 0),
    # 23. JSON data in prose that is not a call stays as text.
    ('Your profile: {"name": "Bob", "age": 3}', [], 'Your profile: {"name": "Bob", "age": 3}', 0),
    # 24. A python fence is code for the user, not a call.
    ('```python\nprint({"tool": "x"})\n```', [], '```python\nprint({"tool": "x"})\n```', 0),
    # 25. A json fence with data, not a call, stays.
    ('```json\n{"temperature": 21}\n```', [], '```json\n{"temperature": 21}\n```', 0),
    # 26. Broken: a missing closing brace, then a good call.
    ('{"tool": "a", "args": {"x": 1}\n{"tool": "b", "args": {}}', [("b", {})], "", 1),
    # 27. Broken: single quotes in a json fence.
    ("```json\n{'tool': 'a', 'args': {}}\n```", [], "", 1),
    # 28. Broken: unquoted keys in a tag.
    ('<tool_call>{name: "a", arguments: {}}</tool_call>', [], "", 1),
    # 29. Broken: a trailing comma.
    ('```json\n{"tool": "a", "args": {"x": 1,}}\n```', [], "", 1),
    # 30. Broken: a tool name that is not a string.
    ('{"tool": 5, "args": {}}', [], "", 1),
    # 31. Broken: an array mixing calls and other things.
    ('[{"tool": "a", "args": {}}, 3]', [], "", 1),
    # 32. Broken: a raw line break inside a string.
    ('{"tool": "save_note", "args": {"content": "line one\nline two"}}', [], 'line two"}}', 1),
    # 33. Broken: an empty tool name.
    ('{"tool": "  ", "args": {}}', [], "", 1),
    # 34. A call preceded by a think block of prose.
    (
        "Thinking: the user wants a reminder.\n\n" + RJ,
        [("add_reminder", RARGS)],
        "Thinking: the user wants a reminder.",
        0,
    ),
    # 35. JSON key "name" in prose that is not an object start.
    ('He said "name": fine.', [], 'He said "name": fine.', 0),
    # 36. Whitespace inside the opening.
    ('[ \n { "tool" : "list_tasks" } ]', [("list_tasks", {})], "", 0),
]


@pytest.mark.parametrize(
    ("reply", "calls", "prose", "broken"), CASES, ids=[str(i + 1) for i in range(len(CASES))]
)
def test_reply_shapes(reply: str, calls: list[tuple[str, object]], prose: str, broken: int) -> None:
    result = extract_tool_calls(reply)
    assert [(c.name, c.arguments) for c in result.calls] == calls
    assert result.text == prose
    assert len(result.broken) == broken
    assert [c.id for c in result.calls] == [f"call_{i + 1}" for i in range(len(calls))]


def test_broken_reports_reason_and_offset() -> None:
    reply = 'Ok: {"tool": "a", "args": {"x": 1}'
    (bad,) = extract_tool_calls(reply).broken
    assert bad.offset == reply.index("{")
    assert "not valid JSON" in bad.reason
    assert bad.snippet.startswith('{"tool": "a"')


def test_json_but_not_a_call_in_tool_fence_is_broken() -> None:
    (bad,) = extract_tool_calls('```tool_call\n{"temperature": 21}\n```').broken
    assert "not a tool call" in bad.reason


ADVERSARIAL = {
    "deep nesting 10,000 levels": "[" * 10_000 + "]" * 10_000,
    "deep call nesting": '{"tool": ' * 10_000 + "1" + "}" * 10_000,
    "deep args nesting": '{"tool": "a", "args": ' + '{"a": ' * 10_000 + "1" + "}" * 10_001,
    "unclosed braces": "{" * 200_000,
    "unclosed call starts": '{"tool": "a", ' * 20_000,
    "quote junk": '{"' * 100_000,
    "thousand fences": "```json\n" * 1_000,
    "thousand closed fences": f"```json\n{T}\n```\n" * 1_000,
    "unclosed tag": "<tool_call>{" * 10_000,
    "megabyte of junk": (bytes(range(256)).decode("latin-1") * 4096),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_inputs_neither_crash_nor_hang(name: str) -> None:
    result = extract_tool_calls(ADVERSARIAL[name])
    assert len(result.calls) <= MAX_CALLS
    assert len(result.broken) <= MAX_BROKEN + 1


def test_deep_call_nesting_is_reported_broken() -> None:
    result = extract_tool_calls(ADVERSARIAL["deep args nesting"])
    assert result.calls == ()
    assert "nested too deeply" in result.broken[0].reason


def test_good_call_after_deep_junk_in_its_own_fence_is_found() -> None:
    reply = '{"tool": ' * 5_000 + "\n```json\n" + T + "\n```"
    result = extract_tool_calls(reply)
    assert [c.name for c in result.calls] == ["get_current_time"]
    assert len(result.broken) == 1


def test_too_many_broken_attempts_stop_reading() -> None:
    reply = '{"tool": "a", "args": {}\n' * 100
    result = extract_tool_calls(reply)
    assert len(result.broken) == MAX_BROKEN + 1
    assert "not read" in result.broken[-1].reason


def test_too_many_calls_are_reported_not_dropped_silently() -> None:
    result = extract_tool_calls("\n".join([T] * (MAX_CALLS + 5)))
    assert len(result.calls) == MAX_CALLS
    (stop,) = result.broken
    assert f"more than {MAX_CALLS}" in stop.reason and "not read" in stop.reason


def test_an_array_past_the_call_limit_is_reported() -> None:
    result = extract_tool_calls("[" + ", ".join([T] * (MAX_CALLS + 1)) + "]")
    assert len(result.calls) == MAX_CALLS
    assert f"more than {MAX_CALLS} tool calls" in result.broken[0].reason


async def test_large_replies_are_read_off_the_event_loop() -> None:
    import asyncio

    from assistant.llm.textcalls import THREAD_THRESHOLD, read_tool_calls

    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = ticks
    small = await read_tool_calls(T)
    assert ticks == before  # small replies are read inline: nothing else ran
    big = await read_tool_calls(T + " " * THREAD_THRESHOLD)
    assert ticks > before  # the loop kept serving other work while the big one was read
    task.cancel()
    assert small.calls[0].name == big.calls[0].name == "get_current_time"


def test_a_wrapper_marker_inside_an_argument_is_data_and_kept() -> None:
    call = '{"tool": "note", "args": {"<|call|>": "ends with <|im_end|>"}}'
    for reply in (f" {call} <|im_end|>", f"```json\n{call}\n```\n<|im_end|>"):
        result = extract_tool_calls(reply)
        assert [(c.name, c.arguments) for c in result.calls] == [
            ("note", {"<|call|>": "ends with <|im_end|>"})
        ]
        assert "<|im_end|>" not in result.text.replace("ends with <|im_end|>", "")
