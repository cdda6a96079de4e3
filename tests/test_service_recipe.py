"""The README's service recipe, run in a scratch root as an unprivileged user with the unit's
restrictions simulated: a system Python, the config folder read-only, only the state folder
writable, secrets from the env file, through to a reminder delivered on the fake Bot API."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sqlite3
import stat
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_telegram import TOKEN, FakeTelegram
from fakehttp import fake_server

from assistant.clock import FakeClock
from assistant.db import open_database
from assistant.schedules.parse import read_schedule
from assistant.tasks import NewTask, Owner, TaskStore

ROOT = Path(__file__).resolve().parents[1]
NOBODY = 65534
RECIPE = (
    "sudo useradd --system --home /var/lib/assistant --shell /usr/sbin/nologin assistant",
    "sudo python3 -m venv /opt/assistant/.venv",
    "sudo install -m 644 config.example.toml /etc/assistant/config.toml",
    "sudo install -m 600 /dev/null /etc/assistant/env",
    "sudo systemctl daemon-reload && sudo systemctl enable --now assistant",
)


def system_python() -> str | None:
    """A Python of our version that every user can run (not one under /root)."""
    wanted = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for folder in ("/usr/bin", "/usr/local/bin"):
        candidate = Path(folder) / wanted
        if candidate.exists() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A root every user may walk into (pytest's own temporary folders are 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="assistant-recipe-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def install(root: Path, python: str, shared: tuple[Path, Path]) -> Path:
    """`python3 -m venv /opt/assistant/.venv` and `pip install .`, offline: the venv sees
    this checkout and its installed dependencies through a .pth file."""
    venv = root / "opt" / "assistant" / ".venv"
    venv.parent.mkdir(parents=True)
    os.system(f"{python} -m venv --without-pip {venv}")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = venv / "lib" / version / "site-packages"
    (site / "assistant-under-test.pth").write_text(f"{shared[0]}\n{shared[1]}\n")
    command = venv / "bin" / "assistant"  # what pip writes for the console script
    command.write_text(
        f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom assistant.cli import main\n"
        "sys.exit(main())\n"
    )
    command.chmod(0o755)
    return command


def configure(root: Path, telegram_url: str, health: int) -> tuple[Path, dict[str, str]]:
    """/etc/assistant as the recipe leaves it: the example config, edited; the env file."""
    etc = root / "etc" / "assistant"
    etc.mkdir(parents=True, mode=0o755)
    text = (ROOT / "config.example.toml").read_text()
    text = text.replace("allowed_user_ids = []", "allowed_user_ids = [42]")
    text = text.replace('base_url = "https://api.telegram.org/bot"', f'base_url = "{telegram_url}"')
    text = text.replace('listen = ""', f'listen = "127.0.0.1:{health}"')
    config = etc / "config.toml"
    config.write_text(text)
    config.chmod(0o644)
    env = etc / "env"
    env.write_text(f"ASSISTANT_TELEGRAM_TOKEN={TOKEN}\nOPENAI_API_KEY=sk-test-not-used\n")
    env.chmod(0o600)
    # systemd reads EnvironmentFile= as root, before dropping to the service user
    secrets = dict(line.split("=", 1) for line in env.read_text().splitlines() if line)
    return config, secrets


async def seed_reminder(state: Path) -> None:
    """A reminder that fell due a minute ago, as if set before a restart."""
    earlier = FakeClock(datetime.now(UTC) - timedelta(minutes=2))
    db = await open_database(state / "assistant.db")
    try:
        parsed = read_schedule("in 1m", "UTC", earlier.now())
        store = TaskStore(db, earlier)
        await store.add(NewTask(Owner(42, 42), "reminder", "stretch", parsed, {"text": "stretch"}))
    finally:
        await db.close()


def snapshot(folder: Path) -> dict[str, tuple[int, float]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_mode, p.stat().st_mtime)
        for p in sorted(folder.rglob("*"))
        if "__pycache__" not in p.parts
    }


async def test_the_readme_recipe_runs_as_an_unprivileged_user(scratch, shared_install):
    readme = (ROOT / "README.md").read_text()
    assert all(line in readme for line in RECIPE)
    python = system_python()
    if python is None:
        pytest.skip("no system Python of this version to build the service's venv with")
    command = install(scratch, python, shared_install)
    state = scratch / "var" / "lib" / "assistant"  # StateDirectory=assistant, mode 0700
    state.mkdir(parents=True, mode=0o700)
    await seed_reminder(state)
    privileged = os.geteuid() == 0
    if privileged:  # the unit's User=: an unprivileged account owns only the state folder
        for path in [state, *state.iterdir()]:
            os.chown(path, NOBODY, NOBODY)
    async with fake_server() as server:
        telegram = FakeTelegram(server)
        delivered = asyncio.Event()

        async def handle(request):  # type: ignore[no-untyped-def]
            reply = await telegram.handle(request)
            if any("stretch" in text for text in telegram.texts()):
                delivered.set()
            return reply

        server.default = handle
        health = free_port()
        config, secrets = configure(scratch, telegram.base_url, health)
        assert config.read_text().count("allowed_user_ids = [42]") == 1
        before = {"etc": snapshot(scratch / "etc"), "opt": snapshot(scratch / "opt")}
        listener, notify_path = notify_socket(scratch)
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": "/nonexistent",  # ProtectHome=yes: no home to read
            "ASSISTANT_CONFIG": "/etc/assistant/config.toml".replace("/etc", str(scratch / "etc")),
            "STATE_DIRECTORY": str(state),
            "NOTIFY_SOCKET": str(notify_path),
            **secrets,
        }
        drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        process = await asyncio.create_subprocess_exec(
            *(drop if privileged else []), str(command), "run",
            cwd=state, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            loop = asyncio.get_running_loop()
            ready = await unless_it_exits(process, loop.sock_recv(listener, 64))
            await unless_it_exits(process, delivered.wait())
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{health}") as client:
                healthz = await client.get("/healthz")
                metrics = (await client.get("/metrics")).text
            process.send_signal(signal.SIGTERM)
            stopping = await asyncio.wait_for(loop.sock_recv(listener, 64), 30)
            out, err = await asyncio.wait_for(process.communicate(), 30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            listener.close()
    log = (out + err).decode()
    assert ready == b"READY=1" and stopping == b"STOPPING=1", log
    assert process.returncode == 0, log
    assert "Traceback" not in log and TOKEN not in log
    assert any("stretch" in text for text in telegram.texts())
    assert (healthz.status_code, healthz.text) == (200, "ok\n")
    assert 'assistant_tasks_fired_total{kind="reminder",outcome="ok"} 1.0' in metrics
    assert before == {"etc": snapshot(scratch / "etc"), "opt": snapshot(scratch / "opt")}
    assert not (scratch / "etc" / "assistant" / "data").exists()
    with sqlite3.connect(state / "assistant.db") as db:
        assert db.execute("SELECT status FROM scheduled_tasks").fetchone()[0] == "done"
    if privileged:
        assert (state / "assistant.db").stat().st_uid == NOBODY
        assert stat.S_IMODE((scratch / "etc" / "assistant" / "env").stat().st_mode) == 0o600


async def unless_it_exits(process: asyncio.subprocess.Process, awaitable: Any) -> Any:
    """What ``awaitable`` gives, or the service's own words if it exits first."""
    waiting = asyncio.ensure_future(awaitable)
    exited = asyncio.ensure_future(process.wait())
    done, _ = await asyncio.wait({waiting, exited}, timeout=60, return_when="FIRST_COMPLETED")
    if waiting not in done:
        waiting.cancel()
        exited.cancel()
        assert process.stderr is not None
        said = (await process.stderr.read()).decode() if exited in done else "(still running)"
        pytest.fail(f"the service did not get there: {said}")
    exited.cancel()
    return waiting.result()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def notify_socket(root: Path) -> tuple[socket.socket, Path]:
    """Where systemd listens for READY=1, writable by the service user."""
    path = root / "notify"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    path.chmod(0o777)
    listener.setblocking(False)
    return listener, path
