"""Running untrusted Python: ``python -I`` in a child with hard limits, alone and offline.

A small launcher (a fresh interpreter, so no thread of ours is in the fork) cuts the network
with a new network namespace where the OS allows it, sets limits on CPU time, memory, file
size, processes and open files, drops root to ``nobody``, and replaces itself with
``python -I`` on the code, in an empty environment and a temporary directory. A wall-clock
timeout kills the whole process group; output is capped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DRAIN_SECONDS = 2.0
LAUNCHER = r"""
import ctypes, os, resource, sys
cpu, memory, fsize, nproc, nofile = (int(x) for x in sys.argv[1:6])
python = sys.argv[6]
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET, CLONE_NEWUSER = 0x40000000, 0x10000000
offline = libc.unshare(CLONE_NEWNET) == 0 or libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU first, SIGKILL a second on
for limit, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, fsize),
                     (resource.RLIMIT_NOFILE, nofile), (resource.RLIMIT_CORE, 0)):
    resource.setrlimit(limit, (value, value))
if os.geteuid() == 0 and python != sys.executable:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
os.write(2, b"\0offline\0" if offline else b"\0online\0")
os.execve(python, [python, "-I", "main.py"], {})
"""


@dataclass(frozen=True)
class SandboxLimits:
    """What one run may use."""

    cpu_seconds: int = 5
    memory_mb: int = 256
    file_mb: int = 1
    processes: int = 16
    open_files: int = 32
    wall_seconds: float = 10.0
    output_bytes: int = 10_000


@dataclass(frozen=True)
class SandboxResult:
    """How a run ended and what it printed, with what stopped it, if anything."""

    exit_code: int | None
    stdout: str
    stderr: str
    stopped: str = ""
    offline: bool = False

    def report(self) -> str:
        """The result as the model reads it."""
        parts = [f"exit code {self.exit_code}" if self.exit_code is not None else "killed"]
        if self.stopped:
            parts.append(f"stopped: {self.stopped}")
        text = "; ".join(parts)
        if self.stdout:
            text += f"\nstdout:\n{self.stdout}"
        if self.stderr:
            text += f"\nstderr:\n{self.stderr}"
        return text


async def run_python(code: str, limits: SandboxLimits) -> SandboxResult:
    """Run ``code`` under ``limits`` and return what happened."""
    with tempfile.TemporaryDirectory(prefix="sandbox-") as tmp:
        arguments = await asyncio.to_thread(_prepare, Path(tmp), code, limits)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-c", LAUNCHER, *arguments,
            cwd=tmp, env={}, start_new_session=True,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        return await _supervise(process, limits)


def _prepare(folder: Path, code: str, limits: SandboxLimits) -> list[str]:
    (folder / "main.py").write_text(code, encoding="utf-8")
    folder.chmod(0o777)  # the code runs as nobody when we are root
    return _numbers(limits)


def _numbers(limits: SandboxLimits) -> list[str]:
    return [
        str(limits.cpu_seconds),
        str(limits.memory_mb * 2**20),
        str(limits.file_mb * 2**20),
        str(limits.processes),
        str(limits.open_files),
        interpreter(),
    ]


def interpreter() -> str:
    """The Python the code runs on: one that ``nobody`` may run when we are root.

    Root is not held to a process limit, so as root the code runs as ``nobody``, on an
    interpreter every user can reach (ours may sit in root's home); else on ours.
    """
    if os.geteuid() != 0:
        return sys.executable
    candidates = (sys.executable, getattr(sys, "_base_executable", ""), "/usr/bin/python3")
    return next((c for c in candidates if c and _everyone_can_run(c)), sys.executable)


def _everyone_can_run(path: str) -> bool:
    real = Path(os.path.realpath(path))
    if not real.is_file() or not real.stat().st_mode & 0o001:
        return False
    return all(parent.stat().st_mode & 0o001 for parent in real.parents)


async def _supervise(process: asyncio.subprocess.Process, limits: SandboxLimits) -> SandboxResult:
    assert process.stdout is not None and process.stderr is not None
    readers = [
        asyncio.ensure_future(_drain(stream, limits.output_bytes, lambda: _kill(process)))
        for stream in (process.stdout, process.stderr)
    ]
    stopped = ""
    _, running = await asyncio.wait(readers, timeout=limits.wall_seconds)
    if running:
        stopped = f"took longer than {limits.wall_seconds:g} s"
        _kill(process)
        _, running = await asyncio.wait(readers, timeout=DRAIN_SECONDS)
    for reader in running:  # a child that escaped the group still holds a pipe: let it go
        reader.cancel()
        transport = getattr(process, "_transport", None)
        if transport is not None:
            transport.close()
    await asyncio.gather(*readers, return_exceptions=True)
    _kill(process)
    code = await process.wait()
    (out, out_cut), (err, err_cut) = (
        r.result() if not r.cancelled() else (b"", False) for r in readers
    )
    if (out_cut or err_cut) and not stopped:
        stopped = f"output past {limits.output_bytes:,} bytes was cut and the run ended"
    return _result(None if stopped.startswith("took") else code, out, err, stopped, limits)


async def _drain(
    stream: asyncio.StreamReader, cap: int, over: Callable[[], None]
) -> tuple[bytes, bool]:
    """Everything up to ``cap``; past it the run is ended and the rest read and dropped."""
    data, cut = b"", False
    while chunk := await stream.read(65536):
        if not cut:
            data += chunk
        if len(data) > cap and not cut:
            data, cut = data[:cap], True
            over()
    return data, cut


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _result(
    code: int | None, out: bytes, err: bytes, stopped: str, limits: SandboxLimits
) -> SandboxResult:
    offline = b"\0offline\0" in err
    stderr = err.replace(b"\0offline\0", b"").replace(b"\0online\0", b"").decode("utf-8", "replace")
    if not stopped and code is not None and code < 0:
        stopped = _signal_reason(-code, limits)
    if not stopped and "MemoryError" in stderr:
        stopped = f"memory limit of {limits.memory_mb} MB"
    return SandboxResult(code, out.decode("utf-8", "replace"), stderr, stopped, offline)


def _signal_reason(number: int, limits: SandboxLimits) -> str:
    if number == signal.SIGXCPU:
        return f"CPU time limit of {limits.cpu_seconds} s"
    if number == signal.SIGXFSZ:
        return f"file size limit of {limits.file_mb} MB"
    return f"killed by signal {signal.Signals(number).name}"
