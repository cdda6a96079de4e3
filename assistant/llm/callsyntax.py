"""The call syntaxes of open models that are not JSON, read into ``(name, arguments)`` pairs.

Python calls (``[f(a=1)]``, or one per line) are parsed with ``ast`` and their arguments read
as literals, never evaluated. XML-like and key-value arguments are split with ``str`` searches,
so every reader is linear in what it reads. A value that is not an object or an array stays
text: the tool's argument schema converts "3" to 3 where a number is wanted.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

MAX_PYTHON = 16 * 1024
_MAX_DEPTH = 32
_JSON_NAMES = {"true": True, "false": False, "null": None}
_NAME = re.compile(r"(?:functions\.)?([A-Za-z_][\w.\-]{0,127}?)(?::\d+)?")
_GEMMA_TOKEN = re.compile(r"[{}\[\],:]|[^{}\[\],:]+")
_FENCED = re.compile(r"```[A-Za-z]*+\s*+(.*?)\s*+```", re.S)


@dataclass(frozen=True)
class Broken:
    """Why a call written in some syntax could not be read."""

    reason: str


Calls = list[tuple[str, Any]]
Parsed = Calls | Broken


def tool_name(raw: str) -> str | None:
    """A tool name as models write it (``functions.get_weather:0`` → ``get_weather``)."""
    match = _NAME.fullmatch(raw.strip())
    return match.group(1) if match else None


def scalar(raw: str) -> Any:
    """An argument value written as bare text: objects and arrays decoded, the rest text."""
    value = raw.strip()
    if value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return value
    return value


def json_arguments(raw: str) -> Any | Broken:
    """Arguments written as JSON after a tool name, perhaps in a fence."""
    text = raw.strip()
    fenced = _FENCED.fullmatch(text)
    if fenced:
        text = fenced.group(1)
    if not text:
        return Broken("the arguments are missing: write {} for none")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        return Broken(f"the arguments are not valid JSON: {exc.msg}")
    except RecursionError:
        return Broken("the arguments are nested too deeply")


def named(raw_name: str, arguments: Any | Broken) -> Parsed:
    """One call from a written name and its arguments."""
    if isinstance(arguments, Broken):
        return arguments
    name = tool_name(raw_name)
    if name is None:
        return Broken(f"{raw_name.strip()[:40]!r} is not a tool name")
    return [(name, arguments)]


def python_calls(source: str) -> Parsed:
    """Calls in Python syntax: ``[f(a=1), g(b='x')]`` or one call per line."""
    if len(source) > MAX_PYTHON:
        return Broken(f"longer than {MAX_PYTHON} characters")
    try:
        module = ast.parse(source.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Broken("not a valid call: write name(argument=value, ...)")
    nodes: list[ast.expr] = []
    for statement in module.body:
        if not isinstance(statement, ast.Expr):
            return Broken("only calls may be written: name(argument=value, ...)")
        value = statement.value
        nodes.extend(value.elts if isinstance(value, ast.List | ast.Tuple) else [value])
    calls: Calls = []
    for node in nodes:
        call = _python_call(node)
        if isinstance(call, Broken):
            return call
        calls.append(call)
    return calls or Broken("no call was written")


def _python_call(node: ast.expr) -> tuple[str, Any] | Broken:
    if not isinstance(node, ast.Call):
        return Broken("only calls may be written: name(argument=value, ...)")
    name = tool_name(ast.unparse(node.func))
    if name is None:
        return Broken("the called name is not a tool name")
    if node.args or any(keyword.arg is None for keyword in node.keywords):
        return Broken(f"write each argument of {name} by name, like {name}(city='Paris')")
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        try:
            arguments[str(keyword.arg)] = _literal(keyword.value, 0)
        except (ValueError, TypeError, RecursionError):
            return Broken(f"the argument {keyword.arg} of {name} is not a plain value")
    return name, arguments


def _literal(node: ast.expr, depth: int) -> Any:
    """A literal, with JSON's true/false/null read as Python's."""
    if depth > _MAX_DEPTH:
        raise ValueError("too deep")
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise ValueError("** in a dict")
        return {
            _literal(key, depth + 1): _literal(value, depth + 1)  # type: ignore[arg-type]
            for key, value in zip(node.keys, node.values, strict=True)
        }
    return ast.literal_eval(node)


def xml_calls(segment: str) -> Parsed:
    """Qwen3-Coder and Seed-OSS: ``<function=f><parameter=a>1</parameter></function>``."""
    parts = segment.split("<function=")[1:]
    if not parts:
        return Broken("expected <function=NAME> in the block")
    calls: Calls = []
    for part in parts:
        gt = part.find(">")
        if gt < 0 or "\n" in part[:gt]:
            return Broken("the function name is not closed with '>'")
        body = part[gt + 1 :].split("</function>", 1)[0]
        arguments = _parameters(body, "<parameter=", "</parameter>")
        if isinstance(arguments, Broken):
            return arguments
        one = named(part[:gt], arguments)
        if isinstance(one, Broken):
            return one
        calls.extend(one)
    return calls


def invoke_calls(segment: str) -> Parsed:
    """MiniMax-M2 and Step-3: ``<invoke name="f"><parameter name="a">1</parameter></invoke>``."""
    parts = segment.replace("steptml:", "").split("<invoke name=")[1:]
    if not parts:
        return Broken('expected <invoke name="NAME"> in the block')
    calls: Calls = []
    for part in parts:
        gt = part.find(">")
        if gt < 0:
            return Broken("the invoke tag is not closed with '>'")
        body = part[gt + 1 :].split("</invoke>", 1)[0]
        arguments = _parameters(body, "<parameter name=", "</parameter>")
        if isinstance(arguments, Broken):
            return arguments
        one = named(part[:gt].strip("\"' "), arguments)
        if isinstance(one, Broken):
            return one
        calls.extend(one)
    return calls


def _parameters(body: str, opener: str, closer: str) -> dict[str, Any] | Broken:
    """The parameters of one call; text between them is an error, not something to skip.

    A missing closer before the next parameter is tolerated, as the formats' own parsers do;
    after the last one it means the value was cut off.
    """
    head, *pieces = body.split(opener)
    arguments: dict[str, Any] = {}
    for index, piece in enumerate(pieces, 1):
        gt = piece.find(">")
        if gt < 0:
            return Broken("a parameter name is not closed with '>'")
        value, closed, after = piece[gt + 1 :].partition(closer)
        if not closed and index == len(pieces):
            return Broken(f"the last parameter is not closed with {closer}")
        head += after
        arguments[piece[:gt].strip("\"' ")] = scalar(value)
    if head.strip():
        return Broken(f"only parameters may stand in a call, found {head.strip()[:40]!r}")
    return arguments


def key_value_call(content: str) -> Parsed:
    """GLM-4.5: ``name<arg_key>a</arg_key><arg_value>1</arg_value>``."""
    name, *pieces = content.split("<arg_key>")
    arguments: dict[str, Any] = {}
    for piece in pieces:
        key, sep, rest = piece.partition("</arg_key>")
        start, end = rest.find("<arg_value>"), rest.find("</arg_value>")
        if not sep or start < 0 or end < start:
            return Broken("each <arg_key> needs its </arg_key> and an <arg_value>…</arg_value>")
        arguments[key.strip()] = scalar(rest[start + len("<arg_value>") : end])
    return named(name, arguments)


def gemma_call(content: str) -> Parsed:
    """FunctionGemma: ``call:name{key:<escape>text<escape>,n:1}``."""
    head, brace, body = content.strip().partition("{")
    if not head.startswith("call:"):
        return Broken("expected call:NAME{...}")
    if not brace:
        return named(head[5:], {})
    try:
        tokens = _gemma_tokens(brace + body)
        value, used = _gemma_value(tokens, 0, 0)
    except _Bad as exc:
        return Broken(f"the arguments cannot be read: {exc}")
    if used != len(tokens) or not isinstance(value, dict):
        return Broken("the arguments must be one {key:value,...} object")
    return named(head[5:], value)


class _Bad(Exception):
    """A FunctionGemma argument list that cannot be read."""


def _gemma_tokens(body: str) -> list[tuple[str, str]]:
    parts = body.split("<escape>")
    if len(parts) % 2 == 0:
        raise _Bad("an <escape> string is not closed")
    tokens: list[tuple[str, str]] = []
    for index, part in enumerate(parts):
        if index % 2:
            tokens.append(("text", part))
            continue
        for match in _GEMMA_TOKEN.finditer(part):
            token = match.group().strip()
            if token:
                tokens.append(("mark" if token in "{}[],:" else "bare", token))
    return tokens


def _gemma_value(tokens: list[tuple[str, str]], i: int, depth: int) -> tuple[Any, int]:
    if i >= len(tokens) or depth > _MAX_DEPTH:
        raise _Bad("the arguments end too early" if i >= len(tokens) else "nested too deeply")
    kind, token = tokens[i]
    if kind == "text":
        return token, i + 1
    if kind == "bare":
        return _JSON_NAMES.get(token, _number(token)), i + 1
    if token not in "{[":
        raise _Bad(f"unexpected {token!r}")
    closer = "}" if token == "{" else "]"
    out: dict[str, Any] | list[Any] = {} if token == "{" else []
    i += 1
    while i < len(tokens) and tokens[i] != ("mark", closer):
        if isinstance(out, dict):
            key, i = _gemma_value(tokens, i, depth + 1)
            if tokens[i : i + 1] != [("mark", ":")]:
                raise _Bad("expected ':' after a key")
            out[str(key)], i = _gemma_value(tokens, i + 1, depth + 1)
        else:
            item, i = _gemma_value(tokens, i, depth + 1)
            out.append(item)
        if tokens[i : i + 1] == [("mark", ",")]:
            i += 1
    if i >= len(tokens):
        raise _Bad(f"expected {closer!r}")
    return out, i + 1


def _number(token: str) -> Any:
    try:
        return json.loads(token) if token[:1] in "-0123456789" else token
    except json.JSONDecodeError:
        return token


_PY_TOKENS = re.compile(r"""[^\[\](){}'"]++|'(?:[^'\\\n]|\\.)*+'|"(?:[^"\\\n]|\\.)*+"|.""", re.S)


def balanced_end(text: str, bracket: int, limit: int) -> int:
    """Where the bracket at ``bracket`` is closed (after it), or -1 if not before ``limit``."""
    depth = 0
    for token in _PY_TOKENS.finditer(text, bracket, limit):
        char = token.group()
        if char in ("[", "(", "{"):
            depth += 1
        elif char in ("]", ")", "}"):
            depth -= 1
            if depth == 0:
                return token.end()
        elif char in ("'", '"'):
            return -1  # a string that does not close on its line
    return -1
