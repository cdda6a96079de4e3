"""Approvals bound to one call: its exact arguments, its user, one use, a deadline.

The desk stores the agent's question as a pending approval with a random token and has the
channel present it; the turn that asked is over by then. An answer counts only from the same
user, once, before the deadline; approving runs exactly the stored call, after checking that
the call about to run hashes to what was shown. Deny, expiry and every refusal are audited,
and the prompt is edited to say how it ended. A restart keeps pending approvals answerable.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any

from assistant.agent.approving.approver import ApprovalRequest, Languages, Pending, Prompts
from assistant.clock import Clock
from assistant.errors import AssistantError
from assistant.llm.types import AssistantMessage, ToolCall
from assistant.locales import ENGLISH, tr
from assistant.memory.approvals import ApprovalBook, Status, StoredApproval
from assistant.memory.conversation import Conversations
from assistant.tools import Executor, ToolContext, ToolResult
from assistant.tools.telling import told

log = logging.getLogger(__name__)

DEFAULT_TTL = timedelta(minutes=10)
RESULT_PREVIEW = 600


def digest(text: str) -> str:
    """The hash that binds an approval to the exact bytes the owner was shown."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def preview(tool: str, reason: str, arguments: Mapping[str, Any]) -> str:
    """The whole call as the owner approves it: nothing cut, nothing masked, and canonical, so
    that the same text always means the same call."""
    return f"{tool}: {reason}\n{_action(dict(arguments))}"


def _action(arguments: dict[str, Any]) -> str:
    if "url" in arguments:
        lines = [f"{arguments.get('method', 'GET')} {arguments['url']}"]
        headers = arguments.get("headers") or {}
        lines += [f"header {name}: {headers[name]}" for name in sorted(headers)]
        body = arguments.get("body")
        if isinstance(body, str):
            lines.append(f"body (text, {len(body):,} characters):\n{body}")
        elif body is not None:
            lines.append(f"body (JSON):\n{_json(body)}")
        rest = {k: v for k, v in arguments.items() if k not in ("url", "method", "headers", "body")}
        return "\n".join([*lines, *([f"other: {_json(rest)}"] if rest else [])])
    if set(arguments) == {"code"} and isinstance(arguments["code"], str):
        code = arguments["code"]
        return f"Python program ({len(code):,} characters, shown whole):\n{code}"
    return _json(arguments)


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=1, default=str)


