"""The exceptions this project raises on purpose.

Anything that is not an ``AssistantError`` is a bug: it is logged with its traceback and the
user or model only ever sees a generic message with a reference.

    AssistantError                  something we expected could go wrong
    ├── ConfigError                 the config file is unusable: file, dotted key, expectation
    ├── StartupError                the service cannot start: a rejected token, an API unusable
    ├── StorageError                the database cannot be opened, migrated or written
    │   ├── NotADatabaseError       the file is not a SQLite database (left untouched)
    │   ├── SchemaTooNewError       written by a newer version of the assistant (left untouched)
    │   └── WriteError              a write failed (disk full, read-only): rolled back, user-worded
    ├── ModelError                  the model's mistake, worded for the model to correct itself
    │   ├── UnknownToolError        a call named a tool that does not exist or is not allowed
    │   ├── ToolArgumentError       a call's arguments do not fit the tool's schema
    │   ├── ToolError               a tool refused its (valid) input; raised by tools themselves
    │   │   ├── RemoteToolError     an outside tool reported an error: its words are outside content
    │   │   └── FetchError          an outgoing request failed: network, timeout, no address
    │   │       └── RefusedError    refused by our own rules (URL, content type, redirects): final
    │   │           └── BlockedError   the address is private or local and not allow-listed
    │   ├── ScheduleError           unreadable schedule text: its reason and words as data
    │   └── TaskError               a task operation refused: over a limit, wrong state
    │       └── TaskNotFoundError   no such task for this user (another user's is not found either)
    ├── DocumentError               a file the user sent cannot be read (kind, size, damage)
    ├── RunError                    a scheduled run failed; the message is safe to show the user
    │   ├── RetryableRunError       it may work later (network down, rate limit): retry with backoff
    │   └── RecipientBlockedError   the user blocked the bot: their tasks wait until they return
    └── LLMError                    the model could not be reached or answered nonsense; user-worded
        ├── LLMAuthError            the key was rejected (401/403) or is missing
        ├── ModelNotFoundError      the endpoint does not know the configured model
        ├── ToolsUnsupportedError   the endpoint refuses native tools (auto mode switches to text)
        ├── VisionUnsupportedError  the model cannot see pictures (refused one, or vision is off)
        ├── ContextTooLongError     the request does not fit the model's context window
        ├── LLMBadResponseError     a reply we cannot read: an error object in a 200, bad JSON
        ├── ProviderBugError        a programming error in an adapter or its SDK: a bug of ours
        ├── BudgetError             the person's budget is spent: the call was not made
        └── LLMUnavailableError     rate limits, server errors, a server down, after the retries
            ├── RateLimitedError    429 after the retries
            └── ModelSlowError      the server took the request but did not answer in time
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

BudgetPeriod = Literal["day", "month", "task"]


class AssistantError(Exception):
    """Base of every error the assistant raises on purpose."""


class ConfigError(AssistantError):
    """The configuration file cannot be used; the message names the file and the key."""


class StartupError(AssistantError):
    """The service cannot start (a rejected token, an unusable API); the message says what
    to do."""


class StorageError(AssistantError):
    """The database cannot be opened or brought up to date."""


class NotADatabaseError(StorageError):
    """The database path holds a file that is not a SQLite database."""


class SchemaTooNewError(StorageError):
    """The database was written by a newer version of the assistant."""


class WriteError(StorageError):
    """A write failed and was rolled back; the message says so in words for the user."""


class ModelError(AssistantError):
    """A mistake of the model's, sent back to it so that it can correct itself."""


class UnknownToolError(ModelError):
    """A call named a tool that does not exist or is not allowed here."""


class ToolArgumentError(ModelError):
    """A call's arguments do not fit the tool's schema."""


class ToolError(ModelError):
    """A tool refused its input for a reason the model can act on (a bad date, a missing id)."""


class RemoteToolError(ToolError):
    """An outside tool (an MCP server's) reported an error; its text is untrusted content."""


class FetchError(ToolError):
    """An outgoing HTTP request failed; the message says how, for the model."""


class RefusedError(FetchError):
    """Our own rules refuse the request (a bad URL, a content type, too many redirects)."""


