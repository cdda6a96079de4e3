"""JSON schemas for tools, made from a function's signature and docstring."""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, create_model

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$")
_OTHER_SECTION = re.compile(r"^\s*(Returns?|Raises|Yields|Examples?|Notes?|Attributes)\s*:\s*$")
_GOOGLE_PARAM = re.compile(r"^(\s*)(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_SPHINX_OTHER = re.compile(r"^\s*:(?!param\b)\w+")


@dataclass(frozen=True)
class Docstring:
    """A docstring's first paragraph and its per-parameter descriptions."""

    summary: str
    params: dict[str, str]


def parse_docstring(doc: str | None) -> Docstring:
    """Read the summary and parameter docs of a Google- or Sphinx-style docstring."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line) or line.lstrip().startswith(":"):
            break
        summary.append(line.strip())
    params = _google_params(lines) or _sphinx_params(lines)
    return Docstring(" ".join(summary), params)


def _google_params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    inside, indent, current = False, -1, ""
    for line in lines:
        if _SECTION.match(line):
            inside, indent = True, -1
            continue
        if not inside:
            continue
        if _OTHER_SECTION.match(line) or (line.strip() and not line[:1].isspace()):
            inside = False
            continue
        match = _GOOGLE_PARAM.match(line)
        if match and (indent < 0 or len(match.group(1)) <= indent):
            indent, current = len(match.group(1)), match.group(2).lstrip("*")
            params[current] = match.group(3).strip()
        elif current and line.strip():
            params[current] = f"{params[current]} {line.strip()}".strip()
    return params


def _sphinx_params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    current = ""
    for line in lines:
        if match := _SPHINX_PARAM.match(line):
            current = match.group(1)
            params[current] = match.group(2).strip()
        elif _SPHINX_OTHER.match(line) or not line.strip():
            current = ""
        elif current:
            params[current] = f"{params[current]} {line.strip()}"
    return params


@dataclass(frozen=True)
class Signature:
    """What a tool function asks of the model, and where the call context goes."""

    model: type[BaseModel]
    schema: dict[str, Any]
    annotations: dict[str, Any]
    context_param: str | None


class _Arguments(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", arbitrary_types_allowed=False)


def read_signature(fn: Callable[..., Any], context_type: type, docs: Docstring) -> Signature:
    """Build the strict argument model and the JSON schema of ``fn``'s parameters."""
    hints = typing.get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    annotations: dict[str, Any] = {}
    context_param = None
    for name, param in inspect.signature(fn).parameters.items():
        annotation = hints.get(name, Any)
        if annotation is context_type:
            context_param = name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"{fn.__name__}: tools take named parameters, not *{name}")
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (annotation, default)
        annotations[name] = annotation
    model = create_model(f"{fn.__name__}_arguments", __base__=_Arguments, **fields)
    return Signature(model, _clean_schema(model, docs.params), annotations, context_param)


def _clean_schema(model: type[BaseModel], descriptions: dict[str, str]) -> dict[str, Any]:
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema: dict[str, Any] = _simplify(raw, defs)
    for name, text in descriptions.items():
        if name in schema.get("properties", {}):
            schema["properties"][name] = {"description": text, **schema["properties"][name]}
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    return schema


def _simplify(node: Any, defs: dict[str, Any]) -> Any:
    """Inline ``$ref``s, drop titles, and show an optional parameter as its plain type."""
    if isinstance(node, list):
        return [_simplify(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _simplify(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    variants = node.get("anyOf")
    if isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants:
        plain = next(v for v in variants if v != {"type": "null"})
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        return _simplify({**plain, **rest}, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "properties":
            out[key] = {name: _simplify(sub, defs) for name, sub in value.items()}
        else:
            out[key] = _simplify(value, defs)
    return out


def type_name(annotation: Any) -> str:
    """Render an annotation compactly for the text catalogue: ``list[str]``, ``"a" | "b"``."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " | ".join(f'"{a}"' if isinstance(a, str) else repr(a) for a in args)
    if origin in (Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin is not None and args:
        return f"{_plain(origin)}[{', '.join(type_name(a) for a in args)}]"
    return _plain(origin or annotation)


def _plain(annotation: Any) -> str:
    if annotation is type(None):
        return "None"
    if annotation is Any:
        return "any"
    return str(getattr(annotation, "__name__", annotation))
