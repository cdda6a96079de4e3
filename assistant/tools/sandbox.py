"""Running untrusted Python in a jail of its own: namespaces, no privileges, hard limits.

``jail.py`` (a fresh interpreter, so no thread of ours is in the fork) makes new user, mount,
PID, network, IPC and UTS namespaces, a private file view and an unprivileged uid, and runs
the program as the PID namespace's init. Here we feed it the program on standard input, read
its output with a cap, and kill it at the wall clock; the kernel then kills every process of
the namespace. A jail that cannot be built runs nothing: the step that failed is reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from assistant.errors import ToolError

DRAIN_SECONDS = 2.0
NOBODY = 65534
JAIL = str(Path(__file__).with_name("jail.py"))
MAX_CODE = 20_000
ENABLE_NAMESPACES = (
    "It needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and "
    "user.max_user_namespaces > 0; on Ubuntu also kernel.apparmor_restrict_unprivileged_userns"
    "=0) or running as root with CAP_SYS_ADMIN; in a container, allow unshare and mount"
)
PROBE = "import os; print(os.getuid(), os.getpid(), sorted(os.listdir('/')))"


class SandboxUnavailableError(ToolError):
    """The jail could not be built here, so nothing ran."""


@dataclass(frozen=True)
class Jail:
    """How runs are launched: the launcher's command, the program's interpreter, what it sees."""

    launcher: tuple[str, ...]
    python: str
    read_only: tuple[str, ...] = ()
    uid: int = NOBODY

    @classmethod
    def here(cls) -> Jail:
        """Launched by our interpreter; the program runs on the base Python, shown read-only."""
        base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
        prefix = os.path.realpath(sys.base_prefix)
        shown = () if prefix == "/usr" or prefix.startswith("/usr/") else (prefix,)
        return cls((sys.executable, "-I", "-S", JAIL), base, shown)


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


@dataclass(frozen=True)
class Sandbox:
    """Runs programs in the jail under the limits."""

    limits: SandboxLimits = field(default_factory=SandboxLimits)
    jail: Jail = field(default_factory=lambda: Jail.here())  # noqa: PLW0108 - patchable

    async def run(self, code: str) -> SandboxResult:
        """Run ``code`` and return what happened; ``SandboxUnavailableError`` if no jail."""
        if len(code) > MAX_CODE:
            raise ToolError(f"the program is {len(code):,} characters; at most {MAX_CODE:,}")
        status, report = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                *self.jail.launcher,
                json.dumps(self._settings(report)),
                cwd="/",
                env={},
                start_new_session=True,
                pass_fds=(report,),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        finally:
            os.close(report)
        try:
            assert process.stdin is not None
            with contextlib.suppress(ConnectionError):
                process.stdin.write(code.encode("utf-8", "replace"))
                await process.stdin.drain()
                process.stdin.close()
            result = await _supervise(process, self.limits)
            steps = await asyncio.to_thread(_read_status, status)
        finally:
            os.close(status)
        failure = next((s[5:] for s in steps if s.startswith("fail ")), None)
        if failure is not None or "ready" not in steps:
            raise SandboxUnavailableError(
                f"the sandbox could not be set up ({failure or 'no report'})"
            )
        return result

    async def check(self) -> str | None:
        """Why programs cannot run isolated here, or None when a probe ran as it should."""
        try:
            result = await self.run(PROBE)
        except ToolError as exc:
            return str(exc)
        if result.exit_code != 0 or not result.stdout.startswith("1000 1 "):
            return f"the probe did not run as expected ({result.stopped or result.stderr[-200:]})"
        return None

    def _settings(self, report: int) -> dict[str, object]:
        limits = self.limits
        return {
            "status_fd": report,
            "max_code": MAX_CODE * 4,
            "uid": self.jail.uid,
            "python": self.jail.python,
            "read_only": list(self.jail.read_only),
            "tmpfs_mb": max(limits.file_mb, 1),
            "limits": {
                "cpu": limits.cpu_seconds,
                "memory": limits.memory_mb * 2**20,
                "fsize": limits.file_mb * 2**20,
                "nproc": limits.processes,
                "nofile": limits.open_files,
            },
        }


def _read_status(descriptor: int) -> list[str]:
    os.set_blocking(descriptor, False)
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(descriptor, 4096):
            data += chunk
    return data.decode("utf-8", "replace").splitlines()


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
    stderr = err.decode("utf-8", "replace")
    if not stopped and code is not None and code < 0:
        stopped = _signal_reason(-code, limits)
    if not stopped and "MemoryError" in stderr:
        stopped = f"memory limit of {limits.memory_mb} MB"
    return SandboxResult(code, out.decode("utf-8", "replace"), stderr, stopped)


def _signal_reason(number: int, limits: SandboxLimits) -> str:
    if number == signal.SIGXCPU:
        return f"CPU time limit of {limits.cpu_seconds} s"
    if number == signal.SIGXFSZ:
        return f"file size limit of {limits.file_mb} MB"
    return f"killed by signal {signal.Signals(number).name}"
