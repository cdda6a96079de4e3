"""The commands behind the command line: each one call into the app, failures one line."""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import shutil
import signal
import sqlite3
import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.clock import SystemClock
from assistant.errors import AssistantError, StorageError
from assistant.logs import configure_logging
from assistant.redaction import redact_text, remember_secrets

if TYPE_CHECKING:
    from assistant import app

log = logging.getLogger(__name__)

# Commands that do one thing and end: their output is the answer, with no log chatter.
ONE_SHOT = frozenset(
    {
        None,
        "status",
        "tools",
        "schedule",
        "doctor",
        "ask",
        "tasks",
        "backup",
        "restore",
        "export",
        "usage",
    }
)

# Commands whose output says every problem itself: a log line would only say it twice.
SAYS_IT_ITSELF = frozenset({"doctor", "ask"})


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed command and return its exit status: a failure is one plain line (exit 2),
    with the redacted traceback only under ``--debug``."""
    os.umask(0o077)  # every file and folder it makes is its owner's alone, whatever the umask
    configure_logging(_level(args, "INFO"), once=args.command in ONE_SHOT)
    try:
        return _flushed(_dispatch(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # ExceptionGroup from a TaskGroup included
        if (closed := _output_failure(exc)) is not None:
            return closed
        known = _assistant_error(exc) or _damaged(exc)
        if known is not None:
            print(f"assistant: {redact_text(str(known))}", file=sys.stderr)
        else:
            log.debug("the traceback of the failure", exc_info=exc)
            hint = "" if args.debug else " Run it again with --debug to see the traceback."
            print(f"assistant: it stopped on an unexpected {_kind(exc)}.{hint}", file=sys.stderr)
        return 2


async def _run(setup: app.Setup) -> None:
    from assistant.app import serve

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)
    await serve.serve_telegram(setup, SystemClock(), stop)


async def _chat(setup: app.Setup) -> None:
    from assistant.app import serve
    from assistant.app.joining import running_service
    from assistant.channels.console import Console, CurrentStdout, WholeLines
    from assistant.channels.stdin import stdin_lines

    folder = setup.database_path().parent
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    if (joined := running_service(setup.database_path())) is not None:
        await _join(joined, folder, tty)
        return
    prompt = tty and _log_to(folder / "chat.log", setup.config.assistant.log_level)
    out = WholeLines(CurrentStdout(), lambda: shutil.get_terminal_size().columns)
    console = Console(
        out if prompt else CurrentStdout(),
        serve.console_user(setup),
        exports=folder / "exports",
    )
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, console.feed, None)
    loop.add_signal_handler(signal.SIGINT, console.interrupt)
    async with asyncio.TaskGroup() as group:
        if prompt:
            reader = group.create_task(console.read_prompt(folder / "chat-history"))
        else:
            reader = group.create_task(console.read_lines(stdin_lines()))
        await serve.chat(setup, SystemClock(), console)
        reader.cancel()


async def _join(socket: Path, folder: Path, tty: bool) -> None:
    """Talk to the running service instead of opening the database beside it."""
    from assistant.app import joining
    from assistant.channels.console import PROMPT, CurrentStdout, Style, WholeLines
    from assistant.channels.stdin import prompt_lines, stdin_lines

    stdout = CurrentStdout()
    if not tty:
        await joining.chat(socket, stdin_lines(), stdout, color=False)
        return
    from prompt_toolkit.patch_stdout import patch_stdout

    out = WholeLines(stdout, lambda: shutil.get_terminal_size().columns)
    with patch_stdout(raw=True):
        lines = prompt_lines(folder / "chat-history", PROMPT)
        style = Style.for_output(stdout)
        await joining.chat(socket, lines, out, color=style.on, terminal=style.terminal)


async def _ask(setup: app.Setup, text: str) -> str:
    """One request: to the running service when one runs, else on a runtime of its own."""
    from assistant.app import joining, serve

    if (joined := joining.running_service(setup.database_path())) is not None:
        return await joining.ask(joined, text, sys.stdout)
    return (await serve.ask(setup, text, SystemClock(), sys.stdout)).ending


def _level(args: argparse.Namespace, configured: str) -> str:
    """DEBUG under --debug; a one-shot command prints warnings and errors only, and one that
    reports its own problems prints none."""
    if args.debug:
        return "DEBUG"
    if args.command in SAYS_IT_ITSELF:
        return "CRITICAL"
    quiet = (args.command in ONE_SHOT or args.command == "chat") and logging.getLevelName(
        configured.upper()
    ) < logging.WARNING
    return "WARNING" if quiet else configured


def _log_to(path: Path, level: str) -> bool:
    """Log to a file instead of the terminal, so log lines stay out of the conversation."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        stream = path.open("a", encoding="utf-8")  # open for the life of the chat
    except OSError:
        return False
    configure_logging(level, stream)
    print(f"(log lines go to {path})")
    return True