class BlockedError(RefusedError):
    """The request would reach a private or local address that is not allow-listed."""


ScheduleReason = Literal[
    "unknown_word",  # a word no schedule has: ``words`` is it
    "unread",  # known words in no form the reader has
    "no_time",  # days but no time of day
    "recurring",  # a repeating schedule where one time was wanted
    "ambiguous_hour",  # a bare hour a day makes ambiguous: ``words`` is the hour as said
    "past",  # the first run would be in the past
    "too_far",  # more than ten years ahead
    "too_frequent",  # more often than the minimum interval
    "too_long",  # longer than schedule text may be
    "unknown_zone",  # not an IANA zone: ``words`` is the name
    "no_words",  # a command's time with no words after it: ``words`` is the time
    "no_schedule",  # a command's text with no time in it
    "invalid",  # read, and refused for another reason that ``detail`` says
]


class ScheduleError(ModelError):
    """Schedule text that cannot be read; the message quotes it and shows accepted forms,
    and ``reason``, ``words`` and ``detail`` say why as data."""

    def __init__(
        self,
        message: str,
        reason: ScheduleReason = "invalid",
        words: str = "",
        detail: str = "",
        text: str = "",
    ) -> None:
        super().__init__(message)
        self.reason: ScheduleReason = reason
        self.words = words
        self.detail = detail or message
        self.text = text  # the schedule text it read


class TaskError(ModelError):
    """A task operation that is refused: a limit is reached or the task is in the wrong state."""


class TaskNotFoundError(TaskError):
    """No task with that id belongs to this user; ``task_id`` is the id asked for."""

    def __init__(self, message: str, task_id: str = "") -> None:
        super().__init__(message)
        self.task_id = task_id


class DocumentError(AssistantError):
    """A file the user sent cannot be read: its kind, its size, or it is damaged."""


class RunError(AssistantError):
    """A scheduled run failed for a reason that is safe to show its owner."""


class RecipientBlockedError(RunError):
    """The channel cannot reach the user because they blocked the bot."""


class RetryableRunError(RunError):
    """A scheduled run failed for a reason that may pass: it is retried with backoff."""


class LLMError(AssistantError):
    """The model failed; the message is worded for the user, the details are in the log."""


class BudgetError(LLMError):
    """A model call not made: it does not fit what is left of the person's (or the group's, or
    the task's) budget for the day or the month; ``period`` says which, ``resets_at`` (UTC)
    when it starts again, ``shared`` whether it was the one every group chat shares, ``needed``
    the most the call could take and ``left`` what the budget has left (in its unit)."""

    def __init__(
        self,
        message: str,
        period: BudgetPeriod,
        resets_at: datetime,
        *,
        shared: bool = False,
        needed: float = 0.0,
        left: float = 0.0,
        unit: str = "tokens",
        held: float = 0.0,
    ) -> None:
        super().__init__(message)
        self.period: BudgetPeriod = period
        self.resets_at = resets_at
        self.shared = shared
        self.needed = needed
        self.left = left
        self.unit = unit  # of ``needed`` and ``left``: "tokens", or the budget's currency
        self.held = held  # of what is not left, what answers in progress hold until they end


class LLMAuthError(LLMError):
    """The provider rejected the key, or no key was found in the named variable."""


class ModelNotFoundError(LLMError):
    """The provider does not know the configured model."""


class ToolsUnsupportedError(LLMError):
    """The endpoint refuses requests that offer native tools."""


class VisionUnsupportedError(LLMError):
    """The model cannot see pictures: it refused one, or ``llm.vision`` is off."""


class ContextTooLongError(LLMError):
    """The request is longer than the model's context window."""


class LLMBadResponseError(LLMError):
    """The provider answered with something that is not a completion."""


class ProviderBugError(LLMError):
    """A programming error inside a provider's adapter or its SDK: named, never retried."""


class LLMUnavailableError(LLMError):
    """The provider is down, overloaded or too slow, even after retries."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ModelSlowError(LLMUnavailableError):
    """The server is up and took the request, but no answer came in time (not retried: a
    second try would only load a busy model more)."""


class RateLimitedError(LLMUnavailableError):
    """The provider kept answering 429 (too many requests)."""
