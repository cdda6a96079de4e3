"""Provider failures mapped to errors a user understands, and bounded retries with backoff.

Both adapters turn an HTTP status and the provider's message into one of the ``LLMError``
kinds here; the message for the user never carries the provider's text, the log does.
"""

from __future__ import annotations

import asyncio
import email.utils
import importlib.metadata
import logging
import re
import sys
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from assistant.errors import (
    AssistantError,
    ContextTooLongError,
    LLMAuthError,
    LLMBadResponseError,
    LLMError,
    LLMUnavailableError,
    ModelNotFoundError,
    ModelSlowError,
    ProviderBugError,
    RateLimitedError,
    ToolsUnsupportedError,
    VisionUnsupportedError,
)
from assistant.llm.types import Completion, Request, StreamEvent
from assistant.redaction import redact_text

log = logging.getLogger(__name__)

_T = TypeVar("_T")
# The wordings of a context-length refusal: OpenAI, llama.cpp, Ollama, vLLM, LM Studio, others.
_CONTEXT_REFUSED = re.compile(
    r"context_length_exceeded|exceed_context_size|context[ _-]?(?:length|window|size)"
    r"|maximum context|prompt is too long|too many tokens|input is too long|n_ctx"
    r"|exceeds? the (?:model'?s? )?(?:maximum|max)|longer than the model",
    re.IGNORECASE,
)
_TOOLS_REFUSED = re.compile(
    r"tool.{0,60}(not support|unsupported|not enabled|not allowed|requires|jinja|"
    r"enable-auto-tool-choice|unknown|unrecognized|invalid)|does not support tools",
    re.IGNORECASE | re.DOTALL,
)

# OpenAI ("image_url is only supported by certain models"), llama.cpp without a projector
# ("image input is not supported … mmproj"), Ollama ("does not support images"), vLLM.
_IMAGES_REFUSED = re.compile(
    r"image.{0,40}(not supported|only supported|unsupported|not enabled)"
    r"|(does not|doesn't) support (images|image input|vision)|not a multimodal model|mmproj",
    re.IGNORECASE | re.DOTALL,
)
BLIND = (
    "This model cannot see pictures. Say in words what is in it, or set [llm] to a model "
    "that accepts images."
)


@dataclass(frozen=True)
class Endpoint:
    """Where a model lives, for messages: provider, model name and the variable of its key."""

    provider: str
    model: str
    base_url: str
    key_env: str


def status_error(
    endpoint: Endpoint, status: int, detail: str, headers: Mapping[str, str], offered_tools: bool
) -> LLMError:
    """The error for an HTTP failure of a model call; the provider's text goes to the log only."""
    log.warning(
        "%s model %s answered HTTP %d: %s",
        endpoint.provider,
        endpoint.model,
        status,
        redact_text(detail[:500]),
    )
    if refused := _refusal(endpoint, status, detail, offered_tools):
        return refused
    if status in (401, 403):
        return LLMAuthError(
            f"The {endpoint.provider} API rejected the key (HTTP {status}). "
            f"Check the key in ${endpoint.key_env}."
        )
    if status == 404:
        return ModelNotFoundError(
            f"The model {endpoint.model!r} was not found at {endpoint.base_url}. "
            "Check llm.model and llm.base_url in the config."
        )
    if status == 429:
        return RateLimitedError(
            "The model provider is rate limiting requests; try again in a minute.",
            retry_after(headers),
        )
    if status >= 500 or status in (408, 409):
        return LLMUnavailableError(
            f"The model provider is having trouble (HTTP {status}); try again later.",
            retry_after(headers),
        )
    return LLMError(f"The model provider refused the request (HTTP {status}); see the log.")


