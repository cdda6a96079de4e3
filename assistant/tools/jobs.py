"""Scheduled runs of HTTP calls and web searches, as executors the scheduler is given."""

from __future__ import annotations

from assistant.errors import BlockedError, FetchError, RetryableRunError, RunError, ToolError
from assistant.net import GuardedClient
from assistant.net.search import SearchBackend
from assistant.net.secrets import SecretBook
from assistant.tasks import Delivery, Firing, Notice, Outbox, Task
from assistant.tasks.delivery import footer
from assistant.tools.builtin.web import ApiRequest, call_api

RESULT_CHARS = 700


class ApiCallExecutor:
    """Calls the user's API on schedule and tells them how it answered."""

    def __init__(self, client: GuardedClient, secrets: SecretBook, outbox: Outbox) -> None:
        self._client = client
        self._secrets = secrets
        self._outbox = outbox

    def replayable(self, task: Task) -> bool:
        """Only a GET may be repeated after a crash; anything else may have taken effect."""
        return str(task.execution.get("method", "GET")).upper() == "GET"

    async def run(self, firing: Firing) -> Delivery:
        """Send the request; server trouble is retried, a refusal is not."""
        data = firing.task.execution
        request = ApiRequest(
            str(data.get("url", "")),
            str(data.get("method", "GET")),
            dict(data.get("headers") or {}),
            data.get("body"),
        )
        try:
            answer = await call_api(self._client, self._secrets, request)
        except BlockedError as exc:
            raise RunError(str(exc)) from None
        except FetchError as exc:
            raise RetryableRunError(str(exc)) from None
        except ToolError as exc:
            raise RunError(str(exc)) from None
        status = int(answer["status"])
        if status >= 500 or status == 429:
            raise RetryableRunError(f"{request.method} {request.url} answered HTTP {status}")
        body = str(answer["body"])[:RESULT_CHARS]
        text = f"🔁 {firing.task.description}: {request.method} {request.url} → {status}\n{body}"
        message = await self._outbox.deliver(
            Notice(firing.task.owner, f"{text}\n{footer(firing)}", "result", firing.task.id)
        )
        if status >= 400:
            raise RunError(f"{request.method} {request.url} answered HTTP {status}")
        return Delivery(message, f"HTTP {status}")


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
        data = firing.task.execution
        query = str(data.get("query", firing.task.description))
        try:
            hits = await self._backend.search(query, int(data.get("max_results", 5)))
        except FetchError as exc:
            raise RetryableRunError(str(exc)) from None
        lines = [f"🔎 {firing.task.description} ({query!r})"]
        lines += [f"• {h.title}\n  {h.url}" for h in hits] or ["No results."]
        notice = Notice(
            firing.task.owner, "\n".join([*lines, footer(firing)]), "result", firing.task.id
        )
        return Delivery(await self._outbox.deliver(notice), f"{len(hits)} results")
