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


@pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed beside python")
def test_an_upward_import_breaks_the_layers_contract(tree: Path) -> None:
    assert lint(tree).returncode == 0
    db = tree / "assistant" / "db.py"
    db.write_text(db.read_text() + "\nimport assistant.tools  # noqa\n")
    result = lint(tree)
    assert result.returncode != 0
    assert "Layers of the design BROKEN" in result.stdout


@pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed beside python")
def test_siblings_may_not_import_each_other(tree: Path) -> None:
    engine = tree / "assistant" / "scheduler" / "engine.py"
    engine.write_text(engine.read_text() + "\nimport assistant.memory.audit  # noqa\n")
    result = lint(tree)
    assert result.returncode != 0 and "Layers of the design BROKEN" in result.stdout


@pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed beside python")
def test_the_schedule_language_imports_neither_other_room(tree: Path) -> None:
    parse = tree / "assistant" / "schedules" / "parse.py"
    parse.write_text(parse.read_text() + "\nimport assistant.tasks.task  # noqa\n")
    result = lint(tree)
    assert result.returncode != 0 and "Three rooms for scheduling" in result.stdout
