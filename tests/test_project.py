"""The project's own promises: the README's commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.+?)\n```", readme)


def test_readme_gives_exactly_two_set_up_commands() -> None:
    run, test = readme_commands()
    assert run.endswith(".venv/bin/assistant chat")
    assert test.endswith(".venv/bin/pytest")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _, test = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text()
    assert f"{test} || status=$?" in ci


def test_data_directory_is_kept_but_ignored() -> None:
    assert (ROOT / "data" / ".keep").exists()
    assert "data/*" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_run_command_starts_on_embedded_defaults_and_answers_commands(tmp_path) -> None:
    import subprocess
    import sys

    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "assistant", "chat"],
        input="/remind in 5m stretch\n/tasks\n",
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "/help for commands" in done.stdout and "stretch — once on" in done.stdout
    assert (tmp_path / "data" / "assistant.db").exists()


def _keys(table: dict, prefix: str = "") -> list[str]:
    keys = []
    for name, value in table.items():
        nested = isinstance(value, dict) and name not in ("secrets", "summary_chars_per_tool")
        keys += _keys(value, f"{prefix}{name}.") if nested else [f"{prefix}{name}"]
    return keys


def test_the_readme_stays_short_with_its_contents_first() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 260
    assert readme.index("**Contents:**") < readme.index("## Set-up")
    headings = re.findall(r"^###? (.+)$", readme, re.MULTILINE)
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}
    assert set(re.findall(r"\]\(#([a-z-]+)\)", readme)) <= anchors
    for linked in re.findall(r"\]\((docs/[^)]+)\)", readme):
        assert (ROOT / linked).exists(), linked


def test_the_docs_name_every_config_key_and_every_tool() -> None:
    import tomllib

    from assistant.app import build_registry
    from assistant.config import parse_config

    readme = (ROOT / "docs" / "configuration.md").read_text()
    example = tomllib.loads((ROOT / "config.example.toml").read_text())
    missing = []
    for key in _keys(example):
        section, _, name = key.rpartition(".")
        named = key in readme or f"`{section}.*`" in readme
        named = named or re.search(
            rf"`{re.escape(section)}\.[^`]*`(?: / `[^`]*`)* / `{re.escape(name)}`", readme
        )
        missing += [] if named else [key]
    assert missing == []
    tools = build_registry(parse_config({"tools": {"execute_code": True}})).names()
    named = (ROOT / "README.md").read_text() + (ROOT / "docs" / "tools.md").read_text()
    assert [t for t in tools if f"`{t}`" not in named] == []
