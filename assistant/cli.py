"""The command line: arguments in, one call into the app out."""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assistant import __version__
from assistant.clock import SystemClock
from assistant.errors import AssistantError
from assistant.logs import configure_logging
from assistant.redaction import redact_text, remember_secrets

if TYPE_CHECKING:  # the app is imported by the command that needs it: --version stays quick
    from assistant import app

log = logging.getLogger(__name__)


def _common(defaults: bool) -> argparse.ArgumentParser:
    """--config and --debug, taken before or after the subcommand (after wins)."""
    common = argparse.ArgumentParser(add_help=False)
    unset = {} if defaults else {"default": argparse.SUPPRESS}
    common.add_argument(
        "--config",
        metavar="PATH",
        help="config file (default: $ASSISTANT_CONFIG or ./config.toml; without either, the "
        "embedded defaults)",
        **unset,  # type: ignore[arg-type]
    )
    common.add_argument(
        "--debug",
        action="store_true",
        help="log at DEBUG and show tracebacks (redacted)",
        **unset,  # type: ignore[arg-type]
    )
    return common


def parser() -> argparse.ArgumentParser:
    """The argument parser of the ``assistant`` command."""
    top = argparse.ArgumentParser(prog="assistant", description=__doc__, parents=[_common(True)])
    top.add_argument("--version", action="version", version=f"assistant {__version__}")
    sub = _common(False)
    commands = top.add_subparsers(dest="command")
    command = functools.partial(commands.add_parser, parents=[sub])
    command("status", help="check the config and database and show what is set up")
    tools = command("tools", help="print the tool catalogue the model reads")
    tools.add_argument("--format", choices=["text", "openai", "anthropic"], default="text")
    schedule = command("schedule", help="show how schedule text is read")
    schedule.add_argument(
        "text", help="e.g. 'in 5m', 'tomorrow 9am', 'weekdays 6pm', '*/15 * * * *'"
    )
    schedule.add_argument("--tz", help="IANA timezone (default: assistant.timezone)")
    command("run", help="run the Telegram bot and the scheduler")
    doctor = command("doctor", help="check config, database, model and Telegram; say what to fix")
    doctor.add_argument("--json", action="store_true", help="the checks as JSON, for scripts")
    backup = command("backup", help="a consistent copy of the database, bot running")
    backup.add_argument("path", help="the file to write (an existing file is not overwritten)")
    restore = command(
        "restore", help="replace the database with a backup (the bot must be stopped)"
    )
    restore.add_argument("path", help="a file written by `assistant backup`")
    export = command(
        "export", help="the owner's notes, tasks and conversations as JSON and Markdown"
    )
    export.add_argument("folder", help="where to write the files (created if missing)")
    tasks = command("tasks", help="the operator's view of every task")
    task_commands = tasks.add_subparsers(dest="tasks_command", required=True)
    task_commands.add_parser("list", help="every live task of every user")
    cancel = task_commands.add_parser("cancel", help="cancel a task by its id")
    cancel.add_argument("task_id")
    command("chat", help="talk to the assistant in this terminal (no Telegram needed)")
    ask = command("ask", help="one turn with the model and the tools (risky ones refused)")
    ask.add_argument("text", help="what to ask, e.g. 'what time is it in Tokyo?'")
    return top


async def _run(setup: app.Setup) -> None:
    from assistant.app import serve

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)
    await serve.serve_telegram(setup, SystemClock(), stop)


async def _chat(setup: app.Setup) -> None:
    from assistant.app import serve
    from assistant.console import Console

    console = Console(sys.stdout, serve.console_user(setup))
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, console.feed, None)
    console.read_stdin()
    await serve.chat(setup, SystemClock(), console)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status: a failure is one plain line (exit 2),
    with the redacted traceback only under ``--debug``."""
    args = parser().parse_args(argv)
    configure_logging("DEBUG" if args.debug else "INFO")
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # ExceptionGroup from a TaskGroup included
        known = _assistant_error(exc)
        if known is not None:
            print(f"assistant: {redact_text(str(known))}", file=sys.stderr)
        else:
            log.debug("the traceback of the failure", exc_info=exc)
            hint = "" if args.debug else " Run it again with --debug to see the traceback."
            print(f"assistant: it stopped on an unexpected {_kind(exc)}.{hint}", file=sys.stderr)
        return 2


def _dispatch(args: argparse.Namespace) -> int:
    from assistant import app
    from assistant.config import config_path, load_config

    path, named = config_path(args.config)
    config = load_config(path, named=named)
    remember_secrets(config.secret_values(os.environ))
    configure_logging("DEBUG" if args.debug else config.assistant.log_level)
    setup = app.Setup(
        config,
        str(path) if path.exists() else "embedded defaults",
        path.resolve().parent if path.exists() else None,
    )
    if args.command == "tools":
        print(app.catalogue(config, args.format))
    elif args.command == "doctor":
        from assistant.app import doctor

        return 0 if asyncio.run(doctor.doctor(setup, sys.stdout, as_json=args.json)) else 1
    elif args.command in ("tasks", "backup", "restore", "export"):
        _operate(args, setup)
    elif args.command == "run":
        asyncio.run(_run(setup))
    elif args.command == "chat":
        asyncio.run(_chat(setup))
    elif args.command == "ask":
        from assistant.app import serve

        answer = asyncio.run(serve.ask(setup, args.text, SystemClock(), sys.stdout))
        return 0 if answer.ending in ("answered", "max_steps") else 1
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
    elif args.command == "backup":
        print(asyncio.run(backups.backup(setup, Path(args.path).expanduser().resolve())))
    elif args.command == "restore":
        source = Path(args.path).expanduser().resolve()
        print(asyncio.run(backups.restore(setup, source, SystemClock().now())))
    else:
        print(asyncio.run(operations.export(setup, Path(args.folder).expanduser())))


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
