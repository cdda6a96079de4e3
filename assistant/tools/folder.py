"""Your own tools: each ``*.py`` file of the configured folder, with ``@tool`` functions in it.

A file that does not load is left out, with the file and line of what went wrong; it never
stops the assistant."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType

from assistant.tools.tool import Tool

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
PACKAGE = "assistant_own_tools"  # the modules' names: never a real package's


@dataclass(frozen=True)
class Problem:
    """Why a file, or a tool in it, was left out."""

    file: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Folder:
    """What a folder gave: its tools, and what was left out."""

    path: Path
    tools: tuple[Tool, ...] = ()
    problems: tuple[Problem, ...] = ()


def load_folder(path: Path, taken: Collection[str]) -> Folder:
    """Load every ``*.py`` of ``path`` in name order; ``taken`` are names already in use."""
    if not path.is_dir():
        return Folder(path, problems=(Problem(path, 0, "no such folder"),))
    tools: list[Tool] = []
    problems: list[Problem] = []
    names = set(taken)
    for file in sorted(path.glob("*.py")):
        found, trouble = _load(file)
        problems.extend(trouble)
        for item in found:
            if item.name in names:
                line = _line(item)
                problems.append(Problem(file, line, f"a tool named {item.name!r} already exists"))
                continue
            names.add(item.name)
            tools.append(item)
    return Folder(path, tuple(tools), tuple(problems))


def _load(file: Path) -> tuple[list[Tool], list[Problem]]:
    digest = hashlib.sha256(str(file.resolve()).encode()).hexdigest()[:8]
    stem = re.sub(r"\W", "_", file.stem)
    name = f"{PACKAGE}.{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        return [], [Problem(file, 0, "cannot be loaded as Python")]
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[name]
        return [], [Problem(file, exc.lineno or 0, f"syntax error: {exc.msg}")]
    except (Exception, SystemExit) as exc:
        del sys.modules[name]
        return [], [Problem(file, _failed_line(file, exc), f"{type(exc).__name__}: {exc}")]
    return _tools_of(module, file)


def _tools_of(module: ModuleType, file: Path) -> tuple[list[Tool], list[Problem]]:
    tools, problems = [], []
    for value in vars(module).values():
        if not isinstance(value, Tool) or value.fn.__module__ != module.__name__:
            continue  # imported from elsewhere: not this file's
        if not _NAME.fullmatch(value.name):
            message = f"tool name {value.name!r}: use 1 to 64 letters, digits, '_' or '-'"
            problems.append(Problem(file, _line(value), message))
            continue
        tools.append(replace(value, origin=f"{file.name}:{_line(value)}"))
    return tools, problems


def _line(item: Tool) -> int:
    fn = getattr(item.fn, "__wrapped__", item.fn)
    code = getattr(fn, "__code__", None)
    return code.co_firstlineno if code is not None else 0


def _failed_line(file: Path, exc: BaseException) -> int:
    """The line of ``file`` the error came from: the last frame of the file in its traceback."""
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == file]
    return (lines[-1] or 0) if lines else 0
