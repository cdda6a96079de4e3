"""What a channel talks to: the running assistant, whatever channel it is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from assistant.agent.dialog.events import EventSink
from assistant.agent.front.response import Response
from assistant.agent.person import Person
from assistant.llm.types import Attachment


class Assistant(Protocol):
    """The app's runtime, as channels see it."""

    async def person(
        self, user_id: int, chat_id: int, name: str = "", language: str = ""
    ) -> Person:
        """Whom a message is from, in their timezone and language (``language`` is the
        channel's hint, such as Telegram's language_code)."""
        ...

    async def answer(
        self,
        person: Person,
        text: str,
        sink: EventSink | None = None,
        *,
        attachments: Sequence[Attachment] = (),
    ) -> Response:
        """One response to the words and what came with them, whoever answered."""
        ...

    async def located(self, person: Person, latitude: float, longitude: float) -> Response:
        """What a shared location does: the person's zone is set from it."""
        ...

    async def press(self, person: Person, data: str) -> Response:
        """What a button does."""
        ...

    async def decide(self, token: str, user_id: int, approve: bool) -> str:
        """Answer an approval request; approving runs exactly the stored call."""
        ...

    async def transcribe(
        self, audio: bytes, filename: str, person: Person | None = None, seconds: float = 0.0
    ) -> str:
        """The words of a voice note (``seconds`` long, counted for ``person``); a
        ``FetchError`` whose message the user may read when there are none (speech not
        configured, the endpoint down, silence); a ``BudgetError`` when the person's budget
        is spent."""
        ...
