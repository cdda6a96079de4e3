"""Start-up failures a person can act on: one line naming the path and what to do, exit 2,
no traceback, and nothing stored changed."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.app import Setup
from assistant.app.runtime import compose
from assistant.app.serve import NoChannel
from assistant.cli import main
from assistant.clock import SystemClock
from assistant.config import parse_config
from assistant.db import open_database
from assistant.errors import NotADatabaseError, StorageError
from assistant.migrations import MIGRATIONS

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def config(tmp_path, data_dir: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(f'[assistant]\ndata_dir = "{data_dir}"\n')
    return str(path)


def test_a_data_dir_that_is_a_file(tmp_path, capsys):
    (tmp_path / "data").write_text("x")
    code, err = run(capsys, "status", "--config", config(tmp_path, "data"))
    assert code == 2 and f"{tmp_path / 'data'}: is a file, not a folder" in err
    assert (tmp_path / "data").read_text() == "x"


def test_a_data_dir_whose_parent_is_missing(tmp_path, capsys):
    code, err = run(capsys, "status", "--config", config(tmp_path, "no/such/data"))
    assert code == 2 and f"its parent {tmp_path / 'no' / 'such'} does not exist" in err
    assert not (tmp_path / "no").exists()


def test_a_database_that_is_a_folder(tmp_path, capsys):
    (tmp_path / "data" / "assistant.db").mkdir(parents=True)
    code, err = run(capsys, "status", "--config", config(tmp_path, "data"))
    assert code == 2 and "assistant.db: is a folder, not the database file" in err


def test_a_damaged_database_is_refused_and_untouched(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    db = tmp_path / "data" / "assistant.db"
    with sqlite3.connect(db) as raw:
        raw.execute("CREATE TABLE t (x)")
    damaged = db.read_bytes()[:100] + b"\x07" * 4000  # the header, then garbage pages
    db.write_bytes(damaged)
    code, err = run(capsys, "status", "--config", config(tmp_path, "data"))
    assert code == 2 and "damaged" in err and "assistant restore" in err
    assert db.read_bytes() == damaged


async def test_a_database_locked_by_another_process_names_its_pid(tmp_path):
    db = tmp_path / "assistant.db"
    sqlite3.connect(db).close()
    with holding(HOLD_LOCK, db) as holder:
        pid = rf"\(pid {holder.pid}\)"
        with pytest.raises(StorageError, match=f"locked by another process {pid}"):
            await open_database(db, wait=0)


@contextlib.contextmanager
def holding(script: str, path) -> Iterator[subprocess.Popen[str]]:
    """Another process that holds a lock on ``path`` until the test is done with it."""
    with subprocess.Popen(
        [sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
            yield holder
        finally:
            holder.kill()


HOLD_LOCK = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
print("ready", flush=True)
time.sleep(600)
"""


