"""The command line: arguments in, one call into the app out."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Sequence

from assistant import __version__

DESCRIPTION = (
    "A personal assistant that lives in Telegram and in this terminal: reminders, recurring "
    "tasks, notes, web search and a model that calls tools. Start with `assistant chat`; "
    "`assistant doctor` says what to set up."
)


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
    top = argparse.ArgumentParser(
        prog="assistant", description=DESCRIPTION, parents=[_common(True)]
    )
    top.add_argument("--version", action="version", version=f"assistant {__version__}")
    sub = _common(False)
    commands = top.add_subparsers(dest="command")
    command = functools.partial(commands.add_parser, parents=[sub])
    command("status", help="check the config and database and show what is set up")
    tools = command("tools", help="print the tool catalogue the model reads, and their origins")
    tools.add_argument("--format", choices=["text", "openai", "anthropic"], default="text")
    tools.add_argument(
        "--check", action="store_true", help="load the tools folder and report its errors"
    )
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
    usage = command("usage", help="what the model cost: today, this month, 30 days, by person")
    usage.add_argument("--chart", metavar="FILE", help="also draw the 30 days into a PNG file")
    tasks = command("tasks", help="the operator's view of every task")
    task_commands = tasks.add_subparsers(dest="tasks_command", required=True)
    task_command = functools.partial(task_commands.add_parser, parents=[sub])
    task_command("list", help="every live task of every user")
    cancel = task_command("cancel", help="cancel a task by its id")
    cancel.add_argument("task_id")
    command("chat", help="talk to the assistant in this terminal (no Telegram needed)")
    ask = command("ask", help="one turn with the model and the tools (risky ones refused)")
    ask.add_argument("text", help="what to ask, e.g. 'what time is it in Tokyo?'")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    args = parser().parse_args(argv)  # --version and --help end here, before anything heavy
    from assistant.dispatch import run_command

    return run_command(args)
