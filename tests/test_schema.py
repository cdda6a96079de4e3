"""Schemas from signatures and docstrings, and the registry's export formats."""

from __future__ import annotations

import pytest

from assistant.errors import ConfigError, UnknownToolError
from assistant.tools import Registry, tool
from assistant.tools.schema import parse_docstring
from tests.tools_fixtures import add_reminder, plan, search_memory


def test_google_docstring_gives_description_and_params() -> None:
    assert add_reminder.description == "Set a one-time reminder."
    props = add_reminder.parameters["properties"]
    assert props["delay"] == {"description": 'Time delay like "5m", "2h", "1d".', "type": "string"}
    assert props["message"]["description"] == "Reminder text, as the user said it."
    assert add_reminder.parameters["required"] == ["delay", "message"]


def test_sphinx_docstring_defaults_literal_and_context_injection() -> None:
    schema = search_memory.parameters
    assert "context" not in schema["properties"]
    assert search_memory.context_param == "context"
    assert schema["required"] == ["query"]
    assert schema["properties"]["limit"] == {
        "description": "how many results at most",
        "type": "integer",
        "default": 5,
    }
    assert schema["properties"]["scope"]["enum"] == ["chat", "all"]


def test_lists_dicts_nested_models_and_optionals() -> None:
    props = plan.parameters["properties"]
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["window"]["type"] == "object"
    assert props["window"]["properties"]["minutes"] == {"type": "integer", "default": 30}
    assert props["window"]["required"] == ["start"]
    assert props["weight"] == {"type": "number", "default": 1.0}
    assert props["extra"]["additionalProperties"] == {"type": "integer"}
    assert props["urgent"] == {"type": "boolean", "default": False}
    assert "$defs" not in plan.parameters and "title" not in plan.parameters
    assert "title" not in props["window"] and "title" not in props["tags"]
    assert props["title"] == {"type": "string"}  # a parameter named title survives


def test_tool_flags() -> None:
    assert (plan.risk, plan.needs_approval, plan.read_only, plan.timeout) == (
        "high",
        True,
        False,
        3.0,
    )
    assert (search_memory.risk, search_memory.read_only) == ("low", True)
    assert (add_reminder.risk, add_reminder.needs_approval) == ("low", False)


def test_docstring_sections_end_at_other_sections() -> None:
    docs = parse_docstring("""Do it.

    More text here.

    Args:
        a (int): the first.
        b: the second
            continued.

    Returns:
        nothing: really.
    """)
    assert docs.summary == "Do it."
    assert docs.params == {"a": "the first.", "b": "the second continued."}


async def test_a_plain_function_runs_in_a_thread_and_every_tool_is_documented() -> None:
    import threading

    def sync(x: int) -> str:
        """Sync."""
        return f"{x} on {threading.current_thread().name}"

    async def undocumented(x: int) -> int:
        return x

    made = tool(sync)
    assert made.parameters["required"] == ["x"]
    result = await made.fn(x=3)
    assert result.startswith("3 on ") and threading.current_thread().name not in result
    with pytest.raises(TypeError, match="docstring"):
        tool(undocumented)
    with pytest.raises(TypeError, match="function"):
        tool(int)


def test_catalogue_in_seed_form() -> None:
    text = Registry([add_reminder, search_memory]).catalogue()
    assert text.splitlines()[:4] == [
        "add_reminder(delay: str, message: str)",
        "  Set a one-time reminder.",
        '  delay: Time delay like "5m", "2h", "1d".',
        "  message: Reminder text, as the user said it.",
    ]
    assert 'search_memory(query: str, limit: int = 5, scope: "chat" | "all" = \'chat\')' in text


def test_openai_and_anthropic_formats() -> None:
    registry = Registry([add_reminder])
    (openai_tool,) = registry.openai_tools()
    assert openai_tool["type"] == "function"
    assert openai_tool["function"]["name"] == "add_reminder"
    assert openai_tool["function"]["parameters"]["required"] == ["delay", "message"]
    (anthropic_tool,) = registry.anthropic_tools()
    assert set(anthropic_tool) == {"name", "description", "input_schema"}
    assert anthropic_tool["input_schema"] == openai_tool["function"]["parameters"]


def test_allow_and_deny_lists() -> None:
    tools = [add_reminder, search_memory, plan]
    assert Registry(tools, deny=["plan"]).names() == ["add_reminder", "search_memory"]
    assert Registry(tools, allow=["plan"]).names() == ["plan"]
    assert Registry(tools, allow=["plan", "add_reminder"], deny=["plan"]).names() == [
        "add_reminder"
    ]
    assert Registry(tools, deny=["plan"]).get("plan") is None


def test_unknown_names_in_allow_or_deny_fail_at_start() -> None:
    with pytest.raises(ConfigError, match="tools.deny: unknown tool 'pln'"):
        Registry([plan], deny=["pln"])


def test_duplicate_registration_is_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        Registry([plan, plan])


def test_unknown_tool_names_the_closest() -> None:
    with pytest.raises(UnknownToolError) as info:
        Registry([add_reminder, search_memory]).require("add_remindr")
    message = str(info.value)
    assert "'add_remindr'" in message and "Did you mean 'add_reminder'?" in message
    assert "Tools: add_reminder, search_memory." in message


def test_denied_tool_is_unknown_to_the_model() -> None:
    with pytest.raises(UnknownToolError, match="Tools: add_reminder"):
        Registry([add_reminder, plan], deny=["plan"]).require("plan")


def test_subset_keeps_matching_tools() -> None:
    registry = Registry([add_reminder, search_memory, plan])
    assert registry.subset(lambda t: t.read_only).names() == ["search_memory"]