async def test_a_second_assistant_is_refused_with_the_first_ones_pid(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    lock = data / "assistant.db.lock"
    with holding(HOLD_FLOCK, lock) as holder:
        setup = Setup(parse_config({"assistant": {"data_dir": str(data)}}), "test", tmp_path)
        with pytest.raises(
            StorageError, match=rf"in use by another assistant \(pid {holder.pid}\)"
        ):
            async with compose(setup, SystemClock(), NoChannel(), NoChannel()):
                pass


HOLD_FLOCK = """
import fcntl, os, sys, time
f = open(sys.argv[1], "a+b")
fcntl.flock(f, fcntl.LOCK_EX)
f.truncate(0); f.write(str(os.getpid()).encode()); f.flush()
print("ready", flush=True)
time.sleep(600)
"""


async def test_a_database_that_is_not_ours_is_never_migrated(tmp_path):
    db = tmp_path / "assistant.db"
    with sqlite3.connect(db) as raw:
        raw.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        raw.execute("INSERT INTO invoices VALUES (1, 9.5)")
    before = db.read_bytes()
    with pytest.raises(NotADatabaseError, match=r"not the assistant's \(tables invoices\)"):
        await open_database(db)
    assert db.read_bytes() == before


async def test_a_migration_first_copies_the_old_database_and_says_where(tmp_path, caplog):
    db = tmp_path / "assistant.db"
    old = await open_database(db, MIGRATIONS[:3])
    async with old.write() as session:
        await session.execute("INSERT INTO chats (chat_id, user_id) VALUES (7, 7)")
    await old.close()
    with caplog.at_level(logging.INFO, logger="assistant.db"):
        await (await open_database(db)).close()
    kept = tmp_path / "assistant.db.schema-3.bak"
    assert f"database copied to {kept} before migrating from schema 3" in caplog.text
    with sqlite3.connect(kept) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == 3
        assert raw.execute("SELECT user_id FROM chats").fetchall() == [(7,)]


def test_a_named_config_file_that_is_missing_is_an_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = run(capsys, "status", "--config", str(tmp_path / "nope.toml"))
    assert code == 2 and f"{tmp_path / 'nope.toml'}: no such config file" in err
    monkeypatch.setenv("ASSISTANT_CONFIG", str(tmp_path / "gone.toml"))
    code, err = run(capsys, "status")
    assert code == 2 and "gone.toml: no such config file" in err
    assert not (tmp_path / "data").exists()


def test_invalid_toml_names_the_line_and_column(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text('[llm]\nmodel = "a"\nmax_steps = = 3\n')
    code, err = run(capsys, "status", "--config", str(path))
    assert code == 2 and f"{path}: not valid TOML" in err and "line 3, column" in err


def test_a_config_path_that_is_a_folder(tmp_path, capsys):
    code, err = run(capsys, "status", "--config", str(tmp_path))
    assert code == 2 and "is a folder, not a config file" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["--config", "{c}", "tools"],
        ["tools", "--config", "{c}"],
        ["--debug", "tools", "--config", "{c}"],
    ],
)
def test_options_go_before_or_after_the_subcommand(tmp_path, capsys, argv):
    path = tmp_path / "config.toml"
    path.write_text('[tools]\ndeny = ["get_current_time"]\n')
    assert main([a.format(c=path) for a in argv]) == 0
    assert "get_current_time" not in capsys.readouterr().out


def test_denying_a_tool_the_config_switched_off_is_not_an_error(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text('[tools]\ndeny = ["execute_code", "generate_image"]\n')
    assert main(["tools", "--config", str(path)]) == 0


def test_a_read_only_data_folder_is_one_line_for_its_user(tmp_path, shared_install):
    """As the service user: a folder it may not write (root's, or made read-only)."""
    python = shutil.which(
        f"python{sys.version_info.major}.{sys.version_info.minor}", path="/usr/bin"
    )
    privileged = os.geteuid() == 0
    if privileged and python is None:
        pytest.skip("no system Python to run as an unprivileged user")
    folder = Path(tempfile.mkdtemp(prefix="assistant-ro-"))
    try:
        folder.chmod(0o755)
        data = folder / "data"
        data.mkdir(mode=0o555)
        script = (
            "import sys; from pathlib import Path; from assistant.cli import main; "
            "sys.exit(main(['status', '--config', sys.argv[1]]))"
        )
        config = folder / "config.toml"
        config.write_text(f'[assistant]\ndata_dir = "{data}"\n')
        config.chmod(0o644)
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        command = [
            *(drop if privileged else []),
            python or sys.executable,
            "-c",
            script,
            str(config),
        ]
        paths = f"{shared_install[0]}:{shared_install[1]}"
        result = subprocess.run(
            command, capture_output=True, text=True, check=False,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": paths, "HOME": "/nonexistent"},
        )  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert result.returncode == 2, result.stderr
    assert f"{data}: is not writable by user" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_doctor_json_is_for_scripts(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSISTANT_TELEGRAM_TOKEN", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["doctor", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    checks = {check["name"]: check for check in report["checks"]}
    assert report["ok"] is False and checks["database"]["ok"] is True
    assert "is empty: get a token from @BotFather" in checks["telegram"]["detail"]
    assert set(checks) >= {"config", "database", "model", "telegram", "code", "allowed users"}
