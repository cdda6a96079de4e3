"""The terminal channel: the same agent, commands and scheduler, typed at a prompt.

Answers stream as they grow; reminders print when they fire; approvals ask y/n; buttons are
pressed by their number (or ``/press``). Lines are read while a turn runs, so ``/stop`` and
Ctrl-C stop it; a second Ctrl-C within two seconds leaves. Needs no Telegram token, and without
a model the commands still work.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Protocol

from assistant.agent import AgentEvent, Answer, Person, TextSoFar, Thinking, ToolStarted
from assistant.agent.approving.approver import Pending
from assistant.agent.channel import Assistant
from assistant.agent.front.answers import yes_or_no
from assistant.agent.front.buttons import Button, notice_buttons
from assistant.agent.front.response import Response
from assistant.channels.stdin import INTERRUPT, prompt_lines
from assistant.errors import StorageError
from assistant.locales import tr
from assistant.memory import export
from assistant.scheduler import Notice

PROMPT = "› "
GREETING = (
    "assistant: type a message, or /help for commands; /quit or Ctrl-D leaves.\n"
    "Reminders print here when they fire; /stop or Ctrl-C stops an answer."
)
AGAIN = "(Ctrl-C again within 2 s leaves)"
WORKING = "…"
ERASE_LINE_ABOVE = "\x1b[1A\x1b[2K"  # the cursor up a line, and that line cleared
TWICE_SECONDS = 2.0
STILL_ASKING = "(the approval above still waits: y or n)"


class Output(Protocol):
    """Where the console writes: a terminal, a file, or a test's buffer."""

    def write(self, text: str, /) -> int:
        """Write text."""
        ...

    def flush(self) -> None:
        """Show what was written."""
        ...


class CurrentStdout:
    """Standard output as it is at each write (the prompt swaps it to print above itself)."""

    def write(self, text: str, /) -> int:
        """Write to the current standard output."""
        return sys.stdout.write(text)

    def flush(self) -> None:
        """Flush the current standard output."""
        sys.stdout.flush()

    def isatty(self) -> bool:
        """Whether the process's own standard output is a terminal."""
        return sys.__stdout__ is not None and sys.__stdout__.isatty()


class WholeLines:
    """An output above a prompt that passes on whole lines only.

    The prompt is redrawn after every write, from the start of its line: a part of a line
    written before it would be drawn over, so a streamed answer is held until its line ends,
    and a line wider than the terminal goes out a row at a time, cut after a space.
    """

    def __init__(self, out: Output, columns: Callable[[], int] = lambda: 80) -> None:
        self._out, self._columns, self._held = out, columns, ""

    def write(self, text: str, /) -> int:
        """Take text; write each line (or terminal row) it completes."""
        self._held += text
        whole, newline, self._held = self._held.rpartition("\n")
        rows = whole.split("\n") if newline else []
        while len(self._held) >= (width := max(self._columns(), 20)):
            cut = self._held.rfind(" ", 0, width) + 1 or width
            rows.append(self._held[:cut].rstrip())
            self._held = self._held[cut:]
        if newline or rows:
            self._out.write("".join(row + "\n" for row in rows))
        return len(text)

    def flush(self) -> None:
        """Show the lines written; a line still open stays held."""
        self._out.flush()

    def isatty(self) -> bool:
        """Whether the output below is a terminal."""
        isatty = getattr(self._out, "isatty", None)
        return bool(callable(isatty) and isatty())


class Style:
    """Colors on a terminal that wants them; plain text anywhere else (a pipe, a file)."""

    def __init__(self, on: bool, terminal: bool = False) -> None:
        self.on = on
        self.terminal = terminal or on  # a screen that can take a line back

    @classmethod
    def for_output(cls, out: object) -> Style:
        """Colors when ``out`` is a terminal and ``$NO_COLOR`` is not set."""
        isatty = getattr(out, "isatty", None)
        terminal = bool(callable(isatty) and isatty())
        return cls(terminal and "NO_COLOR" not in os.environ, terminal)

    def dim(self, text: str) -> str:
        """Text in the background: tools at work, button hints."""
        return f"\x1b[2m{text}\x1b[0m" if self.on else text

    def bold(self, text: str) -> str:
        """Text that must be seen: a notice, an approval."""
        return f"\x1b[1m{text}\x1b[0m" if self.on else text


