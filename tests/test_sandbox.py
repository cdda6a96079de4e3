"""The code sandbox, tried as an attacker would: every way out is refused, as root and as an
unprivileged user, and a sandbox that cannot be built runs nothing."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from fakehttp import fake_server

from assistant.app import build_registry, open_sandbox
from assistant.config import parse_config
from assistant.errors import ToolError
from assistant.llm.types import ToolCall
from assistant.memory.audit import AuditLog
from assistant.tools import Executor, Registry, ToolContext
from assistant.tools.builtin import builtin_tools
from assistant.tools.sandbox import (
    JAIL,
    NOBODY,
    Jail,
    Sandbox,
    SandboxLimits,
    SandboxUnavailableError,
)
from assistant.tools.services import Services

# Small limits keep the suite quick; the wall limit is the only real wait (the endless sleep).
LIMITS = SandboxLimits(
    cpu_seconds=1, memory_mb=128, file_mb=1, processes=8, wall_seconds=3, output_bytes=2000
)


def _everyone_can(path: str, mode: int) -> bool:
    real = Path(os.path.realpath(path))
    return (
        real.is_file()
        and bool(real.stat().st_mode & mode)
        and all(p.stat().st_mode & 0o001 for p in real.parents)
    )


def _unprivileged_jail() -> Jail | str:
    """The launcher started as ``nobody`` through setpriv, as a service user would run it."""
    if os.geteuid() != 0:
        return "already unprivileged: the runs as this user cover it"
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    here = Jail.here()
    python = next((p for p in (here.python, "/usr/bin/python3") if _everyone_can(p, 0o001)), "")
    if not python or not _everyone_can(JAIL, 0o004):
        return "no Python or launcher that an unprivileged user can run"
    prefix = subprocess.run(
        [python, "-I", "-c", "import sys; print(sys.base_prefix)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    shown = () if prefix.startswith("/usr") else (os.path.realpath(prefix),)
    setpriv = ("setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups")
    real = os.path.realpath(python)
    return Jail((*setpriv, real, "-I", "-S", JAIL), real, shown)


@pytest.fixture(scope="module", params=["as_this_user", "as_unprivileged_user"])
def jail(request) -> Jail:
    chosen = Jail.here() if request.param == "as_this_user" else _unprivileged_jail()
    if isinstance(chosen, str):
        pytest.skip(chosen)
    reason = asyncio.run(Sandbox(LIMITS, chosen).check())
    if reason is not None:
        pytest.skip(f"this machine cannot make the sandbox's namespaces: {reason}")
    return chosen


@pytest.fixture
def sandbox(jail) -> Sandbox:
    return Sandbox(LIMITS, jail)


def survivors() -> list[int]:
    """Processes of any sandbox still alive on this machine: the program runs as main.py."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"-I\0main.py" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def test_a_plain_program_runs_as_an_unprivileged_init(sandbox):
    result = await sandbox.run("import os; print(sum(range(10)), os.getuid(), os.getpid())")
    assert (result.exit_code, result.stdout, result.stopped) == (0, "45 1000 1\n", "")


async def test_the_file_view_has_no_data_config_home_or_run(sandbox, tmp_path):
    marker = tmp_path / "assistant.db"
    await asyncio.to_thread(marker.write_text, "SECRET-MARKER")
    paths = [str(marker), "/etc/shadow", "/etc/assistant", "/root", "/home", "/run"]
    paths += ["/var/lib/assistant", str(Path.cwd()), "/sys", "/var"]
    code = f"""
import os
for path in {paths!r}:
    print(path, os.path.exists(path))
print(sorted(os.listdir("/etc")))
"""
    result = await sandbox.run(code)
    assert result.exit_code == 0, result.stderr
    # Only the interpreter's own folder is shown read-only, at its path (its libraries need it).
    shown = [p for p in paths if any(r.startswith(p + "/") for r in sandbox.jail.read_only)]
    visible = [line.split()[0] for line in result.stdout.splitlines() if line.endswith(" True")]
    assert visible == shown and "SECRET-MARKER" not in result.stdout
    assert result.stdout.splitlines()[-1] in (
        "['group', 'hosts', 'ld.so.cache', 'passwd']",
        "['group', 'hosts', 'passwd']",
    )


