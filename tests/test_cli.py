"""The command line, run as a user runs it."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from fakehttp import Reply, fake_server

from assistant import app
from assistant.cli import main
from assistant.redaction import forget_secrets


def test_default_command_checks_config_database_and_tools(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSISTANT_CONFIG", raising=False)
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "config:   embedded defaults" in out
    assert "get_current_time" in out
    with sqlite3.connect(tmp_path / "data" / "assistant.db") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] >= 1


def test_tools_command_prints_each_format(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["tools"]) == 0
    assert capsys.readouterr().out.startswith("get_current_time()\n  Get the current date")
    assert main(["tools", "--format", "openai"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["function"]["name"] == "get_current_time"
    assert main(["tools", "--format", "anthropic"]) == 0
    assert "input_schema" in json.loads(capsys.readouterr().out)[0]


def test_bad_config_exits_with_the_message_and_creates_nothing(tmp_path, capsys) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[llm]\nmax_steps = 0\n")
    assert main(["--config", str(path)]) == 2
    assert "config.toml: llm.max_steps: must be >= 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()


def test_a_file_that_is_not_a_database_stops_the_start(tmp_path, capsys) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "assistant.db").write_text("not a database at all")
    (tmp_path / "config.toml").write_text('[assistant]\ndata_dir = "data"\n')
    assert main(["--config", str(tmp_path / "config.toml")]) == 2
    assert "not a SQLite database" in capsys.readouterr().err
    assert (tmp_path / "data" / "assistant.db").read_text() == "not a database at all"


def test_unknown_tool_in_deny_list_is_a_config_error(tmp_path, capsys) -> None:
    (tmp_path / "config.toml").write_text('[tools]\ndeny = ["get_curent_time"]\n')
    assert main(["--config", str(tmp_path / "config.toml"), "tools"]) == 2
    assert "tools.deny: unknown tool 'get_curent_time'" in capsys.readouterr().err


def test_python_dash_m_runs_the_same_command_line() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "assistant", "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0 and result.stdout.startswith("assistant ")


def test_schedule_shows_how_text_is_read(capsys) -> None:
    assert main(["schedule", "weekdays 6pm", "--tz", "Europe/Berlin"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "every weekday at 18:00, Europe/Berlin"
    assert out[1] == "runs:"
    assert len(out) == 7
    assert all(" 18:00 CE" in line for line in out[2:])


def test_schedule_refuses_bad_text_with_the_accepted_forms(capsys) -> None:
    assert main(["schedule", "every 0m"]) == 2
    err = capsys.readouterr().err
    assert "cannot read the schedule 'every 0m'" in err
    assert "Accepted forms" in err
    assert main(["schedule", "in 5m", "--tz", "Mars/Base"]) == 2
    assert "unknown timezone 'Mars/Base'" in capsys.readouterr().err


@pytest.mark.parametrize(("status", "description"), [(401, "Unauthorized"), (404, "Not Found")])
async def test_a_rejected_token_is_one_plain_line_that_never_shows_it(
    tmp_path, status, description
):
    token = "123456:AAHsecretpartofthetoken-0123456789abc"
    async with fake_server() as server:
        server.default = lambda request: Reply(
            status, {"ok": False, "error_code": status, "description": description}
        )
        config = tmp_path / "config.toml"
        config.write_text(
            f'[assistant]\ndata_dir = "{tmp_path}"\n'
            f'[telegram]\nbase_url = "{server.url}/bot"\nallowed_user_ids = [1]\n'
        )
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "assistant", "--config", str(config), "run",
            env={**os.environ, "ASSISTANT_TELEGRAM_TOKEN": token},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(process.communicate(), 60)
    printed = (out + err).decode()
    assert process.returncode == 2, printed
    assert "secretpartofthetoken" not in printed and "Traceback" not in printed
    assert printed.strip().splitlines()[-1].startswith("assistant: Telegram rejected the bot token")


def test_an_unexpected_failure_is_one_line_and_the_traceback_only_with_debug(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "gsk_live_value_of_the_key_42")

    async def broken(setup):
        raise ExceptionGroup("in the task group", [OSError("gsk_live_value_of_the_key_42 leaked")])

    monkeypatch.setattr(app, "status", broken)
    try:
        assert main([]) == 2
        err = capsys.readouterr().err
        assert err.strip().splitlines()[-1] == (
            "assistant: it stopped on an unexpected error (OSError). "
            "Run it again with --debug to see the traceback."
        )
        assert "Traceback" not in err
        assert main(["--debug"]) == 2
        err = capsys.readouterr().err
        assert "Traceback" in err and "leaked" in err and "gsk_live_value" not in err
    finally:
        forget_secrets()


ONE_SHOTS = [
    ["status"],
    ["tasks", "list"],
    ["schedule", "in 5m"],
    ["backup", "copy.db"],
    ["export", "out"],
    ["ask", "hi"],
]


@pytest.mark.parametrize("argv", ONE_SHOTS, ids=lambda argv: argv[0])
def test_one_shot_commands_print_no_log_chatter(tmp_path, monkeypatch, capsys, argv) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSISTANT_CONFIG", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    main(argv)  # a fresh data folder: the database is made and migrated here
    err = capsys.readouterr().err
    assert "migrated" not in err and "no config file" not in err and " INFO " not in err
    if argv[0] == "ask":  # its one complaint: the missing model, once
        assert err.count("$OPENAI_API_KEY is empty") == 1 and "WARNING" not in err
    else:
        assert err == ""


def test_config_is_taken_after_nested_commands(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "elsewhere.toml"
    config.write_text(f'[assistant]\ndata_dir = "{tmp_path / "other"}"\n')
    assert main(["tasks", "list", "--config", str(config)]) == 0
    assert "0 live tasks" in capsys.readouterr().out
    assert (tmp_path / "other" / "assistant.db").exists() and not (tmp_path / "data").exists()


def test_a_backup_is_one_file(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSISTANT_CONFIG", raising=False)
    assert main(["backup", "copy.db"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.db", "data"]
    with sqlite3.connect(tmp_path / "copy.db") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_status_says_plainly_when_the_model_cannot_be_used(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSISTANT_CONFIG", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "model:    gpt-4o-mini at https://api.openai.com/v1 cannot be used:" in out
    assert "$OPENAI_API_KEY is empty" in out


def test_a_chart_into_a_folder_that_is_not_there_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSISTANT_CONFIG", raising=False)
    chart = tmp_path / "missing" / "chart.png"
    assert main(["usage", "--chart", str(chart)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"assistant: {chart}: its folder {chart.parent} does not exist; make it or name another "
        "file for the chart.\n"
    )
    assert captured.out == ""  # refused before any of the report was printed


def as_its_user(
    shared: tuple[Path, Path], argv: list[str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """The command line as the data folder's own user (an unprivileged one under root, whose
    permissions bind), with this checkout's code."""
    python = shutil.which(
        f"python{sys.version_info.major}.{sys.version_info.minor}", path="/usr/bin"
    )
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    privileged = os.geteuid() == 0
    script = "import sys; from assistant.cli import main; sys.exit(main(sys.argv[1:]))"
    command = [*(drop if privileged else []), python or sys.executable, "-c", script, *argv]
    environment = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{shared[0]}:{shared[1]}"}
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, check=False, timeout=120,
        env={**environment, "HOME": "/nonexistent", "NO_COLOR": "1"},
    )  # fmt: skip