def _refusal(endpoint: Endpoint, status: int, detail: str, offered_tools: bool) -> LLMError | None:
    """A refusal of this request's shape: too long for the window, or tools not supported."""
    if status in (400, 413, 422, 500) and _CONTEXT_REFUSED.search(detail):
        return ContextTooLongError(
            f"The request is longer than the context window of {endpoint.model}."
        )
    if offered_tools and status in (400, 404, 422, 500, 501) and _TOOLS_REFUSED.search(detail):
        return ToolsUnsupportedError(f"{endpoint.model} at {endpoint.base_url} refuses tools")
    if status in (400, 415, 422, 500) and _IMAGES_REFUSED.search(detail):
        return VisionUnsupportedError(BLIND)
    return None


def unreachable(endpoint: Endpoint, exc: BaseException) -> LLMUnavailableError:
    """The error for a connection failure or timeout: a slow model told apart from a down one."""
    log.warning("cannot reach %s at %s: %r", endpoint.provider, endpoint.base_url, exc)
    kinds = _transport_kinds(exc)
    if kinds & {"ConnectTimeout", "ConnectError", "ConnectionError"}:
        why = "no connection in time" if "ConnectTimeout" in kinds else "refused"
        return LLMUnavailableError(
            f"The model's server at {endpoint.base_url} cannot be reached ({why}): check the "
            "address and the network, and that the server is running."
        )
    if kinds & {"TimeoutException", "TimeoutError"}:
        return ModelSlowError(
            f"The model at {endpoint.base_url} is slow: its server took the request but did not "
            "answer in time. It may be busy, or the machine small for it; try again, or raise "
            "llm.timeout_seconds."
        )
    return LLMUnavailableError(
        f"The connection to the model at {endpoint.base_url} failed: check the address and the "
        "network, and that the server is running."
    )


def provider_bug(endpoint: Endpoint, exc: Exception) -> ProviderBugError:
    """The error for a programming error inside an adapter or its SDK: a bug of ours, named."""
    log.error("the %s provider failed on a bug", endpoint.provider, exc_info=exc)
    ours, theirs = _where(exc)
    version = _version(theirs) if theirs else ""
    into = f", calling into {theirs} {version}".rstrip() if theirs else ""
    return ProviderBugError(
        f"The {endpoint.provider} provider failed on a bug of the assistant's: "
        f"{type(exc).__name__} in {ours}{into}. Please report it; --debug shows the traceback."
    )


def _where(exc: BaseException) -> tuple[str, str]:
    """Our last function on the traceback, and the package it called into, if any."""
    modules = [_module(frame.filename) for frame in traceback.extract_tb(exc.__traceback__)]
    names = [frame.name for frame in traceback.extract_tb(exc.__traceback__)]
    ours, theirs = "the adapter", ""
    for at, module in enumerate(modules):
        if module.startswith("assistant."):
            ours, theirs = f"{module}.{names[at]}()", ""
        elif not theirs and module:
            theirs = module.split(".", 1)[0]
    return ours, theirs


def _module(filename: str) -> str:
    for name, loaded in list(sys.modules.items()):
        if getattr(loaded, "__file__", None) == filename:
            return name
    return ""


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return ""


