"""What one model call consumed, or may consume."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Counted:
    """What one call consumed: tokens (cached ones are part of the input), audio seconds."""

    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    audio_seconds: float = 0.0
    estimated: bool = False  # the server reported none: our estimate
