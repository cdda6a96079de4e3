"""What the front door gives back for a message or a button press: one shape for every channel,
whoever answered (a command, the local step, the model)."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.agent.dialog.events import Answer
from assistant.agent.front.buttons import Button, Reply
from assistant.tools import Attachment


@dataclass(frozen=True)
class Response:
    """Text, buttons, files and images to show, and how the exchange ended."""

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    files: tuple[tuple[str, bytes], ...] = ()
    images: tuple[Attachment, ...] = ()
    ending: str = "answered"  # or awaiting, max_steps, invalid, unfounded, stopped, timeout, error
    streamed: bool = False  # the model's answer: its text may have been shown as it grew

    @classmethod
    def of(cls, result: Reply | Answer) -> Response:
        """The response that carries a command's reply or the model's answer."""
        if isinstance(result, Answer):
            return cls(result.text, images=result.attachments, ending=result.ending, streamed=True)
        return cls(result.text, result.buttons, result.files, result.images)
