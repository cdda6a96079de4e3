"""Arguments checked against a JSON schema: an outside tool's, as its server declares it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

from assistant.errors import ToolArgumentError

MAX_PROBLEMS = 3
_DROPPED_KEYS = ("title", "$schema", "$id")


@dataclass(frozen=True)
class SchemaArguments:
    """A server's input schema and its validator."""

    schema: Mapping[str, Any]
    validator: Any = field(repr=False, compare=False)

    @classmethod
    def of(cls, schema: Mapping[str, Any]) -> SchemaArguments:
        """The checker of ``schema``; a schema that is not one raises ValueError."""
        if schema.get("type", "object") != "object":
            raise ValueError("the input schema does not describe an object")
        schema = dict(schema)
        kind = validator_for(schema, default=Draft202012Validator)
        try:
            kind.check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"the input schema is not valid: {exc.message}") from None
        return cls(schema, kind(schema))

    def shown(self) -> dict[str, Any]:
        """The schema as models are shown it: an object, with properties and required."""
        shown = {k: v for k, v in self.schema.items() if k not in _DROPPED_KEYS}
        shown["type"] = "object"
        shown.setdefault("properties", {})
        return shown

    def check(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments, when the schema takes them; else an error naming each field."""
        errors = sorted(self.validator.iter_errors(dict(arguments)), key=_where)
        if errors:
            problems = "; ".join(_problem(e) for e in errors[:MAX_PROBLEMS])
            raise ToolArgumentError(
                f"Invalid arguments for {tool}: {problems}. Expected: {self.call_form(tool)}"
            )
        return dict(arguments)

    def call_form(self, tool: str) -> str:
        """``name(a: string, b: integer = 3)``, from the schema."""
        properties = self.schema.get("properties", {})
        required = set(self.schema.get("required", ()))
        parts = []
        for name, spec in properties.items() if isinstance(properties, Mapping) else ():
            part = f"{name}: {_type(spec)}"
            if name not in required:
                default = spec.get("default") if isinstance(spec, Mapping) else None
                part += f" = {default!r}" if default is not None else "?"
            parts.append(part)
        return f"{tool}({', '.join(parts)})"


def _where(error: ValidationError) -> str:
    return "/".join(str(p) for p in error.absolute_path)


def _problem(error: ValidationError) -> str:
    path = list(error.absolute_path)
    wanted = error.validator_value
    if error.validator == "required" and isinstance(error.instance, Mapping):
        names = wanted if isinstance(wanted, list) else []
        missing = next((r for r in names if r not in error.instance), "?")
        path.append(missing)
        return f"argument '{_dotted(path)}' is required"
    if not path:
        return _short(error.message)
    return f"argument '{_dotted(path)}': {_short(error.message)}"


def _dotted(path: list[Any]) -> str:
    text = str(path[0])
    for part in path[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _short(message: str) -> str:
    return message if len(message) <= 160 else message[:157] + "..."


def _type(spec: Any) -> str:
    if not isinstance(spec, Mapping):
        return "any"
    if "enum" in spec and isinstance(spec["enum"], list):
        return " | ".join(f'"{v}"' if isinstance(v, str) else repr(v) for v in spec["enum"])
    kind = spec.get("type", "any")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(spec.get("items"), Mapping):
        return f"array[{_type(spec['items'])}]"
    return str(kind)