async def test_the_bot_process_cannot_be_seen_signalled_or_traced(sandbox):
    bot = os.getpid()
    code = f"""
import ctypes, os, signal
print(sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
for attempt in (lambda: open("/proc/{bot}/environ").read(),
                lambda: os.open("/proc/{bot}/ns/net", os.O_RDONLY),
                lambda: os.kill({bot}, signal.SIGSTOP)):
    try:
        attempt()
        print("ESCAPED")
    except OSError as exc:
        print(type(exc).__name__)
libc = ctypes.CDLL(None, use_errno=True)
print("ptrace", libc.ptrace(16, {bot}, 0, 0), ctypes.get_errno())
os.kill(-1, signal.SIGKILL)  # everything this process may signal: its own namespace only
"""
    result = await sandbox.run(code)
    assert "ESCAPED" not in result.stdout, result.stdout
    assert "ptrace -1" in result.stdout
    visible = [int(p) for p in result.stdout.splitlines()[0].strip("[]").split(",") if p]
    assert visible and max(visible) < 20  # only its own namespace's processes
    os.kill(bot, 0)  # and we are alive


async def test_no_privilege_can_be_taken_back(sandbox):
    code = """
import ctypes, os
for attempt in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.chroot("/tmp")):
    try:
        attempt()
        print("ESCAPED")
    except OSError as exc:
        print(type(exc).__name__)
status = open("/proc/self/status").read() if os.path.exists("/proc/self/status") else ""
print([line for line in status.splitlines() if line.startswith(("CapEff", "CapPrm", "NoNewPrivs"))])
print(os.getuid(), os.geteuid())
"""
    result = await sandbox.run(code)
    assert "ESCAPED" not in result.stdout and "1000 1000" in result.stdout
    if "CapEff" in result.stdout:
        assert "CapEff:\\t0000000000000000" in result.stdout
        assert "NoNewPrivs:\\t1" in result.stdout