class ApprovalDesk:
    """Stores, presents, answers and expires approvals; runs an approved call exactly once."""

    def __init__(
        self,
        book: ApprovalBook,
        executor: Executor,
        conversations: Conversations,
        prompts: Prompts,
        clock: Clock,
        *,
        ttl: timedelta = DEFAULT_TTL,
        services: object = None,
        languages: Languages | None = None,
    ) -> None:
        self._languages = languages  # the person's language, for what the desk tells them
        self._book = book
        self._executor = executor
        self._conversations = conversations
        self._prompts = prompts
        self._clock = clock
        self._ttl = ttl
        self._services = services
        self._added = asyncio.Event()

    async def ask(self, request: ApprovalRequest) -> bool:
        """Store the request and show it; False (and refused) when it cannot be shown."""
        exact = preview(request.tool, request.reason, request.arguments)
        shown = request.human or exact
        stored = StoredApproval(
            secrets.token_urlsafe(12),
            request.user_id,
            request.chat_id,
            request.timezone,
            request.request_id,
            request.call_id,
            request.tool,
            request.arguments,
            digest(exact),  # bound to the exact call, whatever words show it
            request.reason,
            shown,
            self._clock.now() + self._ttl,
            channel=request.channel,
        )
        await self._book.add(stored, self._clock.now())
        try:
            message_id = await self._prompts.present(_pending(stored, request.language))
        except AssistantError as exc:
            log.warning("could not show the approval for %s (%s); refused", request.tool, exc)
            await self._end(stored, "refused", None, "it could not be asked for")
            return False
        except Exception:
            log.exception("could not show the approval for %s; refused", request.tool)
            await self._end(stored, "refused", None, "it could not be asked for")
            return False
        await self._book.shown(stored.token, message_id)
        self._added.set()
        return True

    async def typed_in(self, chat_id: int, user_id: int, channel: str) -> list[str]:
        """The tokens of the person's approvals a typed yes or no in ``channel`` may answer:
        shown there, and the last thing asked there."""
        now = self._clock.now()
        return [a.token for a in await self._book.typed_in(chat_id, user_id, channel, now)]

    async def said_since(self, chat_id: int, user_id: int, channel: str) -> None:
        """Something else was said in the chat since its approvals were shown: a typed yes
        there is no longer for them (their buttons still are)."""
        await self._book.said_since(chat_id, user_id, channel)

    async def answer(self, token: str, user_id: int, approve: bool) -> str:
        """Take the owner's answer; returns what to tell the one who gave it."""
        stored, language = await self._book.get(token), await self._language(user_id)
        if stored is None or stored.status != "pending":
            return _closed(language)
        if user_id != stored.user_id:
            log.warning("user %s tried to answer an approval of user %s", user_id, stored.user_id)
            return tr(language, "Only the person who asked can answer this.")
        if self._clock.now() >= stored.expires_at:
            await self.expire()
            return tr(language, "This approval expired; nothing was run.")
        if not approve:
            taken = await self._end(stored, "denied", user_id, "the user declined it")
            return tr(language, "Declined; nothing was run.") if taken else _closed(language)
        return await self._approve(stored, user_id, language)

    async def expire(self) -> int:
        """Refuse every approval past its deadline, and say so where it was asked."""
        ended = 0
        for stored in await self._book.expired(self._clock.now()):
            ended += await self._end(stored, "expired", None, "the request expired")
        return ended

    async def run(self) -> None:
        """Expire approvals as their deadlines pass (those missed while stopped, at once)."""
        while True:
            self._added.clear()
            await self.expire()
            deadline = await self._book.next_deadline()
            waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(self._added.wait())}
            if deadline is not None:
                waits.add(asyncio.ensure_future(self._clock.sleep_until(deadline)))
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in waits:
                    waiting.cancel()

    async def _approve(self, stored: StoredApproval, user_id: int, language: str) -> str:
        taken = await self._book.take(stored.token, "approved", self._clock.now(), user_id)
        if taken is None:
            return _closed(language)
        context = self._context(stored)
        checked = await self._executor.check(_call(stored), context)
        if isinstance(checked, ToolResult):
            outcome = tr(language, "Not run: the stored call is no longer valid.")
        elif digest(preview(stored.tool, stored.reason, checked.json_arguments)) != stored.digest:
            reason = "the action changed since it was asked; it was not approved"
            await self._executor.refuse(checked, context, reason, user_id)
            outcome = tr(language, "Not run: the action changed since this was asked.")
        else:
            [result] = await self._executor.execute([replace(checked, approver=user_id)], context)
            outcome = _ran(stored.tool, result, language, stored.timezone)
        await self._report(stored, outcome)
        return outcome

    async def _end(
        self, stored: StoredApproval, status: Status, approver: int | None, why: str
    ) -> bool:
        """Refuse a pending approval for good: audited, and the prompt says why."""
        taken = await self._book.take(stored.token, status, self._clock.now(), approver)
        if taken is None:
            return False
        context = self._context(stored)
        checked = await self._executor.check(_call(stored), context)
        if not isinstance(checked, ToolResult):
            await self._executor.refuse(checked, context, f"not run: {why}", approver)
        language = await self._language(stored.user_id)
        said = {
            "denied": tr(language, "Not run: the user declined it."),
            "expired": tr(language, "Not run: the request expired."),
        }
        await self._report(
            stored, said.get(status, tr(language, "Not run: it could not be asked for."))
        )
        return True

    async def _language(self, user_id: int) -> str:
        return (await self._languages(user_id) if self._languages else "") or ENGLISH

    async def _report(self, stored: StoredApproval, outcome: str) -> None:
        """Edit the prompt to the outcome, and keep it in the chat's history for the model."""
        try:
            await self._prompts.close(_pending(stored), outcome)
        except Exception:
            log.exception("could not update the approval prompt %s", stored.token)
        message = AssistantMessage(f"[{stored.tool} call {stored.call_id}] {outcome}")
        try:
            await self._conversations.append(
                stored.chat_id, stored.user_id, stored.request_id, [message]
            )
        except Exception:
            log.exception("could not store the outcome of approval %s", stored.token)

    def _context(self, stored: StoredApproval) -> ToolContext:
        return ToolContext(
            stored.user_id,
            stored.chat_id,
            stored.request_id,
            stored.timezone,
            self._clock,
            self._services,
            channel=stored.channel,
        )


def _pending(stored: StoredApproval, language: str = ENGLISH) -> Pending:
    return Pending(
        stored.token,
        stored.user_id,
        stored.chat_id,
        stored.tool,
        stored.preview,
        stored.expires_at,
        stored.message_id,
        language,
        stored.channel,
    )


def _call(stored: StoredApproval) -> ToolCall:
    return ToolCall(stored.call_id, stored.tool, dict(stored.arguments))


def _closed(language: str) -> str:
    return tr(language, "This approval is no longer open (answered, expired or unknown).")


def _ran(tool: str, result: ToolResult, language: str, zone: str) -> str:
    said = told(result, language, zone)
    content = said[:RESULT_PREVIEW] + ("…" if len(said) > RESULT_PREVIEW else "")
    if result.is_error:
        return tr(language, "Approved, but {tool} failed: {what}", tool=tool, what=content)
    return tr(language, "Approved and done: {tool}\n{what}", tool=tool, what=content)