def test_a_read_only_database_is_one_line_and_a_failure_for_every_command(shared_install):
    if os.geteuid() == 0 and not shutil.which("python3", path="/usr/bin"):
        pytest.skip("no system Python to run as an unprivileged user")
    folder = Path(tempfile.mkdtemp(prefix="assistant-ro-db-"))
    try:
        folder.chmod(0o755)
        data = folder / "data"
        data.mkdir(mode=0o700)
        if os.geteuid() == 0:
            os.chown(data, 65534, 65534)
        config = folder / "config.toml"
        config.write_text(f'[assistant]\ndata_dir = "{data}"\ntimezone = "Europe/Berlin"\n')
        config.chmod(0o644)
        with_config = ["--config", str(config)]
        assert as_its_user(shared_install, ["status", *with_config]).returncode == 0
        (data / "assistant.db").chmod(0o400)
        said = [
            as_its_user(shared_install, ["ask", *with_config, "note that the code is 4312"]),
            as_its_user(shared_install, ["ask", *with_config, "/note the code is 4312"]),
            as_its_user(shared_install, ["chat", *with_config], stdin="/notes\n"),
        ]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for result in said:
        errors = result.stderr.strip().splitlines()
        assert result.returncode != 0, result
        assert errors[-1].startswith("assistant: the database is read-only"), result.stderr
        assert "Traceback" not in result.stderr and "damaged" not in result.stderr
        assert "save_note failed" not in result.stdout
