"""The data directory, made ready before anything is opened in it: created when only it is
missing, checked writable, and held by one running assistant at a time (a lock file that
names the holder's pid, which also lets other commands wake its scheduler)."""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import stat
import tempfile
from pathlib import Path
from typing import IO

from assistant.config import user_name
from assistant.errors import StorageError

log = logging.getLogger(__name__)


# What the assistant itself writes in its data folder: made its owner's alone when found
# readable by others (written by an older version, or under a looser umask). Only these: the
# folder may be one the owner keeps other things in.
OURS = ("*.db", "*.db-*", "*.db.*", "chat-history", "chat.log")
OUR_FOLDERS = {"backups": "assistant-*.db", "exports": "**/assistant-export-*", "mcp": "*.log"}


def prepare(database: Path) -> None:
    """Make sure the database's folder exists, is writable and is its owner's alone; each
    failure says what to do."""
    folder = database.parent
    if folder.exists() and not folder.is_dir():
        raise StorageError(
            f"{folder}: is a file, not a folder. Move it away, or set assistant.data_dir to a "
            "folder."
        )
    if not folder.exists():
        _make(folder)
    _check_writable(folder)
    tighten(folder)
    if database.is_dir():
        raise StorageError(f"{database}: is a folder, not the database file. Move it away.")


def _make(folder: Path) -> None:
    if not folder.parent.is_dir():
        raise StorageError(
            f"{folder}: cannot be made: its parent {folder.parent} does not exist. Create "
            "it, or set assistant.data_dir (under systemd, StateDirectory= makes it)."
        )
    try:
        folder.mkdir(mode=0o700)
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


def tighten(folder: Path) -> list[Path]:
    """Take others' access away from the data folder and what the assistant wrote in it;
    returns what was changed."""
    found = [folder]
    for pattern in OURS:
        found += folder.glob(pattern)
    for name, pattern in OUR_FOLDERS.items():
        if (folder / name).is_dir():
            found += [folder / name, *(folder / name).glob(pattern)]
            found += [p for p in (folder / name).glob("*") if p.is_dir()]
    return [path for path in found if _private(path)]


def _private(path: Path) -> bool:
    try:
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode) or not mode & 0o077:
            return False
        path.chmod(stat.S_IMODE(mode) & 0o700)
    except OSError as exc:
        log.warning("%s: could not be made private (%s)", path, exc.strerror)
        return False
    log.info("%s: readable by others; now its owner's alone", path)
    return True


def lock_path(database: Path) -> Path:
    """The lock file of a database."""
    return database.parent / f"{database.name}.lock"


def own(database: Path) -> IO[bytes]:
    """Hold the database's lock, so one process fires its tasks (released when closed)."""
    descriptor = os.open(lock_path(database), os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    lock = os.fdopen(descriptor, "a+b")
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
