"""The package and its dependencies where an unprivileged user can read them.

Tests that drop to another user (the service recipe, a read-only data folder) run this
checkout's code. A checkout in a private folder (mode 0700, like a home folder) hides it from
that user, so it is installed, as the recipe installs it, into a folder everyone may read:
hard links where the file system allows (no copying of the dependencies), else copies.
"""

from __future__ import annotations

import os
import shutil
import stat
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def open_to_others(path: Path) -> bool:
    """Whether any user can reach and read ``path``: every folder above it lets others through."""
    for folder in [*reversed(path.parents)]:
        if not folder.stat().st_mode & stat.S_IXOTH:
            return False
    return bool(path.stat().st_mode & stat.S_IROTH)


def shared_paths(into: Path) -> tuple[Path, Path]:
    """The source folder and the dependencies folder for another user's ``sys.path``."""
    source, dependencies = ROOT, Path(sysconfig.get_paths()["purelib"])
    if open_to_others(source / "assistant") and open_to_others(dependencies):
        return source, dependencies
    into.chmod(0o755)
    shutil.copytree(ROOT / "assistant", into / "src" / "assistant", copy_function=_link)
    shutil.copytree(dependencies, into / "deps", symlinks=True, copy_function=_link)
    for folder, _, _ in os.walk(into):
        Path(folder).chmod(0o755)
    return into / "src", into / "deps"


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copy2(source, target)
    Path(target).chmod(Path(target).stat().st_mode | stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)


def shared_folder() -> Path:
    """A new folder outside pytest's private ones, for ``shared_paths``."""
    return Path(tempfile.mkdtemp(prefix="assistant-shared-"))
