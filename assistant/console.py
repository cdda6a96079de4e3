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
from typing import TextIO

from assistant.agent import AgentEvent, Answer, Person, TextSoFar, ToolStarted
from assistant.agent.approvals import Pending
from assistant.agent.channel import Assistant
from assistant.agent.commands import Button, Reply, notice_buttons
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
        self.assistant: Assistant | None = None

    async def deliver(self, notice: Notice) -> int:
        """Print a notice from the scheduler (a reminder, a result, a report)."""
        buttons = notice_buttons(notice)
        self._print(f"\n🔔 {notice.text}{_hints(buttons)}")
        return next(self._ids)

    async def present(self, pending: Pending) -> None:
        """Ask y/n for an approval, and pass the answer on."""
        self._print(f"\n⚠️ Approval needed:\n{pending.text}\nApprove? [y/N] ")
        line = await self._lines.get()
        approve = (line or "").strip().lower() in ("y", "yes")
        if self.assistant is not None:
            result = self.assistant.decide(
                pending.token, pending.request.user_id, approve, pending.digest
            )
            self._print(result)

    def feed(self, line: str | None) -> None:
        """Take a line of input (None at the end of input)."""
        self._lines.put_nowait(line)

    def read_stdin(self) -> None:
        """Read standard input in a daemon thread, feeding lines in; at its end, feed None."""
        loop = asyncio.get_running_loop()

        def pump() -> None:
            for line in sys.stdin:
                loop.call_soon_threadsafe(self.feed, line)
            loop.call_soon_threadsafe(self.feed, None)

        threading.Thread(target=pump, name="stdin", daemon=True).start()

    async def run(self) -> None:
        """Answer lines until /quit or the end of input."""
        assert self.assistant is not None
        person = await self.assistant.person(self._user_id, self._user_id, "")
        self._print(GREETING)
        while (line := await self._lines.get()) is not None:
            text = line.strip()
            if text in ("/quit", "/exit"):
                break
            if text:
                await self._handle(person, text)
                person = await self.assistant.person(self._user_id, self._user_id, "")

    async def _handle(self, person: Person, text: str) -> None:
        assert self.assistant is not None
        if text.startswith("/press "):
            self._show(await self.assistant.press(person, text[7:].strip()))
            return
        printer = Printer(self._out)
        result = await self.assistant.answer(person, text, printer.show)
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
