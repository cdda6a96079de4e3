"""What a config value must be, in the words of the person who edits the file: "a list of
numbers, e.g. [123456789]" rather than pydantic's "input should be a valid tuple"."""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

_SCALARS: Mapping[Any, tuple[str, str, str]] = {
    # the type: (one, many, an example)
    bool: ("true or false", "true or false values", "true"),
    int: ("a whole number", "numbers", "123456789"),
    float: ("a number", "numbers", "2.5"),
    str: ("text in quotes", "texts in quotes", '"example"'),
}


def wanted(root: type[BaseModel], loc: Sequence[Any]) -> str | None:
    """What the value at ``loc`` must be, or None when its type is not known here."""
    annotation = _at(root, loc)
    if annotation is None:
        return None
    if annotation in _SCALARS and (default := _default(root, loc)) is not None:
        return f"{_SCALARS[annotation][0]}, e.g. {default}"
    return _words(annotation)


def section_at(root: type[BaseModel], loc: Sequence[Any]) -> type[BaseModel] | None:
    """The table the keys at ``loc`` belong to (``llm.prices.MODEL`` is a price's), or None
    when ``loc`` is no table of the config."""
    annotation = _at(root, loc)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _default(root: type[BaseModel], loc: Sequence[Any]) -> str | None:
    """The field's default as the file writes it, when ``loc`` names a field that has one."""
    parent = _at(root, loc[:-1])
    if not (isinstance(parent, type) and issubclass(parent, BaseModel)):
        return None
    field = parent.model_fields.get(str(loc[-1]))
    value = None if field is None else field.default
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    return f'"{value}"' if isinstance(value, str) and value else None


def _at(root: type[BaseModel], loc: Sequence[Any]) -> Any:
    annotation: Any = root
    for part in loc:
        annotation = _plain(annotation)
        origin = get_origin(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(str(part))
            if field is None:
                return None
            annotation = field.annotation
        elif origin in (tuple, list):
            annotation = get_args(annotation)[0]
        elif origin in (dict, Mapping):
            annotation = get_args(annotation)[1]
        else:
            return None
    return _plain(annotation)


def _plain(annotation: Any) -> Any:
    """The type under ``Annotated`` and ``| None``."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            annotation = next(a for a in get_args(annotation) if a is not type(None))
        else:
            return annotation


def _words(annotation: Any) -> str | None:
    origin = get_origin(annotation)
    if annotation in _SCALARS:
        one, _, example = _SCALARS[annotation]
        return f"{one}, e.g. {example}"
    if origin is Literal:
        return "one of " + ", ".join(
            f'"{v}"' if isinstance(v, str) else str(v) for v in get_args(annotation)
        )
    if origin in (tuple, list):
        item = _plain(get_args(annotation)[0])
        _, many, example = _SCALARS.get(item, ("", "values", ""))
        return f"a list of {many}, e.g. [{example}]"
    if origin in (dict, Mapping) or (
        isinstance(annotation, type) and issubclass(annotation, BaseModel)
    ):
        return "a table, e.g. { key = value }"
    return None
