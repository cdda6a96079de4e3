"""The terminal channel: the same agent, commands and scheduler, typed at a prompt.

Answers stream as they grow; reminders print when they fire; approvals ask y/n; buttons show
as ``/press`` commands. Needs no Telegram token, and without a model the commands still work.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import threading
from collections.abc import Sequence
from typing import BinaryIO, TextIO

from assistant.agent import AgentEvent, Answer, Person, TextSoFar, ToolStarted
from assistant.agent.approval import Pending
from assistant.agent.channel import Assistant
from assistant.agent.commands import Button, Reply, notice_buttons
from assistant.errors import StorageError
from assistant.tasks import Notice

PROMPT = "› "
GREETING = (
    "assistant: type a message, or /help for commands; /quit or Ctrl-D leaves.\n"
    "Reminders print here when they fire."
)


class Printer:
    """Streams each step's text as it grows, then what the finished answer adds to it."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._shown = ""

    async def show(self, event: AgentEvent) -> None:
        """Print the new part of the answer, and a line for each tool at work."""
        if isinstance(event, ToolStarted):
            self._write(f"{'' if not self._shown else chr(10)}  ⚙ {event.name}…\n")
            self._shown = ""
        if not isinstance(event, TextSoFar):
            return
        if not event.text.startswith(self._shown):  # a new step's text
            self._write("\n")
            self._shown = ""
        self._write(event.text[len(self._shown) :])
        self._shown = event.text

    def finish(self, answer: Answer) -> None:
        """Print what was not streamed: the whole answer, or its sources and notices."""
        before, found, after = answer.text.partition(self._shown) if self._shown else ("", "", "")
        if not found:
            self._write(("\n" if self._shown else "") + answer.text + "\n")
        else:
            self._write(after + "\n")
            if before.strip():
                self._write(before.strip() + "\n")
        self._shown = ""

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()


class Console:
    """A prompt on a terminal: lines in, answers and notifications out."""

    def __init__(self, out: TextIO, user_id: int = 0) -> None:
        self._out = out
        self._user_id = user_id
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._asking: str | None = None  # the approval the next line answers

    async def deliver(self, notice: Notice) -> int:
        """Print a notice from the scheduler (a reminder, a result, a report)."""
        buttons = notice_buttons(notice)
        self._print(f"\n🔔 {notice.text}{_hints(buttons)}")
        return next(self._ids)

    async def present(self, pending: Pending) -> int | None:
        """Show an approval request; the next line typed answers it (y, else no)."""
        self._print(f"\n⚠️ Approval needed:\n{pending.text}\nApprove? [y/N] (type it next)")
        self._asking = pending.token
        return next(self._ids)

    async def close(self, pending: Pending, outcome: str) -> None:
        """Say how an approval ended."""
        if self._asking == pending.token:
            self._asking = None
        self._print(f"[{pending.tool}] {outcome}")

    def feed(self, line: str | None) -> None:
        """Take a line of input (None at the end of input)."""
        self._lines.put_nowait(line)

    def read_stdin(self, stream: BinaryIO | None = None) -> None:
        """Read standard input in a daemon thread, feeding lines in; at its end, feed None.
        Bytes that are not UTF-8 become U+FFFD instead of ending the chat."""
        loop = asyncio.get_running_loop()
        source = stream if stream is not None else sys.stdin.buffer

        def pump() -> None:
            for raw in source:
                loop.call_soon_threadsafe(self.feed, raw.decode("utf-8", "replace"))
            loop.call_soon_threadsafe(self.feed, None)

        threading.Thread(target=pump, name="stdin", daemon=True).start()

    async def run(self, assistant: Assistant) -> None:
        """Answer lines until /quit or the end of input."""
        self._print(GREETING)
        while (line := await self._lines.get()) is not None:
            text = line.strip()
            if self._asking is not None:
                token, self._asking = self._asking, None
                approve = text.lower() in ("y", "yes")
                self._print(await assistant.decide(token, self._user_id, approve))
                continue
            if text in ("/quit", "/exit"):
                break
            if text:
                try:
                    person = await assistant.person(self._user_id, self._user_id, "")
                    await self._handle(assistant, person, text)
                except StorageError as exc:  # a full disk: one line, and the chat goes on
                    self._print(str(exc))

    async def _handle(self, assistant: Assistant, person: Person, text: str) -> None:
        if text.startswith("/press "):
            self._show(await assistant.press(person, text[7:].strip()))
            return
        printer = Printer(self._out)
        result = await assistant.answer(person, text, printer.show)
        if isinstance(result, Answer):
            printer.finish(result)
        else:
            self._show(result)

    def _show(self, reply: Reply) -> None:
        self._print(reply.text + _hints(reply.buttons))

    def _print(self, text: str) -> None:
        self._out.write(text if text.endswith(" ") else text + "\n")
        self._out.flush()


def _hints(rows: Sequence[Sequence[Button]]) -> str:
    """Buttons as commands to type."""
    hints = [f"  [{b.text}] /press {b.data}" for row in rows for b in row]
    return "\n" + "\n".join(hints) if hints else ""
