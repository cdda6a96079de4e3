"""The sandbox's launcher, run as its own interpreter: ``python -I -S jail.py SETTINGS``.

It never imports the assistant: it reads the program from standard input, makes new user,
mount, PID, network, IPC and UTS namespaces, builds a file view of its own (read-only system
directories, private tmpfs for ``/work``, ``/tmp`` and ``/dev/shm``, a fresh ``/proc``), drops
to an unprivileged uid with no capabilities and ``no_new_privs``, sets the limits, and becomes
``python -I /work/main.py`` as the PID namespace's init: when it ends, every descendant dies.

Each step that fails writes ``fail <step>: <reason>`` to the status descriptor and exits 125
before any of the program runs; ``ready`` is written just before the program starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import select
import signal
import sys
from collections.abc import Callable
from typing import Any

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
SANDBOX_UID = 1000  # the program's uid inside its own user namespace
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
DEVICES = ("null", "zero", "full", "random", "urandom")
ROOT = "/tmp"  # the mount point of the new root, in our own mount namespace only
FAILED = 125
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}

libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    """A step of building the jail failed; nothing of the program has run."""


def main() -> None:
    """Read the settings and the program, build the jail, run the program in it."""
    settings: dict[str, Any] = json.loads(sys.argv[1])
    status = int(settings["status_fd"])
    os.set_inheritable(status, False)  # the program never gets it
    try:
        code = sys.stdin.buffer.read(int(settings["max_code"]) + 1)
        outer_root = os.geteuid() == 0
        _step("namespaces", _unshare, outer_root)
    except SetupError as exc:
        _fail(status, str(exc))
    life, alive = os.pipe()  # closed when the launcher dies: the init's cue to stop
    child = os.fork()
    if child:
        os.close(status)
        os.close(life)
        _wait_as(child)
    os.close(alive)
    try:
        _init(settings, code, outer_root, life)
    except SetupError as exc:
        _fail(status, str(exc))
    _start(settings, status)


def _unshare(outer_root: bool) -> None:
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    if outer_root:  # root builds the view first and drops to an unprivileged uid after
        _call(libc.unshare, flags)
        return
    uid, gid = os.geteuid(), os.getegid()
    _call(libc.unshare, flags | CLONE_NEWUSER)
    _map(0, uid, 0, gid)


def _init(settings: dict[str, Any], code: bytes, outer_root: bool, life: int) -> None:
    """As the new PID namespace's init: build the file view, then drop every privilege."""
    _call(libc.prctl, PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # Our /proc entry, kept open across the pivot to write the last uid map without a /proc.
    proc_self = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    _step("file view", _build_root, settings, code)
    _step("hostname", lambda: _call(libc.sethostname, b"sandbox", 7))
    _step("privileges", _drop, outer_root, int(settings["uid"]), proc_self)
    os.close(proc_self)
    _step("limits", _limit, settings["limits"])
    _call(libc.prctl, PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # a changed uid cleared it
    if select.select([life], [], [], 0)[0]:  # readable means closed: the launcher is gone
        raise SetupError("parent: the launcher ended")
    os.close(life)


def _build_root(settings: dict[str, Any], code: bytes) -> None:
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=755")
    for path in (*SYSTEM_DIRS, *settings["read_only"]):
        _expose(path)
    _etc()
    _dev(settings["tmpfs_mb"])
    for path, mode in (("/tmp", "1777"), ("/work", "777")):
        options = f"size={settings['tmpfs_mb']}m,mode={mode}"
        os.makedirs(ROOT + path, exist_ok=True)
        _mount("tmpfs", ROOT + path, "tmpfs", MS_NOSUID | MS_NODEV, options)
    _write(ROOT + "/work/main.py", code, 0o444)
    os.makedirs(ROOT + "/proc", exist_ok=True)
    # A /proc of the new PID namespace; where the host's /proc is partly hidden the kernel
    # refuses it, and the program sees an empty /proc, which hides more, not less.
    with contextlib.suppress(SetupError):
        _mount("proc", ROOT + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.makedirs(ROOT + "/.old")
    _call(libc.syscall, _pivot_root_number(), ROOT.encode(), (ROOT + "/.old").encode())
    os.chdir("/")
    _call(libc.umount2, b"/.old", MNT_DETACH)
    os.rmdir("/.old")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _pivot_root_number() -> int:
    machine = os.uname().machine
    if machine not in PIVOT_ROOT:
        raise SetupError(f"pivot_root: no system call number known for {machine}")
    return PIVOT_ROOT[machine]


def _expose(path: str) -> None:
    """Show ``path`` read-only at the same place (a symlink stays a symlink)."""
    if os.path.islink(path):
        os.makedirs(os.path.dirname(ROOT + path), exist_ok=True)
        os.symlink(os.readlink(path), ROOT + path)
    elif os.path.isdir(path):
        os.makedirs(ROOT + path, exist_ok=True)
        _bind(path, ROOT + path)


def _bind(source: str, target: str) -> None:
    _mount(source, target, None, MS_BIND | MS_REC)
    kept = 0
    flags = os.statvfs(source).f_flag
    for kept_flag in (MS_NODEV, MS_NOEXEC, MS_NOATIME, MS_NODIRATIME, MS_RELATIME):
        if flags & kept_flag:  # ST_* and MS_* agree on these bits
            kept |= kept_flag
    _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | kept)


def _etc() -> None:
    os.makedirs(ROOT + "/etc")
    _write(ROOT + "/etc/passwd", b"sandbox:x:1000:1000::/work:/bin/sh\n", 0o444)
    _write(ROOT + "/etc/group", b"sandbox:x:1000:\n", 0o444)
    _write(ROOT + "/etc/hosts", b"127.0.0.1 localhost sandbox\n", 0o444)
    if os.path.isfile("/etc/ld.so.cache"):
        _write(ROOT + "/etc/ld.so.cache", b"", 0o444)
        _bind("/etc/ld.so.cache", ROOT + "/etc/ld.so.cache")


def _dev(tmpfs_mb: int) -> None:
    os.makedirs(ROOT + "/dev/shm")
    for name in DEVICES:
        _write(ROOT + f"/dev/{name}", b"", 0o666)
        _mount(f"/dev/{name}", ROOT + f"/dev/{name}", None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0")):
        os.symlink(target, ROOT + f"/dev/{name}")
    os.symlink("/proc/self/fd/1", ROOT + "/dev/stdout")
    os.symlink("/proc/self/fd/2", ROOT + "/dev/stderr")
    options = f"size={tmpfs_mb}m,mode=1777"
    _mount("tmpfs", ROOT + "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options)


def _drop(outer_root: bool, uid: int, proc_self: int) -> None:
    """No capabilities, an unprivileged uid, and a user namespace of the program's own."""
    for capability in range(64):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    if outer_root:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    parent_uid, parent_gid = os.geteuid(), os.getegid()
    _call(libc.unshare, CLONE_NEWUSER)
    _call(libc.prctl, PR_SET_DUMPABLE, 1, 0, 0, 0)  # a changed uid made /proc/self root's
    _map(SANDBOX_UID, parent_uid, SANDBOX_UID, parent_gid, proc_self)
    _call(libc.prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _map(
    inner_uid: int, outer_uid: int, inner_gid: int, outer_gid: int, proc: int | None = None
) -> None:
    _write_file("setgroups", b"deny", proc)
    _write_file("uid_map", f"{inner_uid} {outer_uid} 1".encode(), proc)
    _write_file("gid_map", f"{inner_gid} {outer_gid} 1".encode(), proc)


def _limit(limits: dict[str, int]) -> None:
    cpu = limits["cpu"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU first, SIGKILL after
    for name, value in (
        ("RLIMIT_AS", limits["memory"]),
        ("RLIMIT_FSIZE", limits["fsize"]),
        ("RLIMIT_NOFILE", limits["nofile"]),
        ("RLIMIT_NPROC", limits["nproc"]),  # counted in the program's own user namespace
        ("RLIMIT_CORE", 0),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))


def _start(settings: dict[str, Any], status: int) -> None:
    python = settings["python"]
    os.chdir("/work")
    os.write(status, b"ready\n")
    try:
        os.execve(python, [python, "-I", "main.py"], {"PATH": "/usr/bin:/bin", "HOME": "/work"})
    except OSError as exc:
        _fail(status, f"start: {python}: {exc.strerror}")


def _wait_as(child: int) -> None:
    """The launcher ends as its child did: same exit code, or killed by the same signal."""
    _, state = os.waitpid(child, 0)
    if os.WIFSIGNALED(state):
        number = os.WTERMSIG(state)
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(state))


def _step(name: str, action: Callable[..., None], *arguments: Any) -> None:
    try:
        action(*arguments)
    except SetupError as exc:
        raise SetupError(f"{name}: {exc}") from None
    except OSError as exc:
        raise SetupError(f"{name}: {exc.strerror or exc}") from None


def _call(function: Any, *arguments: Any) -> None:
    if function(*arguments) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number) if number else "failed")


def _mount(
    source: str | None, target: str, kind: str | None, flags: int, options: str = ""
) -> None:
    def encode(text: str | None) -> bytes | None:
        return text.encode() if text is not None else None

    try:
        _call(libc.mount, encode(source), target.encode(), encode(kind), flags, encode(options))
    except OSError as exc:
        raise SetupError(f"mount {target}: {exc.strerror}") from None


def _write(path: str, data: bytes, mode: int) -> None:
    with open(path, "wb") as file:
        file.write(data)
    os.chmod(path, mode)


def _write_file(name: str, data: bytes, proc: int | None) -> None:
    path = name if proc is not None else f"/proc/self/{name}"
    descriptor = os.open(path, os.O_WRONLY, dir_fd=proc)
    try:
        os.write(descriptor, data)
    finally:
        os.close(descriptor)


def _fail(status: int, reason: str) -> None:
    os.write(status, f"fail {reason}\n".encode())
    os._exit(FAILED)


if __name__ == "__main__":
    main()
