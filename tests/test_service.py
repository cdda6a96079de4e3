"""The service as shipped: the unit verifies, systemd hears READY and STOPPING, and journald
gets lines without timestamps of ours."""

from __future__ import annotations

import io
import logging
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.app.systemd import notify
from assistant.logs import configure_logging

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "assistant.service"


def rendered(tmp_path: Path) -> Path:
    """The unit as shipped, pointed at this checkout's command (verify checks it exists)."""
    text = UNIT.read_text()
    text = text.replace(
        "/opt/assistant/.venv/bin/assistant", str(Path(sys.executable).parent / "assistant")
    )
    path = tmp_path / "assistant.service"
    path.write_text(text)
    return path


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_the_unit_verifies_without_a_warning(tmp_path):
    result = subprocess.run(
        ["systemd-analyze", "verify", str(rendered(tmp_path))],
        check=False,
        capture_output=True,
        text=True,
    )
    complaints = [line for line in result.stderr.splitlines() if "assistant.service" in line]
    assert result.returncode == 0 and complaints == [], result.stderr


def test_the_unit_writes_only_its_state_directory():
    settings = dict(
        line.split("=", 1)
        for line in UNIT.read_text().splitlines()
        if "=" in line and not line.startswith("#")
    )
    assert settings["Type"] == "notify" and settings["StateDirectory"] == "assistant"
    assert settings["ProtectSystem"] == "strict" and settings["ProtectHome"] == "yes"
    assert "ReadWritePaths" not in settings  # the state directory is writable by itself
    assert settings["ExecStart"] == "/opt/assistant/.venv/bin/assistant run"
    assert settings["Environment"] == "ASSISTANT_CONFIG=/etc/assistant/config.toml"


def test_the_unit_gives_room_for_more_than_the_terminals_and_the_bot():
    """1,024 descriptors (a common default) is tight; the terminals' own cap is 16."""
    settings = dict(
        line.split("=", 1)
        for line in UNIT.read_text().splitlines()
        if "=" in line and not line.startswith("#")
    )
    assert int(settings["LimitNOFILE"]) >= 4096


@pytest.mark.parametrize("abstract", [False, True])
def test_systemd_hears_ready(tmp_path, monkeypatch, abstract):
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        name = f"assistant-test-{os.getpid()}" if abstract else str(tmp_path / "notify")
        listener.bind("\0" + name if abstract else name)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name if abstract else name)
        assert notify("READY=1")
        assert listener.recv(64) == b"READY=1"


def test_without_systemd_nothing_is_sent(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify("READY=1") is False


def test_a_socket_that_is_gone_is_a_warning_not_a_crash(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "gone"))
    assert notify("STOPPING=1") is False
    assert "could not tell systemd STOPPING" in caplog.text


def test_journald_lines_have_no_timestamp_of_ours(tmp_path, monkeypatch):
    with (tmp_path / "journal").open("w") as journal:
        status = os.fstat(journal.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{status.st_dev}:{status.st_ino}")
        handler = configure_logging("INFO", journal)
        logging.getLogger("assistant.test").info("hello")
        handler.flush()
    assert (tmp_path / "journal").read_text() == "INFO assistant.test: hello\n"
    terminal = io.StringIO()
    handler = configure_logging("INFO", terminal)
    logging.getLogger("assistant.test").info("hello")
    assert terminal.getvalue()[:4].isdigit()  # at a terminal: today's format, time first
    configure_logging("INFO")
