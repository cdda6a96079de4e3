"""The import-linter contracts catch a layer violation (so the gate in CI can fail)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT), "--no-cache"],
        cwd=tree,
        env=env,
        text=True,
        capture_output=True,
        check=False,
        timeout=120,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "assistant", tmp_path / "assistant", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def broken_by(tree: Path, module: str, imported: str) -> str:
    """What import-linter says once ``module`` (a path under assistant/) imports ``imported``."""
    path = tree / "assistant" / module
    path.write_text(path.read_text() + f"\nimport {imported}  # noqa\n")
    result = lint(tree)
    assert result.returncode != 0
    return result.stdout


needs_lint = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed")


@needs_lint
def test_an_upward_import_breaks_the_layers_contract(tree: Path) -> None:
    assert lint(tree).returncode == 0
    assert "Layers of the design BROKEN" in broken_by(tree, "db.py", "assistant.tools")


@needs_lint
def test_siblings_may_not_import_each_other(tree: Path) -> None:
    said = broken_by(tree, "scheduler/engine.py", "assistant.memory.audit")
    assert "Layers of the design BROKEN" in said


@needs_lint
def test_the_schedule_language_imports_neither_other_room(tree: Path) -> None:
    said = broken_by(tree, "schedules/parse.py", "assistant.tasks.task")
    assert "Three rooms for scheduling" in said and "BROKEN" in said


def _cycles(graph) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_itself_through_others() -> None:
    import grimp

    assert _cycles(grimp.build_graph("assistant")) == []
