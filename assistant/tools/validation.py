"""Checking a model's tool call against the registry, with errors the model can act on."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from assistant.errors import ToolArgumentError
from assistant.llm.types import ToolCall
from assistant.tools.registry import Registry
from assistant.tools.tool import Tool

_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


@dataclass(frozen=True)
class ValidCall:
    """A call that passed validation: its tool, typed arguments and dropped unknown names."""

    call: ToolCall
    tool: Tool
    arguments: Mapping[str, Any]
    json_arguments: Mapping[str, Any]
    dropped: tuple[str, ...] = ()
    approver: int | None = None  # who approved it, when it needed approval


MAX_DEPTH = 32
MAX_SIZE = 200_000  # characters of strings and keys, and one per value


def unencodable(text: str) -> str:
    """What in ``text`` cannot be stored or sent (a lone surrogate, which JSON allows as
    "\\ud800"), or "" when it is all valid."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate, {text[exc.start]!r}, at character {exc.start + 1}"
    return ""


def out_of_bounds(value: object) -> str | None:
    """Why arguments are too deep or too big to take, or None; iterative, so any depth is safe."""
    stack: list[tuple[object, int]] = [(value, 1)]
    size = 0
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"they are nested deeper than {MAX_DEPTH} levels"
        size += len(item) if isinstance(item, str) else 1
        if size > MAX_SIZE:
            return f"they are larger than {MAX_SIZE:,} characters"
        if isinstance(item, str) and (bad := unencodable(item)):
            return f"they hold text that is not valid Unicode ({bad}); send the text again"
        if isinstance(item, Mapping):
            size += sum(len(str(key)) for key in item)
            stack.extend((str(key), depth + 1) for key in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
    return None


def validate(call: ToolCall, registry: Registry) -> ValidCall:
    """Return the call with strictly validated arguments, or raise a model-facing error."""
    tool = registry.require(call.name)
    if problem := out_of_bounds(call.arguments):
        raise ToolArgumentError(f"The arguments for {tool.name} are refused: {problem}.")
    arguments = _as_object(tool, call.arguments)
    if tool.schema_arguments is not None:
        checked = tool.schema_arguments.check(tool.name, arguments)
        return ValidCall(call, tool, checked, checked)
    known = tool.arguments_model.model_fields
    dropped = tuple(sorted(name for name in arguments if name not in known))
    try:
        model = tool.arguments_model.model_validate(arguments)
    except ValidationError as exc:
        raise ToolArgumentError(_explain(tool, exc)) from None
    values = {name: getattr(model, name) for name in known}
    return ValidCall(call, tool, values, model.model_dump(mode="json"), dropped)


def _as_object(tool: Tool, raw: Any) -> dict[str, Any]:
    """Accept an object, ``null`` for no arguments, or an object double-encoded as a string."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return {}
        try:
            raw = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise ToolArgumentError(
                f"Arguments for {tool.name} must be a JSON object; got a string that is not JSON."
                f" Expected: {tool.signature()}"
            ) from None
    if not isinstance(raw, dict):
        raise ToolArgumentError(
            f"Arguments for {tool.name} must be a JSON object, got {_json_type(raw)}."
            f" Expected: {tool.signature()}"
        )
    return raw


def _explain(tool: Tool, exc: ValidationError) -> str:
    problems = [_problem(tool, err) for err in exc.errors(include_url=False)]
    return f"Invalid arguments for {tool.name}: {'; '.join(problems)}. Expected: {tool.signature()}"


def _problem(tool: Tool, err: Any) -> str:
    loc = err["loc"]
    where = _location(loc)
    if err["type"] == "missing":
        kind = tool.parameters.get("properties", {}).get(str(loc[0]), {}).get("type", "a value")
        return f"{where} is required ({kind})" if len(loc) == 1 else f"{where} is required"
    got = err.get("input")
    return f"{where}: {_lower_first(err['msg'])}, got {_json_type(got)} {_preview(got)}"


def _location(loc: tuple[Any, ...]) -> str:
    path = str(loc[0])
    for part in loc[1:]:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return f"argument '{path}'"


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _preview(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]
