"""Scheduled runs of HTTP calls and web searches, as executors the scheduler is given."""

from __future__ import annotations

from assistant.errors import FetchError, RefusedError, RetryableRunError, RunError, ToolError
from assistant.net import GuardedClient
from assistant.net.search import SearchBackend
from assistant.net.secrets import SecretBook
from assistant.scheduler import Delivery, Notice, Outbox
from assistant.scheduler.delivery import footer
from assistant.tasks import Firing, Task
from assistant.tools.builtin.tasks import ApiCallData, WebSearchData, stored_data
from assistant.tools.builtin.web import ApiRequest, call_api

RESULT_CHARS = 700
ERROR_CHARS = 200


class ApiCallExecutor:
    """Calls the user's API on schedule and tells them how it answered."""

    def __init__(self, client: GuardedClient, secrets: SecretBook, outbox: Outbox) -> None:
        self._client = client
        self._secrets = secrets
        self._outbox = outbox

    def replayable(self, task: Task) -> bool:
        """Only a GET may be repeated after a crash; anything else may have taken effect."""
        try:
            return stored_data(ApiCallData, task).method == "GET"
        except RunError:
            return False

    async def run(self, firing: Firing) -> Delivery:
        """Send the request; passing trouble is retried, a refusal fails once, with one message."""
        data = stored_data(ApiCallData, firing.task)
        request = ApiRequest(data.url, data.method, data.headers, data.body)
        what = f"{request.method} {request.url}"
        try:
            answer = await call_api(self._client, self._secrets, request)
        except RefusedError as exc:
            raise RunError(str(exc)) from None
        except FetchError as exc:
            raise RetryableRunError(str(exc)) from None
        except ToolError as exc:
            raise RunError(str(exc)) from None
        if answer.transient:
            raise RetryableRunError(f"{what} answered HTTP {answer.status}")
        if answer.status >= 400:
            raise RunError(f"{what} answered HTTP {answer.status}: {answer.body[:ERROR_CHARS]}")
        text = f"🔁 {firing.task.description}: {what} → {answer.status}\n"
        text += answer.body[:RESULT_CHARS]
        message = await self._outbox.deliver(
            Notice(firing.task.owner, f"{text}\n{footer(firing)}", "result", firing.task.id)
        )
        return Delivery(message, f"HTTP {answer.status}")


class WebSearchExecutor:
    """Searches on schedule and sends the user the top results."""

    def __init__(self, backend: SearchBackend, outbox: Outbox) -> None:
        self._backend = backend
        self._outbox = outbox

    def replayable(self, task: Task) -> bool:
        """Searching twice is harmless."""
        return True

    async def run(self, firing: Firing) -> Delivery:
        """Search and send the results; a failing backend is retried later."""
        data = stored_data(WebSearchData, firing.task)
        query = data.query
        try:
            hits = await self._backend.search(query, data.max_results)
        except FetchError as exc:
            raise RetryableRunError(str(exc)) from None
        lines = [f"🔎 {firing.task.description} ({query!r})"]
        lines += [f"• {h.title}\n  {h.url}" for h in hits] or ["No results."]
        notice = Notice(
            firing.task.owner, "\n".join([*lines, footer(firing)]), "result", firing.task.id
        )
        return Delivery(await self._outbox.deliver(notice), f"{len(hits)} results")
