"""The data directory, made ready before anything is opened in it: created when only it is
missing, checked writable, and held by one running assistant at a time (a lock file that
names the holder's pid, which also lets other commands wake its scheduler)."""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import tempfile
from pathlib import Path
from typing import IO

from assistant.config import user_name
from assistant.errors import StorageError

log = logging.getLogger(__name__)


def prepare(database: Path) -> None:
    """Make sure the database's folder exists and is writable; each failure says what to do."""
    folder = database.parent
    if folder.exists() and not folder.is_dir():
        raise StorageError(
            f"{folder}: is a file, not a folder. Move it away, or set assistant.data_dir to a "
            "folder."
        )
    if not folder.exists():
        _make(folder)
    _check_writable(folder)
    if database.is_dir():
        raise StorageError(f"{database}: is a folder, not the database file. Move it away.")


def _make(folder: Path) -> None:
    if not folder.parent.is_dir():
        raise StorageError(
            f"{folder}: cannot be made: its parent {folder.parent} does not exist. Create "
            "it, or set assistant.data_dir (under systemd, StateDirectory= makes it)."
        )
    try:
        folder.mkdir()
    except OSError as exc:
        raise StorageError(f"{folder}: cannot be made ({exc.strerror}). {_ADVICE}") from None


_ADVICE = (
    "Give the user the assistant runs as a folder it may write (chown it), or set "
    "assistant.data_dir; under systemd, StateDirectory=assistant provides one."
)


def _check_writable(folder: Path) -> None:
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise StorageError(
            f"{folder}: is not writable by user {user_name()} ({exc.strerror}). {_ADVICE}"
        ) from None


def lock_path(database: Path) -> Path:
    """The lock file of a database."""
    return database.parent / f"{database.name}.lock"


def own(database: Path) -> IO[bytes]:
    """Hold the database's lock, so one process fires its tasks (released when closed)."""
    lock = lock_path(database).open("a+b")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        pid = lock.read().decode(errors="replace").strip() or "unknown"
        lock.close()
        raise StorageError(
            f"{database}: in use by another assistant (pid {pid}). Stop it first "
            "(systemctl stop assistant, or end that process)."
        ) from None
    lock.truncate(0)
    lock.write(str(os.getpid()).encode())
    lock.flush()
    return lock


def holder(database: Path) -> int | None:
    """The pid of the running assistant that holds the database, if one does."""
    try:
        with lock_path(database).open("rb") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return None  # nobody holds it
            except BlockingIOError:
                return int(lock.read().strip() or 0) or None  # held: the pid in it is alive
    except (OSError, ValueError):
        return None


def nudge(database: Path) -> None:
    """Wake the scheduler of the process that holds the database (SIGUSR1), if one runs."""
    pid = holder(database)
    if pid and pid != os.getpid():
        try:
            os.kill(pid, signal.SIGUSR1)
        except OSError:
            log.debug("could not wake the running assistant", exc_info=True)