def _dispatch(args: argparse.Namespace) -> int:
    from assistant import app
    from assistant.config import config_path, load_config

    path, named = config_path(args.config)
    config = load_config(path, named=named)
    remember_secrets(config.secret_values(os.environ))
    configure_logging(_level(args, config.assistant.log_level), once=args.command in ONE_SHOT)
    setup = app.Setup(
        config,
        str(path) if path.exists() else "embedded defaults",
        path.resolve().parent if path.exists() else None,
    )
    if args.command == "tools":
        from assistant.app import listing

        if args.check:
            return listing.check_folder(setup, sys.stdout)
        return asyncio.run(listing.list_tools(setup, args.format, sys.stdout))
    if args.command == "doctor":
        from assistant.app import doctor

        return 0 if asyncio.run(doctor.doctor(setup, sys.stdout, as_json=args.json)) else 1
    if args.command in ("tasks", "backup", "restore", "export", "usage"):
        _operate(args, setup)
    elif args.command == "run":
        asyncio.run(_run(setup))
    elif args.command == "chat":
        asyncio.run(_chat(setup))
    elif args.command == "ask":
        return 0 if asyncio.run(_ask(setup, args.text)) in ("answered", "max_steps") else 1
    elif args.command == "schedule":
        print(app.preview_schedule(config, args.text, args.tz, SystemClock().now()))
    else:
        print(asyncio.run(app.status(setup)))
    return 0


def _operate(args: argparse.Namespace, setup: app.Setup) -> None:
    """The operator's commands: every user's tasks, and copies of the data."""
    from assistant.app import backups, operations

    if args.command == "tasks" and args.tasks_command == "list":
        asyncio.run(operations.list_tasks(setup, sys.stdout))
    elif args.command == "tasks":
        asyncio.run(operations.cancel_task(setup, args.task_id, sys.stdout))
    elif args.command == "usage":
        chart = Path(args.chart).expanduser() if args.chart else None
        asyncio.run(operations.usage(setup, chart, sys.stdout))
    elif args.command == "backup":
        print(asyncio.run(backups.backup(setup, Path(args.path).expanduser().resolve())))
    elif args.command == "restore":
        source = Path(args.path).expanduser().resolve()
        print(asyncio.run(backups.restore(setup, source, SystemClock().now())))
    else:
        print(asyncio.run(operations.export(setup, Path(args.folder).expanduser())))


def _damaged(exc: BaseException) -> AssistantError | None:
    """A database error that escaped its store: the file is damaged (a page, a table)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    log.debug("the database failed", exc_info=exc)
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_READONLY:
        return StorageError(
            "the database is read-only, so nothing can be saved: make the data folder and its "
            "files writable by the user it runs as, then run it again."
        )
    return StorageError(
        f"the database failed ({exc}): it may be damaged. Restore a backup (assistant restore "
        "FILE; daily copies are in the data folder's backups) or move it away to start afresh."
    )


def _flushed(status: int) -> int:
    """The status, once what was printed has reached the output (a closed pipe shows here)."""
    sys.stdout.flush()
    return status


def _output_failure(exc: BaseException) -> int | None:
    """A closed pipe ends the command quietly, as a Unix tool ends (status 141, SIGPIPE's); a
    full device is one line. None for any other error."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()
        return 128 + signal.SIGPIPE
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        _silence_stdout()
        print(
            "assistant: no space left on the device it writes to (its output, or the data "
            "folder): free some space and run it again.",
            file=sys.stderr,
        )
        return 2
    return None


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush is quiet."""
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _assistant_error(exc: BaseException) -> AssistantError | None:
    """The error we raised on purpose, also when a task group wrapped it."""
    if isinstance(exc, AssistantError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := _assistant_error(inner)) is not None:
                return found
    return None


def _kind(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"error ({type(exc).__name__})"
