"""Approval requests bound to one call: its exact arguments, its user, one use, a deadline.

The desk turns the agent's question into a pending approval with a random token, has the
channel present it (buttons, a y/n prompt), and waits for the answer or the deadline. An
answer counts only from the same user, for the same arguments (by hash), once, in time;
anything else is refused, and the wait ends refused: it fails closed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from assistant.agent.approval import ApprovalRequest, Decision
from assistant.clock import Clock
from assistant.redaction import redact_value

log = logging.getLogger(__name__)

DEFAULT_TTL = timedelta(minutes=10)
BODY_PREVIEW = 400


def arguments_hash(arguments: Mapping[str, Any]) -> str:
    """A stable hash of a call's arguments, binding an approval to exactly them."""
    encoded = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


def preview(request: ApprovalRequest) -> str:
    """The exact action as the user approves it, secrets masked and long bodies cut."""
    masked = redact_value(dict(request.arguments))
    lines = [f"{request.tool}: {request.reason}"]
    if isinstance(masked, Mapping) and "url" in masked:
        lines.append(f"{masked.get('method', 'GET')} {masked['url']}")
        for name, value in (masked.get("headers") or {}).items():
            lines.append(f"  {name}: {value}")
        body = masked.get("body")
        if body not in (None, ""):
            text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
            lines.append(f"  body: {text[:BODY_PREVIEW]}{'…' if len(text) > BODY_PREVIEW else ''}")
    else:
        lines.append(json.dumps(masked, ensure_ascii=False, indent=1, default=str)[:1500])
    return "\n".join(lines)


@dataclass
class Pending:
    """An approval waiting for its answer."""

    token: str
    request: ApprovalRequest
    digest: str
    expires_at: datetime
    text: str
    answer: asyncio.Future[Decision] = field(repr=False, default_factory=asyncio.Future)


Presenter = Callable[[Pending], Awaitable[None]]


class ApprovalDesk:
    """Asks through a channel's presenter and checks every answer against its request."""

    def __init__(self, clock: Clock, present: Presenter, ttl: timedelta = DEFAULT_TTL) -> None:
        self._clock = clock
        self._present = present
        self._ttl = ttl
        self._pending: dict[str, Pending] = {}

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Present the request and wait for a valid answer, or refuse at the deadline."""
        pending = Pending(
            secrets.token_urlsafe(12),
            request,
            arguments_hash(request.arguments),
            self._clock.now() + self._ttl,
            preview(request),
        )
        self._pending[pending.token] = pending
        try:
            await self._present(pending)
            return await self._wait(pending)
        finally:
            self._pending.pop(pending.token, None)
            if not pending.answer.done():
                pending.answer.cancel()

    def answer(self, token: str, user_id: int, approve: bool, digest: str | None = None) -> str:
        """Take an answer; returns what to tell the one who gave it."""
        pending = self._pending.get(token)
        if pending is None or pending.answer.done():
            return "This approval is no longer open (answered, expired or unknown)."
        if user_id != pending.request.user_id:
            log.warning(
                "user %s tried to answer an approval of user %s", user_id, pending.request.user_id
            )
            return "Only the person who asked can answer this."
        if digest is not None and digest != pending.digest:
            return "The action changed since this was asked; it was not approved."
        if self._clock.now() >= pending.expires_at:
            pending.answer.set_result(Decision(False, user_id, "the request expired"))
            return "This approval expired; nothing was run."
        note = "approved" if approve else "declined"
        pending.answer.set_result(Decision(approve, user_id, note))
        return "Approved." if approve else "Declined; nothing was run."

    def open(self) -> list[Pending]:
        """The approvals waiting now."""
        return [p for p in self._pending.values() if not p.answer.done()]

    async def _wait(self, pending: Pending) -> Decision:
        deadline = asyncio.ensure_future(self._clock.sleep_until(pending.expires_at))
        waits: set[asyncio.Future[Any]] = {pending.answer, deadline}
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            deadline.cancel()
        if pending.answer.done() and not pending.answer.cancelled():
            return pending.answer.result()
        return Decision(False, note="the request expired")
