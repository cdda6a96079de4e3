"""Every validation rule for a model's tool call."""

from __future__ import annotations

import pytest

from assistant.errors import ToolArgumentError, UnknownToolError
from assistant.llm.types import ToolCall
from assistant.tools import Registry, validate
from tests.tools_fixtures import Window, add_reminder, plan, search_memory

REGISTRY = Registry([add_reminder, search_memory, plan])


def check(name: str, arguments: object):
    return validate(ToolCall("c1", name, arguments), REGISTRY)


def test_valid_call_gets_defaults_injected() -> None:
    valid = check("search_memory", {"query": "tea"})
    assert dict(valid.arguments) == {"query": "tea", "limit": 5, "scope": "chat"}
    assert valid.dropped == ()


def test_unknown_tool() -> None:
    with pytest.raises(UnknownToolError, match="Did you mean 'search_memory'"):
        check("search_memroy", {})


def test_arguments_double_encoded_as_json_string_are_decoded() -> None:
    valid = check("add_reminder", '{"delay": "5m", "message": "tea"}')
    assert dict(valid.arguments) == {"delay": "5m", "message": "tea"}


@pytest.mark.parametrize("raw", [None, "", "  "])
def test_no_arguments_mean_an_empty_object(raw: object) -> None:
    assert dict(check("search_memory", {"query": "x"}).arguments)["limit"] == 5
    with pytest.raises(ToolArgumentError, match="argument 'query' is required"):
        check("search_memory", raw)


@pytest.mark.parametrize(("raw", "kind"), [([1, 2], "array"), (5, "integer"), (True, "boolean")])
def test_arguments_must_be_an_object(raw: object, kind: str) -> None:
    with pytest.raises(ToolArgumentError, match=f"must be a JSON object, got {kind}"):
        check("add_reminder", raw)


def test_string_that_is_not_json_is_refused() -> None:
    with pytest.raises(ToolArgumentError, match="not JSON"):
        check("add_reminder", "delay=5m")


def test_required_arguments_are_named_with_their_type() -> None:
    with pytest.raises(ToolArgumentError) as info:
        check("add_reminder", {"delay": "5m"})
    message = str(info.value)
    assert "argument 'message' is required (string)" in message
    assert "Expected: add_reminder(delay: str, message: str)" in message


def test_bool_is_not_an_int() -> None:
    with pytest.raises(ToolArgumentError, match="argument 'limit': .*integer, got boolean true"):
        check("search_memory", {"query": "x", "limit": True})


def test_string_is_not_a_number() -> None:
    with pytest.raises(ToolArgumentError, match="argument 'limit': .*got string \"5\""):
        check("search_memory", {"query": "x", "limit": "5"})
    with pytest.raises(ToolArgumentError, match="argument 'weight'"):
        check("plan", {"title": "t", "tags": [], "weight": "1.5"})


def test_int_is_accepted_for_float() -> None:
    valid = check("plan", {"title": "t", "tags": [], "weight": 2})
    assert valid.arguments["weight"] == 2.0 and isinstance(valid.arguments["weight"], float)


def test_number_is_not_a_string() -> None:
    with pytest.raises(ToolArgumentError, match="argument 'delay': .*string, got integer 5"):
        check("add_reminder", {"delay": 5, "message": "x"})


def test_literal_values_are_enforced() -> None:
    with pytest.raises(ToolArgumentError, match="argument 'scope': .*'chat' or 'all'"):
        check("search_memory", {"query": "x", "scope": "everything"})


def test_list_items_and_nested_models_are_checked_with_paths() -> None:
    with pytest.raises(ToolArgumentError, match=r"argument 'tags\[1\]'"):
        check("plan", {"title": "t", "tags": ["a", 2]})
    with pytest.raises(ToolArgumentError, match=r"argument 'window.start' is required"):
        check("plan", {"title": "t", "tags": [], "window": {"minutes": 5}})
    valid = check("plan", {"title": "t", "tags": [], "window": {"start": "9:00"}})
    assert valid.arguments["window"] == Window(start="9:00", minutes=30)
    assert valid.json_arguments["window"] == {"start": "9:00", "minutes": 30}


def test_unknown_arguments_are_dropped_and_recorded() -> None:
    valid = check("add_reminder", {"delay": "5m", "message": "x", "priority": 1, "color": "red"})
    assert dict(valid.arguments) == {"delay": "5m", "message": "x"}
    assert valid.dropped == ("color", "priority")


def test_all_problems_are_listed_at_once() -> None:
    with pytest.raises(ToolArgumentError) as info:
        check("plan", {"title": 1, "tags": "a"})
    assert "argument 'title'" in str(info.value) and "argument 'tags'" in str(info.value)