class Printer:
    """Streams each step's text as it grows, then what the finished answer adds to it."""

    def __init__(self, out: Output, style: Style | None = None) -> None:
        self._out = out
        self._style = style or Style(False)
        self._shown = ""
        self._working = False  # the "…" line is the last one written

    async def show(self, event: AgentEvent) -> None:
        """Print the new part of the answer, a line for each tool at work, and "…" while the
        model thinks (taken away again on a terminal when words come)."""
        if isinstance(event, Thinking):
            if self._style.terminal and not self._shown and not self._working:
                self._write(self._style.dim(WORKING) + "\n")
                self._working = True
            return
        if self._working and isinstance(event, TextSoFar | ToolStarted):
            self._write(ERASE_LINE_ABOVE)
        self._working = False
        if isinstance(event, ToolStarted):
            line = self._style.dim(f"  ⚙ {event.name}…")
            self._write(f"{'' if not self._shown else chr(10)}{line}\n")
            self._shown = ""
        if not isinstance(event, TextSoFar):
            return
        if not event.text.startswith(self._shown):  # a new step's text
            self._write("\n")
            self._shown = ""
        self._write(event.text[len(self._shown) :])
        self._shown = event.text

    def finish(self, answer: Answer | Response) -> None:
        """Print what was not streamed: the whole answer, or its sources and notices."""
        if self._working:
            self._write(ERASE_LINE_ABOVE)
        self._working = False
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

    def __init__(
        self,
        out: Output,
        user_id: int = 0,
        style: Style | None = None,
        exports: Path | None = None,
    ) -> None:
        self._out = out
        self._exports = exports  # where /export writes its files
        self._user_id = user_id
        self._style = style or Style.for_output(out)
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._work: asyncio.Queue[str | None] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._asking: str | None = None  # the approval the next line answers
        self._closed: set[str] = set()  # approvals whose ending was printed
        self._buttons: list[Button] = []  # the last ones shown, pressed by their number
        self._busy = False
        self._interrupted = -TWICE_SECONDS
        self._leaving = False
        self._greeted = asyncio.Event()  # the prompt is shown under the greeting, not above it

    async def deliver(self, notice: Notice) -> int:
        """Print a notice from the scheduler (a reminder, a result, a report)."""
        self._print(
            f"\n{self._style.bold(f'🔔 {notice.text}')}{self._hints(notice_buttons(notice))}"
        )
        return next(self._ids)

    async def present(self, pending: Pending) -> int | None:
        """Show an approval request; the next line typed answers it (y, else no)."""
        heading = tr(pending.language, "⚠️ Approval needed:")
        self._print(self._style.bold(f"\n{heading}\n{pending.text}"))
        self._print(tr(pending.language, "Approve? [y/n] (type it next)"))
        self._asking = pending.token
        return next(self._ids)

    async def close(self, pending: Pending, outcome: str) -> None:
        """Say how an approval ended (once: the answer typed here is not said again)."""
        if self._asking == pending.token:
            self._asking = None
        self._closed.add(pending.token)
        self._print(f"[{pending.tool}] {outcome}")

    def feed(self, line: str | None) -> None:
        """Take a line of input (None at the end of input)."""
        self._lines.put_nowait(line)

    def interrupt(self, now: float | None = None) -> None:
        """Ctrl-C: stop the answer being written; a second within two seconds leaves."""
        now = time.monotonic() if now is None else now
        if now - self._interrupted <= TWICE_SECONDS:
            self._leaving = True  # at once: what is queued is not answered
            self.feed(None)
            return
        self._interrupted = now
        if self._busy:
            self.feed("/stop")
        self._print(self._style.dim(AGAIN))

    async def read_lines(self, lines: AsyncIterator[str]) -> None:
        """Feed lines in as they come; at their end, feed None."""
        async for line in lines:
            self.feed(line)
        self.feed(None)

    async def read_prompt(self, history: Path) -> None:
        """Read lines at a prompt with line editing and history (kept in ``history``), the
        output printed above it; Ctrl-C interrupts, Ctrl-D ends the input."""
        from prompt_toolkit.patch_stdout import patch_stdout  # a terminal only

        await self._greeted.wait()
        with patch_stdout(raw=True):
            async for line in prompt_lines(history, PROMPT):
                if line == INTERRUPT:
                    self.interrupt()
                else:
                    self.feed(line)
        self.feed(None)

    async def run(self, assistant: Assistant) -> None:
        """Answer lines until /quit or the end of input (what was typed before is answered
        first), or a double Ctrl-C (at once). Lines are read while an answer is written:
        /stop, approvals and button numbers do not wait for it."""
        self._print(GREETING)
        self._greeted.set()
        worker = asyncio.ensure_future(self._answer_lines(assistant))
        try:
            while (line := await self._lines.get()) is not None:
                if not await self._take(assistant, line.strip()):
                    break
            self._work.put_nowait(None)
            if not self._leaving:
                await asyncio.shield(worker)
        finally:
            worker.cancel()
            with suppress(asyncio.CancelledError):
                await worker

    async def _take(self, assistant: Assistant, text: str) -> bool:
        """Stop the answer being written at once, or queue the line; False to leave."""
        if text in ("/quit", "/exit"):  # an open approval stays open until it expires
            return False
        if text == "/stop" and self._busy:
            await self._run_line(assistant, text)
        else:
            self._work.put_nowait(text)
        return True

    async def _answer_lines(self, assistant: Assistant) -> None:
        """Lines in the order typed: an approval's answer, a button's number, or words."""
        while (text := await self._work.get()) is not None:
            self._busy = True
            try:
                if self._asking is not None and (approve := yes_or_no(text)) is not None:
                    token, self._asking = self._asking, None
                    said = await assistant.decide(token, self._user_id, approve)
                    if token not in self._closed:  # its ending was not printed already
                        self._print(said)
                elif text.isdigit() and 0 < int(text) <= len(self._buttons):
                    await self._run_line(assistant, f"/press {self._buttons[int(text) - 1].data}")
                elif text:
                    waiting = self._asking
                    await self._run_line(assistant, text)
                    if waiting is not None and self._asking == waiting:  # not its answer
                        self._print(self._style.dim(STILL_ASKING))
            finally:
                self._busy = False

    async def _run_line(self, assistant: Assistant, text: str) -> None:
        try:
            person = await assistant.person(self._user_id, self._user_id, "")
            await self._handle(assistant, person, text)
        except StorageError as exc:  # a full disk: one line, and the chat goes on
            self._print(str(exc))

    async def _handle(self, assistant: Assistant, person: Person, text: str) -> None:
        if text.startswith("/press "):
            self._show(await assistant.press(person, text[7:].strip()))
            return
        printer = Printer(self._out, self._style)
        result = await assistant.answer(person, text, printer.show)
        pictures = [(f"picture-{n}.png", p.data) for n, p in enumerate(result.images, 1)]
        if result.streamed:
            printer.finish(result)
        elif result.files or pictures:  # a chart, an export: saved where the terminal says
            self._print(result.text + "\n" + await self._save([*result.files, *pictures]))
        else:
            self._show(result)

    async def _save(self, files: Sequence[tuple[str, bytes]]) -> str:
        """Write a reply's files to a new folder and say where; a terminal cannot attach them."""
        if self._exports is None:
            return "(files cannot be saved here: no data folder)"
        folder = self._exports / time.strftime("%Y%m%d-%H%M%S")
        try:
            written = await asyncio.to_thread(export.write, folder, dict(files))
        except OSError as exc:
            return f"could not save the files in {folder}: {exc.strerror or 'an error'}"
        return "\n".join(f"  saved {path}" for path in written)

    def _show(self, reply: Response) -> None:
        self._print(reply.text + self._hints(reply.buttons))

    def _hints(self, rows: Sequence[Sequence[Button]]) -> str:
        """Buttons by number, with the command each stands for; the numbers press them."""
        buttons = [b for row in rows for b in row]
        if not buttons:
            return ""
        self._buttons = buttons
        hints = [f"  {n}. {b.text}  (/press {b.data})" for n, b in enumerate(buttons, 1)]
        return "\n" + self._style.dim("\n".join(hints))

    def _print(self, text: str) -> None:
        self._out.write(text if text.endswith(" ") else text + "\n")
        self._out.flush()
