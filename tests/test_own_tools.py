"""Your own tools from a folder: loaded, listed with their file, run like built-ins; a broken
file is left out with its file and line, and never stops anything."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import fetch

from assistant.app import build_registry
from assistant.app.outside import own_tools
from assistant.config import parse_config
from assistant.llm.types import ToolCall
from assistant.memory.audit import AuditLog
from assistant.tools import Executor
from assistant.tools.folder import load_folder

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "docs" / "tools.d" / "dice.py"


def folder_with(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "tools.d"
    folder.mkdir()
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text)
    return folder


async def test_the_example_folder_tools_run_like_built_ins(tmp_path, conn, clock, context):
    folder = tmp_path / "tools.d"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder)
    config = parse_config({"tools": {"folder": "tools.d"}})
    loaded = own_tools(config, tmp_path)
    assert loaded is not None and loaded.problems == ()
    decorated = [
        n for n, line in enumerate(EXAMPLE.read_text().splitlines(), 1) if line.startswith("@tool")
    ]
    assert [(t.name, t.origin) for t in loaded.tools] == [
        ("roll_dice", f"dice.py:{decorated[0]}"),
        ("pick_one", f"dice.py:{decorated[1]}"),
    ]
    calls = [
        ToolCall("c1", "roll_dice", {"sides": 1000, "count": 3}),
        ToolCall("c2", "roll_dice", {"sides": "six"}),
        ToolCall("c3", "roll_dice", {"sides": 1}),
    ]
    registry = build_registry(config, own=loaded.tools)
    assert registry.names()[-2:] == ["roll_dice", "pick_one"]
    executor = Executor(registry, AuditLog(conn, clock))
    ok, bad, refused = await executor.run(calls, context)
    assert not ok.is_error and len(ok.content.splitlines()) == 3
    assert bad.is_error and "argument 'sides'" in bad.content
    assert refused.is_error and "sides must be 2..1000" in refused.content
    outcomes = await fetch(conn, "SELECT tool, outcome FROM audit ORDER BY id")
    assert outcomes == [("roll_dice", "invalid"), ("roll_dice", "ok"), ("roll_dice", "error")]


def test_a_broken_file_is_left_out_naming_its_file_and_line(tmp_path):
    folder = folder_with(
        tmp_path,
        a_syntax="x = (\n",
        b_raises="import json\n\nraise RuntimeError('no config for me')\n",
        c_no_doc="from assistant.tools import tool\n\n\n@tool\nasync def bare(x: int) -> int:\n"
        "    return x\n",
        d_good="from assistant.tools import tool\n\n\n@tool(read_only=True)\nasync def fine() -> str:\n"
        '    """Fine."""\n    return "ok"\n',
        e_clash="from assistant.tools import tool\n\n\n@tool\nasync def get_current_time() -> str:\n"
        '    """Mine."""\n    return "now"\n',
    )
    loaded = load_folder(folder, {"get_current_time"})
    assert [t.name for t in loaded.tools] == ["fine"]
    problems = [str(p).replace(str(folder) + "/", "") for p in loaded.problems]
    assert problems[0].startswith("a_syntax.py:1: syntax error")
    assert problems[1] == "b_raises.py:3: RuntimeError: no config for me"
    assert problems[2].startswith("c_no_doc.py:4: TypeError") and "docstring" in problems[2]
    assert problems[3] == "e_clash.py:4: a tool named 'get_current_time' already exists"


def test_a_missing_folder_is_said(tmp_path):
    loaded = load_folder(tmp_path / "nowhere", set())
    assert loaded.tools == () and "no such folder" in str(loaded.problems[0])


def test_tools_check_reports_the_file_and_line_and_fails(tmp_path):
    folder_with(tmp_path, broken="def f(:\n")
    (tmp_path / "config.toml").write_text('[tools]\nfolder = "tools.d"\n')
    run = subprocess.run(
        [sys.executable, "-m", "assistant", "tools", "--check", "--config", "config.toml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    assert "broken.py:1: syntax error" in run.stdout and "Traceback" not in run.stderr
