"""A model whose every call is held to its payer's budget before it is sent and counted when
it ends: the tokens the server reported, or our estimate (marked) when it reported none."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace

from assistant.errors import AssistantError, ModelSlowError
from assistant.llm.model import Model
from assistant.llm.tokens import ApproxCounter, OverCounter, TokenCounter, message_tokens
from assistant.llm.types import Completion, Payer, Request, StreamEvent, TextDelta
from assistant.usage.counted import Counted
from assistant.usage.ledger import Alert, Ledger

log = logging.getLogger(__name__)
CHARS_PER_TOKEN = 4  # a call's arguments: JSON, a token every four
SYSTEM = Payer(0, source="system")  # calls for nobody (the tool-mode probe): counted, not held
LEAST_REPLY = 256  # tokens: an answer lowered to fit a budget is never shorter (else refused)
Alerted = Callable[[Alert], Awaitable[None]]


class MeteredModel:
    """Wraps a provider's adapter: reserve, call, settle."""

    def __init__(
        self, inner: Model, ledger: Ledger, model: str, *, reply_tokens: int, on_alert: Alerted
    ) -> None:
        self._inner = inner
        self._ledger = ledger
        self._model = model
        self._reply_tokens = reply_tokens
        self._on_alert = on_alert

    @property
    def name(self) -> str:
        """The adapter's name."""
        return self._inner.name

    async def complete(self, request: Request) -> Completion:
        """The answer, once the budget allowed the call (its answer lowered to fit)."""
        held, request = await self._reserve(request)
        try:
            completion = await self._inner.complete(request)
        except BaseException as exc:
            await asyncio.shield(self._gave_up(held, exc))
            raise
        await self._settle(held, request, completion)
        return completion

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """The answer as it grows, once the budget allowed the call; its final usage counted."""
        (held, request), text = await self._reserve(request), ""
        try:
            async for event in self._inner.stream(request):
                if isinstance(event, TextDelta):
                    text += event.text
                else:
                    await self._settle(held, request, event)
                    held = 0
                yield event
        except BaseException as exc:
            if held and not text:
                await asyncio.shield(self._gave_up(held, exc))
                held = 0
            raise
        finally:
            if held:  # ended early (or cut): what was streamed was spent
                await asyncio.shield(self._settle(held, request, Completion(text)))

    async def close(self) -> None:
        """Let go of the adapter's connections."""
        await self._inner.close()

    async def _gave_up(self, held: int, failure: BaseException) -> None:
        """A call that failed: given back when the server cannot have spent on it (it refused
        or could not be reached), kept at its worst case when it may have (a timeout, or the
        call cancelled while the server worked on it)."""
        if isinstance(failure, ModelSlowError | asyncio.CancelledError):
            await self._ledger.keep(held)
        else:
            await self._ledger.release(held)

    async def _reserve(self, request: Request) -> tuple[int, Request]:
        """The call held at its worst case (what it sends, overestimated, and the most it may
        answer), and the request with the answer's limit the budget left it."""
        if request.payer is None:
            system = await self._ledger.reserve(SYSTEM, self._model, Counted(), check=False)
            return system.id, request
        worst = Counted(_input(request, OverCounter()), 0, self._reply_tokens, estimated=True)
        least = min(LEAST_REPLY, self._reply_tokens)
        held = await self._ledger.reserve(request.payer, self._model, worst, least_output=least)
        return held.id, replace(request, max_tokens=held.output_tokens)

    async def _settle(self, held: int, request: Request, completion: Completion) -> None:
        usage = completion.usage
        counted = Counted(usage.input_tokens, usage.cached_tokens, usage.output_tokens)
        if not usage.input_tokens and not usage.output_tokens:
            counted = Counted(
                _input(request, ApproxCounter()), 0, _output(completion), estimated=True
            )
        alerts = await self._ledger.settle(held, request.payer or SYSTEM, self._model, counted)
        for alert in alerts:
            try:
                await self._on_alert(alert)
            except AssistantError as exc:  # no channel here, the owner blocked the bot
                log.warning("could not tell the owner of a budget alert: %s", exc)
            except Exception:  # the owner's notice is not worth the person's answer
                log.exception("could not tell the owner of a budget alert")


def _input(request: Request, counter: TokenCounter) -> int:
    """The tokens a request sends, by ``counter``: the system prompt, every message, and each
    tool's name, description and schema."""
    tools = sum(
        counter.count(t.name + t.description + json.dumps(t.parameters, default=str))
        for t in request.tools
    )
    messages = sum(message_tokens(m, counter) for m in request.messages)
    return counter.count(request.system) + messages + tools


def _output(completion: Completion) -> int:
    arguments = sum(len(json.dumps(c.arguments, default=str)) for c in completion.calls)
    return ApproxCounter().count(completion.text) + arguments // CHARS_PER_TOKEN + 1
