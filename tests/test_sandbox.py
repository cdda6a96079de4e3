"""The code sandbox: each way out is stopped, or comes back empty, with a clear result."""

from __future__ import annotations

import asyncio
import os

import pytest
from fakehttp import fake_server

from assistant.llm.types import ToolCall
from assistant.memory.audit import AuditLog
from assistant.tools import Executor, Registry, ToolContext
from assistant.tools.builtin import builtin_tools
from assistant.tools.sandbox import SandboxLimits, run_python
from assistant.tools.services import Services

# Small limits keep the suite quick; the wall limit is the only real wait (the endless sleep).
LIMITS = SandboxLimits(
    cpu_seconds=1, memory_mb=128, file_mb=1, processes=8, wall_seconds=3, output_bytes=2000
)


async def test_a_plain_program_runs_and_prints():
    result = await run_python("print(sum(range(10)))", LIMITS)
    assert (result.exit_code, result.stdout, result.stopped) == (0, "45\n", "")


async def test_an_endless_loop_is_stopped_by_the_cpu_limit():
    result = await run_python("while True: pass", LIMITS)
    assert result.exit_code is not None and result.exit_code < 0
    assert "CPU time limit of 1 s" in result.stopped or "SIGKILL" in result.stopped


async def test_a_sleeping_program_is_stopped_by_the_wall_clock():
    result = await run_python("import time; time.sleep(60)", LIMITS)
    assert result.exit_code is None and result.stopped == "took longer than 3 s"


async def test_a_memory_bomb_hits_the_memory_limit():
    result = await run_python("x = bytearray(10**9)", LIMITS)
    assert result.stopped == "memory limit of 128 MB" and "MemoryError" in result.stderr


async def test_a_fork_bomb_cannot_grow():
    result = await run_python("import os\nwhile True:\n    os.fork()", LIMITS)
    assert result.exit_code == 1 and "Resource temporarily unavailable" in result.stderr


async def test_a_huge_print_is_cut_and_the_run_ended():
    result = await run_python("while True: print('x' * 1000)", LIMITS)
    assert len(result.stdout) == 2000 and "output past 2,000 bytes was cut" in result.stopped


async def test_a_big_file_hits_the_file_size_limit():
    result = await run_python("open('big', 'w').write('x' * (3 * 2**20))", LIMITS)
    assert "File too large" in result.stderr


async def test_environment_secrets_are_not_there(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sandbox-must-not-see")
    result = await run_python("import os; print(dict(os.environ))", LIMITS)
    assert "sk-sandbox" not in result.stdout and result.exit_code == 0


async def test_a_socket_cannot_reach_even_this_machine():
    async with fake_server() as server:
        port = int(server.url.rsplit(":", 1)[1])
        code = f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('connected')"
        result = await run_python(code, LIMITS)
    assert "connected" not in result.stdout and server.requests == []
    assert result.offline, "this system gave the sandbox no network namespace"
    assert "unreachable" in result.stderr or "refused" in result.stderr


async def test_the_working_directory_is_temporary_and_gone_after():
    from pathlib import Path

    result = await run_python(
        "import os; open('left.txt', 'w').write('x'); print(os.getcwd())", LIMITS
    )
    folder = Path(result.stdout.strip())
    assert folder.name.startswith("sandbox-") and not await asyncio.to_thread(folder.exists)


async def test_execute_code_is_off_unless_enabled_and_always_needs_approval(conn, clock):
    assert "execute_code" not in [t.name for t in builtin_tools()]
    tools = {t.name: t for t in builtin_tools(code=True)}
    assert tools["execute_code"].approval_reason({"code": "print(1)"})
    executor = Executor(Registry(tools.values()), AuditLog(conn, clock))
    off = ToolContext(1, 1, "r", "UTC", clock, Services())
    (result,) = await executor.run([ToolCall("c", "execute_code", {"code": "print(1)"})], off)
    assert result.is_error and "switched off" in result.content
    on = ToolContext(1, 1, "r", "UTC", clock, Services(sandbox=LIMITS))
    (result,) = await executor.run([ToolCall("c", "execute_code", {"code": "print(6 * 7)"})], on)
    assert result.content.startswith("exit code 0") and "42" in result.content


@pytest.mark.parametrize(
    "code", ["import ctypes; ctypes.CDLL(None).setuid(0)", "import os; os.setuid(0)"]
)
async def test_root_cannot_be_taken_back(code):
    result = await run_python(code + "\nimport os; print(os.getuid())", LIMITS)
    assert result.stdout.strip() != "0" or os.geteuid() != 0