def _transport_kinds(exc: BaseException) -> set[str]:
    """The class names along the chain under the SDK's error, by name: the SDKs wrap their
    own copies of httpx, whose classes are not ours to import."""
    kinds: set[str] = set()
    seen: BaseException | None = exc
    for _ in range(16):  # a chain is short; a cycle must not hang us
        if seen is None:
            break
        kinds.update(kind.__name__ for kind in type(seen).__mro__)
        seen = seen.__cause__ or seen.__context__
    return kinds


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        if "retry-after-ms" in lowered:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        value = lowered.get("retry-after")
        if value is None:
            return None
        if value.strip().replace(".", "", 1).isdigit():
            return float(value)
        when = email.utils.parsedate_to_datetime(value)
    except (ValueError, TypeError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a model call that failed for a passing reason."""

    retries: int = 2
    base_delay: float = 1.0
    max_delay: float = 30.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)

    def delay(self, attempt: int, exc: LLMUnavailableError) -> float | None:
        """Seconds before retry ``attempt`` (1-based), or None to give up now."""
        if attempt > self.retries or isinstance(exc, ModelSlowError):
            return None
        wanted: float | None = exc.retry_after
        if wanted is None:
            return min(self.base_delay * 2.0 ** (attempt - 1), self.max_delay)
        return wanted if wanted <= self.max_delay else None


async def with_retries(call: Callable[[], Awaitable[_T]], policy: RetryPolicy) -> _T:
    """Run ``call``, retrying rate limits, server errors and timeouts as the policy allows."""
    attempt = 0
    while True:
        try:
            return await call()
        except LLMUnavailableError as exc:
            attempt += 1
            wait = policy.delay(attempt, exc)
            if wait is None:
                raise
            log.info("model call failed (%s); retry %d in %.1f s", exc, attempt, wait)
            await policy.sleep(wait)


async def stream_with_retries(
    open_stream: Callable[[], AsyncIterator[_T]], policy: RetryPolicy
) -> AsyncIterator[_T]:
    """Like ``with_retries`` for a stream: retried only while nothing has been yielded."""
    attempt = 0
    while True:
        started = False
        try:
            async for event in open_stream():
                started = True
                yield event
            return
        except LLMUnavailableError as exc:
            attempt += 1
            wait = None if started else policy.delay(attempt, exc)
            if wait is None:
                raise
            log.info("model stream failed (%s); retry %d in %.1f s", exc, attempt, wait)
            await policy.sleep(wait)


def error_detail(body: object) -> str:
    """The provider's own words from an error body, for the log."""
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping):
            return str(error.get("message") or error.get("error") or error)
        return str(error)
    return str(body) if body else ""


def bad_reply(detail: str) -> LLMBadResponseError:
    """The error for a reply that is not a completion (an error object in a 200, junk)."""
    log.warning("model reply is not a completion: %s", redact_text(detail[:500]))
    return LLMBadResponseError(
        "The model provider answered with an error instead of a reply; see the log."
    )


class RetryingAdapter(ABC):
    """What both adapters share: their endpoint, the call timeout, and retried calls."""

    provider = ""

    def __init__(
        self,
        endpoint: Endpoint,
        timeout: float,
        retry: RetryPolicy | None,
        temperature: float | None = None,
    ) -> None:
        self._endpoint = endpoint
        self._timeout = timeout
        self._retry = retry or RetryPolicy()
        self._temperature = temperature

    def _tuned(self, body: dict[str, Any]) -> dict[str, Any]:
        """The request body with the configured sampling temperature, when one is set."""
        if self._temperature is not None:
            body["temperature"] = self._temperature
        return body

    @property
    def name(self) -> str:
        """Provider, model and endpoint, for logs and notices."""
        return f"{self._endpoint.provider}:{self._endpoint.model}@{self._endpoint.base_url}"

    async def complete(self, request: Request) -> Completion:
        """One completion, retried on passing failures."""
        try:
            return await with_retries(lambda: self._complete(request), self._retry)
        except AssistantError:
            raise
        except Exception as exc:
            raise provider_bug(self._endpoint, exc) from exc

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Text deltas, then the assembled completion; retried until the first event."""
        try:
            async for event in stream_with_retries(lambda: self._stream(request), self._retry):
                yield event
        except AssistantError:
            raise
        except Exception as exc:
            raise provider_bug(self._endpoint, exc) from exc

    @abstractmethod
    async def _complete(self, request: Request) -> Completion:
        """One completion, without retries."""

    @abstractmethod
    def _stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """One stream, without retries."""

    def _status_failure(
        self, status: int, body: object, message: str, headers: Mapping[str, str], tools: bool
    ) -> LLMError:
        detail = error_detail(body) or message
        return status_error(self._endpoint, status, detail, headers, tools)
