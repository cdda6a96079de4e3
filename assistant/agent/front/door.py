"""The front door: one entry for every channel, one reply out.

A message goes to the first that takes it: a slash command, the answer to the question the
chat waits on, a request a sentence reads whole (no model), else the model's turn. A button's
data goes to the handler its prefix names; the rest are the commands' own buttons.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

from assistant.agent.dialog.events import EventSink
from assistant.agent.dialog.turns import Turns
from assistant.agent.front.answers import Answers
from assistant.agent.front.buttons import Reply
from assistant.agent.front.commands import Commands
from assistant.agent.front.local import LocalFirst
from assistant.agent.front.response import Response
from assistant.agent.person import Person
from assistant.llm.types import Attachment

Press = Callable[[Person, str], Awaitable[Reply]]


class FrontDoor:
    """Routes a message or a button press to what answers it."""

    def __init__(
        self,
        commands: Commands,
        turns: Turns,
        local: LocalFirst | None = None,
        answers: Answers | None = None,
    ) -> None:
        self._commands = commands
        self._turns = turns
        self._local = local
        self._answers = answers
        self._buttons: Mapping[str, Press] = (
            {"local": local.press, "note": local.press_note, "pick": local.press_pick}
            if local
            else {}
        )

    async def answer(
        self,
        person: Person,
        text: str,
        sink: EventSink | None = None,
        *,
        attachments: Sequence[Attachment] = (),
    ) -> Response:
        """A command's reply, an answer's, the local step's, or the model's turn."""
        reply = await self._decided(person, text, attachments)
        if reply is None:
            reply = await self._commands.handle(person, text)
        if reply is None and not attachments and self._answers is not None:
            reply = await self._answers.answer(person, text)
        if reply is None and not attachments and self._local is not None:
            reply = await self._local.answer(person, text)
        if reply is not None:
            return Response.of(reply)
        return Response.of(await self._turns.reply(person, text, sink, attachments=attachments))

    async def without_model(self, person: Person, text: str) -> Reply | None:
        """What the door answers with no model turn: a command, an answer, a request read
        whole; None when only the model could answer."""
        if text.startswith("/press "):
            pressed = await self.press(person, text.removeprefix("/press ").strip())
            return Reply(pressed.text, pressed.buttons)
        reply = await self._decided(person, text)
        if reply is None:
            reply = await self._commands.handle(person, text)
        if reply is None and self._answers is not None:
            reply = await self._answers.answer(person, text)
        if reply is None and self._local is not None:
            reply = await self._local.understood(person, text)
        return reply

    async def _decided(
        self, person: Person, text: str, attachments: Sequence[Attachment] = ()
    ) -> Reply | None:
        """A typed answer to the approval last asked where the person speaks; anything else
        is said since it (so a later yes is not for it)."""
        if self._answers is None:
            return None
        return await self._answers.decided(person, "" if attachments else text)

    async def located(self, person: Person, latitude: float, longitude: float) -> Response:
        """A shared location: the person's zone, found offline."""
        return Response.of(await self._commands.located(person, latitude, longitude))

    async def press(self, person: Person, data: str) -> Response:
        """What a button does: the handler its prefix names, else the commands'."""
        prefix = data.partition(":")[0]
        return Response.of(await self._buttons.get(prefix, self._commands.press)(person, data))
