"""Logging set-up: one handler, a redaction filter over messages and tracebacks, quiet httpx."""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

from assistant.redaction import redact_text

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
JOURNAL_FORMAT = "%(levelname)s %(name)s: %(message)s"  # journald stamps each line itself


class RedactionFilter(logging.Filter):
    """Masks secrets in a record's message, arguments, traceback and stack before it is written."""

    def __init__(self) -> None:
        super().__init__()
        self._formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place with its secrets masked; never drops it."""
        record.msg = redact_text(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True


class OnceFilter(logging.Filter):
    """Drops a line already written: a one-shot command says each warning once."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[tuple[int, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep the record unless the same level and message went out before."""
        key = (record.levelno, record.getMessage())
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


def to_journal(stream: TextIO) -> bool:
    """Whether ``stream`` is systemd's journal: ``$JOURNAL_STREAM`` names its device and inode."""
    device, _, inode = os.environ.get("JOURNAL_STREAM", "").partition(":")
    try:
        status = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return f"{status.st_dev}:{status.st_ino}" == f"{device}:{inode}"


def configure_logging(
    level: str = "INFO", stream: TextIO | None = None, *, once: bool = False
) -> logging.Handler:
    """Install the project's single redacting handler on the root logger and return it;
    ``once`` drops repeated lines (one-shot commands)."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(JOURNAL_FORMAT if to_journal(stream) else FORMAT))
    handler.addFilter(RedactionFilter())
    if once:
        handler.addFilter(OnceFilter())
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_assistant", False)]:
        root.removeHandler(old)
    handler._assistant = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level.upper())
    for noisy in ("httpx", "httpcore", "httpx2", "httpcore2", "aiosqlite"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return handler
