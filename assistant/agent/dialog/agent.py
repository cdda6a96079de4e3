"""The dialog loop: the model answers or calls tools, which are checked, approved, run and fed
back, for at most ``max_steps`` model calls; then the turn is stored whole."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace

from assistant.agent.approving.approver import ApprovalRequest, Approver, DenyAll
from assistant.agent.approving.human import human_line
from assistant.agent.dialog.citations import cite
from assistant.agent.dialog.events import (
    Answer,
    Done,
    EventSink,
    ToolFinished,
    ToolStarted,
)
from assistant.agent.dialog.history import fit
from assistant.agent.dialog.prompt import LANGUAGES, system_prompt
from assistant.agent.dialog.replies import (
    awaiting_text,
    close_open_calls,
    corrections,
    invalid_text,
    max_steps_text,
    recordable,
    tool_message,
)
from assistant.agent.dialog.settings import AgentSettings
from assistant.agent.dialog.streaming import answered
from assistant.agent.dialog.turn import Given, Turn
from assistant.agent.dialog.window import TOO_LONG, Window
from assistant.agent.guards.claims import correction, honest, may_claim, unfounded
from assistant.agent.guards.destructive import unasked
from assistant.agent.guards.leaks import tainted
from assistant.agent.guards.untrusted import frame, is_framed
from assistant.agent.person import Person
from assistant.clock import Clock
from assistant.errors import (
    BudgetError,
    ContextTooLongError,
    LLMError,
    LLMUnavailableError,
    ModelSlowError,
)
from assistant.llm.contextsize import ContextSizer
from assistant.llm.model import Model
from assistant.llm.modes import ToolModeModel
from assistant.llm.tokens import Calibration, message_tokens
from assistant.llm.types import (
    AssistantMessage,
    Attachment,
    Completion,
    Document,
    Message,
    Payer,
    Request,
    ToolMessage,
    UserMessage,
)
from assistant.locales import ENGLISH
from assistant.memory.conversation import Conversations
from assistant.metrics import LLM_SECONDS, TURNS, Streak
from assistant.tools import Executor, Registry, ToolResult, ValidCall
from assistant.usage.telling import over_budget

log = logging.getLogger(__name__)

AWAITING = "waiting for the user's approval: it runs when they approve, and not before"


class Agent:
    """Answers a user's message with the model and the tools, and keeps the conversation."""

    def __init__(
        self,
        model: Model,
        executor: Executor,
        conversations: Conversations,
        clock: Clock,
        *,
        approver: Approver | None = None,
        settings: AgentSettings | None = None,
        services: object = None,
        sizer: ContextSizer | None = None,
    ) -> None:
        self._model = model
        self._executor = executor
        self._conversations = conversations
        self._clock = clock
        self._approver = approver or DenyAll()
        self._settings = settings or AgentSettings()
        self._services = services
        self._window = Window(self._settings.context_tokens, self._settings.reply_tokens)
        self._sizer = sizer
        self._calibration = Calibration()
        self.model_down = Streak()  # for the owner's alerts

    def limited_to(self, registry: Registry) -> Agent:
        """The same agent with only these tools and nobody to approve anything."""
        return Agent(
            self._model,
            self._executor.limited_to(registry),
            self._conversations,
            self._clock,
            settings=self._settings,
            services=self._services,
            sizer=self._sizer,
        )

    async def reply(
        self,
        person: Person,
        text: str,
        sink: EventSink | None = None,
        *,
        attachments: Sequence[Attachment] = (),
        payer: Payer | None = None,
    ) -> Answer:
        """Answer ``text`` (and the pictures and files sent with it, seen by this turn only)
        at ``payer``'s cost (the person's chat by default); the turn is stored even when it
        fails or is cancelled."""
        turn = await self._start(person, text, sink, tuple(attachments), payer)
        try:
            answer = await self._run(turn)
        except BudgetError as exc:  # not asked: the line says why and until when
            said = over_budget(exc, person.language, person.timezone)
            answer = Answer(said, turn.steps, "budget")
        except LLMError as exc:
            answer = Answer(str(exc), turn.steps, "error")
        except asyncio.CancelledError:
            close_open_calls(turn.new, "cancelled: the user stopped the turn")
            raise
        finally:
            await asyncio.shield(self._store(turn))
        TURNS.labels(answer.ending).inc()
        if sink is not None:
            await sink(Done(answer))
        return answer

    async def _start(
        self,
        person: Person,
        text: str,
        sink: EventSink | None,
        attachments: tuple[Attachment, ...],
        payer: Payer | None,
    ) -> Turn:
        request_id = uuid.uuid4().hex[:12]
        context = person.context(request_id, self._clock, self._services)
        base = await self._base_window()
        window = base.left(self._prompt(person), self._executor.registry.offered())
        text = window.message(text)
        budget = window.history(self._settings.history_tokens, text)
        recent = await self._conversations.recent(person.chat_id, budget)
        history = fit(recent, budget, strict=window.known)
        # Taint follows the content: outside content still in the model's input taints this turn.
        tainted = any(isinstance(m, ToolMessage) and is_framed(m.content) for m in history)
        tainted = tainted or any(isinstance(a, Document) for a in attachments)  # a file's words
        payer = payer or Payer(
            person.user_id, person.timezone, group=person.chat_id != person.user_id
        )
        given = Given(person, context, sink, recent, window.fixed, window.room(), payer)
        return Turn(given, history, new=[UserMessage(text, attachments)], tainted=tainted)

    async def _base_window(self) -> Window:
        """The model's window (configured, or as its server says), scaled by what it counts."""
        window = self._window
        if self._sizer is not None:
            window = replace(window, tokens=(await self._sizer.size()).tokens)
        return window.scaled(self._calibration.scale)

    async def _run(self, turn: Turn) -> Answer:
        while turn.steps < self._settings.max_steps:
            completion = await self._ask(turn)
            turn.steps += 1
            if completion.notice:
                turn.notices.append(completion.notice)
            turn.new.append(AssistantMessage(completion.text, recordable(completion.calls)))
            if not completion.calls and not completion.broken:
                if claimed := await self._unfounded(turn, completion.text):
                    return self._answer(turn, claimed, "unfounded")
                if turn.claimed:
                    continue  # asked once to act or to say it did not
                text = completion.text
                if completion.finish_reason == "length":
                    text += "\n\n(The answer was cut off: it reached the model's length limit.)"
                return self._answer(turn, text, "answered")
            results = await self._act(turn, completion)
            if results is None:
                return self._answer(turn, invalid_text(turn.results), "invalid")
            turn.new.extend(tool_message(r) for r in results)
            if turn.awaiting:  # the turn ends here; the answer to the prompt runs the call
                return self._answer(turn, awaiting_text(turn.awaiting, completion), "awaiting")
        return self._answer(turn, max_steps_text(turn.steps, turn.results), "max_steps")

    async def _unfounded(self, turn: Turn, text: str) -> str | None:
        """Check an answer against what the turn did: a claimed action with no call is sent
        back once (in auto mode, a native mode no real call confirmed gives way first), then
        replaced by the truth."""
        asked = turn.asked
        done = (r.name for r in turn.results if r.outcome == "ok" and not r.is_error)
        action = unfounded(asked, text, done)
        if action is None or turn.claimed:
            turn.claimed = False
            return None if action is None else honest(action)
        turn.claimed = True
        if isinstance(self._model, ToolModeModel) and (
            notice := await self._model.unfounded_claim()
        ):
            turn.notices.append(notice)
        turn.new.append(UserMessage(correction(action)))
        return None

    def _prompt(self, person: Person) -> str:
        return system_prompt(
            self._clock.now(),
            person.timezone,
            person.name,
            self._settings.assistant_name,
            LANGUAGES.get(person.language, ""),
        )

    async def _ask(self, turn: Turn) -> Completion:
        try:
            return await self._ask_once(turn)
        except ContextTooLongError:
            if turn.shrunk:
                raise LLMError(TOO_LONG) from None
        # Once more with half the history; a second refusal is said plainly, never a lock.
        turn.shrunk = True
        spent = sum(tokens for _, tokens in turn.given.recent)
        turn.history = fit(turn.given.recent, max(spent // 2, 0), strict=True)
        try:
            return await self._ask_once(turn)
        except ContextTooLongError:
            raise LLMError(TOO_LONG) from None

    async def _ask_once(self, turn: Turn) -> Completion:
        prompt = self._prompt(turn.given.person)
        offered = self._executor.registry.offered(turn.given.context.found)
        request = Request(prompt, self._fitted(turn), offered, payer=turn.given.payer)
        started, outcome = time.monotonic(), "error"
        try:
            async with asyncio.timeout(self._settings.llm_timeout):
                # an answer that may claim an action is checked before it is shown
                shown = not may_claim(turn.asked)
                stream = self._settings.stream
                completion = await answered(self._model, request, turn.given.sink, stream, shown)
                outcome = "ok"
        except TimeoutError:
            raise ModelSlowError(
                f"The model is slow: no answer within {self._settings.llm_timeout:g} s. It may "
                "be busy, or the machine small for it; try again, or raise llm.timeout_seconds."
            ) from None
        except LLMUnavailableError as exc:
            if not isinstance(exc, ModelSlowError):  # slow is alive
                self.model_down.failed(self._clock.now(), str(exc)[:200])
            raise
        finally:
            LLM_SECONDS.labels(outcome).observe(time.monotonic() - started)
        self.model_down.ok()
        counter = self._window.counter
        estimate = turn.given.fixed + sum(message_tokens(m, counter) for m in request.messages)
        self._calibration.observe(estimate, completion.usage.input_tokens)
        return completion

    def _fitted(self, turn: Turn) -> list[Message]:
        if turn.given.room is None:
            return [*turn.history, *turn.new]
        turn.history, new = self._window.fit_turn(
            turn.given.room, turn.history, turn.given.recent, turn.new
        )
        return [*turn.history, *new]

    async def _act(self, turn: Turn, completion: Completion) -> list[ToolResult] | None:
        """Check, approve and run the calls; None when they stay invalid past the budget."""
        checked = [await self._executor.check(c, turn.given.context) for c in completion.calls]
        invalid = [c for c in checked if isinstance(c, ToolResult)]
        if invalid or completion.broken:
            if turn.corrections >= self._settings.corrections:
                turn.results.extend(invalid)
                close_open_calls(turn.new, "not run: the call was invalid")
                return None
            turn.corrections += 1
            return corrections(checked, completion)
        approved = [await self._approve(turn, c) for c in checked]
        return await self._execute(turn, approved)

    async def _approve(self, turn: Turn, item: ValidCall | ToolResult) -> ValidCall | ToolResult:
        """The call itself, or its result: waiting for approval, or refused."""
        if isinstance(item, ToolResult):
            return item
        tool = item.tool
        if refusal := self._repeat_or_over(turn, item):
            return await self._executor.refuse(item, turn.given.context, refusal)
        reason = tool.approval_reason(item.arguments) or unasked(
            tool.name, item.json_arguments, turn.asked
        )
        if reason is None and turn.tainted:
            messages = [*turn.history, *turn.new]
            reason = tainted(tool.read_only, item.arguments, messages, self._settings.named_hosts)
        if reason is None:
            return item
        if await self._request_approval(turn, item, reason):
            turn.awaiting.append(tool.name)
            return ToolResult(item.call.id, tool.name, AWAITING, outcome="pending")
        why = "not run: nobody could be asked to approve it"
        return await self._executor.refuse(item, turn.given.context, why)

    def _repeat_or_over(self, turn: Turn, item: ValidCall) -> str | None:
        """Why a side-effecting call is not run again: the same call already ran in this turn,
        or the turn made as many tasks as it may."""
        if item.tool.read_only:
            return None
        key = f"{item.tool.name} {json.dumps(item.json_arguments, sort_keys=True, default=str)}"
        if key in turn.done:
            return "already done in this turn with these arguments; not run again"
        if item.tool.name in self._settings.task_tools:
            if turn.new_tasks >= self._settings.max_new_tasks:
                return f"one message may create at most {self._settings.max_new_tasks} tasks"
            turn.new_tasks += 1
        turn.done.add(key)
        return None

    async def _request_approval(self, turn: Turn, valid: ValidCall, reason: str) -> bool:
        context = turn.given.context
        language = turn.given.person.language or ENGLISH
        human = await human_line(context, valid.tool.name, valid.json_arguments, language)
        shown = f"{human}\n({reason})" if human else ""
        request = ApprovalRequest.of(context, valid, reason, shown, language)
        try:
            async with asyncio.timeout(self._settings.approval_timeout):
                return await self._approver.ask(request)
        except Exception:
            log.exception("asking for approval of %s failed; refused", valid.tool.name)
            return False

    async def _execute(
        self, turn: Turn, approved: Sequence[ValidCall | ToolResult]
    ) -> list[ToolResult]:
        running = [a for a in approved if isinstance(a, ValidCall)]
        for valid in running:
            await _emit(turn.given.sink, ToolStarted(valid.call.id, valid.tool.name))
        results = await self._executor.execute(approved, turn.given.context)
        step: list[ToolResult] = []
        for item, result in zip(approved, results, strict=True):
            if isinstance(item, ValidCall):
                await _emit(
                    turn.given.sink, ToolFinished(result.call_id, result.name, not result.is_error)
                )
            if isinstance(item, ValidCall) and item.tool.untrusted and _came_in(result):
                # Only content that came in taints the turn; a refused or failed fetch did not.
                turn.tainted = True
                step.append(replace(result, content=frame(result.name, result.content)))
            else:
                step.append(result)
        turn.results.extend(step)
        return step

    def _answer(self, turn: Turn, text: str, ending: str) -> Answer:
        sources = tuple(s for r in turn.results for s in r.sources)
        body = cite(text, sources) if ending == "answered" else text
        body = "\n\n".join([*turn.notices, body]) if turn.notices else body
        return Answer(body, turn.steps, ending, sources, tuple(turn.given.context.attachments))

    async def _store(self, turn: Turn) -> None:
        for result in turn.results:
            if result.audit_id is not None:
                turn.audit_ids[result.call_id] = result.audit_id
        try:
            await self._conversations.append(
                turn.given.person.chat_id,
                turn.given.person.user_id,
                turn.given.context.request_id,
                turn.new,
                turn.audit_ids,
            )
        except Exception:
            log.exception("could not store the turn %s", turn.given.context.request_id)


def _came_in(result: ToolResult) -> bool:
    """Whether a result carries words from outside: a result, or an outside tool's error."""
    return not result.is_error or result.outside


async def _emit(sink: EventSink | None, event: ToolStarted | ToolFinished) -> None:
    if sink is not None:
        await sink(event)