async def test_secrets_in_our_environment_are_not_there(sandbox, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sandbox-must-not-see")
    result = await sandbox.run("import os; print(dict(os.environ))")
    assert "sk-sandbox" not in result.stdout and result.exit_code == 0


async def test_no_socket_reaches_this_machine_or_its_unix_sockets(sandbox, tmp_path):
    name = f"assistant-test-{uuid.uuid4().hex[:8]}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + name)
    abstract.listen()
    path = tmp_path / "bot.sock"
    on_disk = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    on_disk.bind(str(path))
    on_disk.listen()
    try:
        async with fake_server() as server:
            port = int(server.url.rsplit(":", 1)[1])
            code = f"""
import socket
for family, address in ((socket.AF_INET, ("127.0.0.1", {port})), (socket.AF_UNIX, "\\0{name}"),
                        (socket.AF_UNIX, {str(path)!r}), (socket.AF_INET, ("1.1.1.1", 53))):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(1)
    try:
        s.connect(address)
        print("CONNECTED", address)
    except OSError as exc:
        print(type(exc).__name__)
"""
            result = await sandbox.run(code)
        assert server.requests == []
    finally:
        abstract.close()
        on_disk.close()
    assert "CONNECTED" not in result.stdout and result.stdout.count("Error") == 4, result.stdout


async def test_writes_do_not_persist_anywhere(sandbox):
    token = uuid.uuid4().hex
    code = f"""
import os
for folder in ("/tmp", "/dev/shm", "/work"):
    open(os.path.join(folder, "{token}"), "w").write("left behind")
for folder in ("/", "/usr", "/etc"):
    try:
        open(os.path.join(folder, "{token}"), "w")
        print("WROTE", folder)
    except OSError as exc:
        print(type(exc).__name__)
try:
    open("main.py", "w")
    print("WROTE main.py")
except OSError as exc:
    print(type(exc).__name__)
"""
    result = await sandbox.run(code)
    assert result.exit_code == 0 and "WROTE" not in result.stdout, result.stdout + result.stderr
    for folder in ("/tmp", "/dev/shm", "/work", "/"):
        assert not await asyncio.to_thread(os.path.exists, os.path.join(folder, token))
    again = await sandbox.run("import os; print(os.listdir('/tmp'), os.listdir('/work'))")
    assert again.stdout == "[] ['main.py']\n"


async def test_the_program_lives_on_a_private_tmpfs(sandbox):
    code = (
        "import os\nprint(os.path.abspath('main.py'))\n"
        "print([l.split()[4] + ' ' + l.split()[-3] for l in open('/proc/self/mountinfo') "
        "if l.split()[4] in ('/work', '/')])"
    )
    result = await sandbox.run(code)
    assert result.stdout.startswith("/work/main.py\n"), result.stderr
    if "tmpfs" in result.stdout:
        assert "'/work tmpfs'" in result.stdout and "'/ tmpfs'" in result.stdout


async def test_a_setsid_or_double_forked_child_dies_with_the_run(sandbox):
    code = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(30)
        print("STILL ALIVE", flush=True)
    os._exit(0)
print("parent done")
"""
    result = await sandbox.run(code)
    assert result.stdout == "parent done\n" and result.stopped == "", result
    assert survivors() == []


async def test_a_child_holding_the_pipe_is_killed_at_the_wall_clock(sandbox):
    code = "import os, time\nif os.fork() == 0:\n    os.setsid()\ntime.sleep(60)"
    result = await sandbox.run(code)
    assert result.exit_code is None and result.stopped == "took longer than 3 s"
    assert survivors() == []


async def test_an_endless_loop_is_stopped_by_the_cpu_limit(jail):
    # The CPU limit counts CPU time: on two busy cores a second of it may take many seconds
    # of wall time, so the wall limit here is far off, never the one that stops the loop.
    roomy = Sandbox(replace(LIMITS, wall_seconds=120), jail)
    result = await roomy.run("while True: pass")
    assert result.exit_code is not None and result.exit_code < 0
    assert "CPU time limit of 1 s" in result.stopped or "SIGKILL" in result.stopped


async def test_a_memory_bomb_hits_the_memory_limit(sandbox):
    result = await sandbox.run("x = bytearray(10**9)")
    assert result.stopped == "memory limit of 128 MB" and "MemoryError" in result.stderr


async def test_after_a_fork_bomb_the_next_run_can_fork(sandbox):
    bomb = await sandbox.run("import os\nwhile True:\n    os.fork()")
    assert "Resource temporarily unavailable" in bomb.stderr
    assert survivors() == []
    after = await sandbox.run("import os\npid = os.fork()\nif pid: os.waitpid(pid, 0); print('ok')")
    assert after.stdout == "ok\n", after.stderr


async def test_a_huge_print_is_cut_and_the_run_ended(sandbox):
    result = await sandbox.run("while True: print('x' * 1000)")
    assert len(result.stdout) == 2000 and "output past 2,000 bytes was cut" in result.stopped


async def test_a_big_file_hits_the_file_size_limit(sandbox):
    result = await sandbox.run("open('big', 'w').write('x' * (3 * 2**20))")
    assert "File too large" in result.stderr or "No space left" in result.stderr


async def test_a_sandbox_that_cannot_be_built_runs_nothing():
    broken = Sandbox(LIMITS, Jail((sys.executable, "-I", "-S", JAIL), "/nonexistent/python"))
    with pytest.raises(SandboxUnavailableError, match="could not be set up .*start"):
        await broken.run("print(1)")
    assert "could not be set up" in (await broken.check() or "")
    silent = Sandbox(LIMITS, Jail(("true",), sys.executable))
    with pytest.raises(SandboxUnavailableError, match="no report"):
        await silent.run("print(1)")


async def test_execute_code_is_offered_only_when_enabled_and_isolated(monkeypatch):
    off, reason = await open_sandbox(parse_config({}))
    assert off is None and "execute_code = false" in reason
    enabled = parse_config({"tools": {"execute_code": True}})
    assert "execute_code" not in build_registry(enabled).names()  # not probed: not offered
    monkeypatch.setattr(Jail, "here", classmethod(lambda cls: Jail(("true",), sys.executable)))
    failed, reason = await open_sandbox(enabled)
    assert failed is None and "switched off" in reason and "user namespaces" in reason


async def test_execute_code_always_needs_approval_and_refuses_without_a_sandbox(
    conn, clock, sandbox
):
    assert "execute_code" not in [t.name for t in builtin_tools()]
    tools = {t.name: t for t in builtin_tools(code=True)}
    assert tools["execute_code"].approval_reason({"code": "print(1)"})
    executor = Executor(Registry(tools.values()), AuditLog(conn, clock))
    off = ToolContext(1, 1, "r", "UTC", clock, Services())
    (result,) = await executor.run([ToolCall("c", "execute_code", {"code": "print(1)"})], off)
    assert result.is_error and "not available" in result.content
    on = ToolContext(1, 1, "r", "UTC", clock, Services(sandbox=sandbox))
    (result,) = await executor.run([ToolCall("c", "execute_code", {"code": "print(6 * 7)"})], on)
    assert result.content.startswith("exit code 0") and "42" in result.content


async def test_a_program_over_the_size_limit_is_refused_before_anything_runs(sandbox):
    with pytest.raises(ToolError, match="at most 20,000"):
        await sandbox.run("#" * 20_001)
