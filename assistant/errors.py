"""The exceptions this project raises on purpose.

Anything that is not an ``AssistantError`` is a bug: it is logged with its traceback and the
user or model only ever sees a generic message with a reference.

    AssistantError                  something we expected could go wrong
    ├── ConfigError                 the config file is unusable: file, dotted key, expectation
    ├── StorageError                the database cannot be opened or migrated
    │   ├── NotADatabaseError       the file is not a SQLite database (left untouched)
    │   └── SchemaTooNewError       written by a newer version of the assistant (left untouched)
    ├── ModelError                  the model's mistake, worded for the model to correct itself
    │   ├── UnknownToolError        a call named a tool that does not exist or is not allowed
    │   ├── ToolArgumentError       a call's arguments do not fit the tool's schema
    │   ├── ToolError               a tool refused its (valid) input; raised by tools themselves
    │   ├── ScheduleError           schedule text that cannot be read; quotes it, shows the forms
    │   └── TaskError               a task operation refused: over a limit, wrong state
    │       └── TaskNotFoundError   no such task for this user (another user's is not found either)
    └── RunError                    a scheduled run failed; the message is safe to show the user
        └── RetryableRunError       it may work later (network down, rate limit): retry with backoff
"""

from __future__ import annotations


class AssistantError(Exception):
    """Base of every error the assistant raises on purpose."""


class ConfigError(AssistantError):
    """The configuration file cannot be used; the message names the file and the key."""


class StorageError(AssistantError):
    """The database cannot be opened or brought up to date."""


class NotADatabaseError(StorageError):
    """The database path holds a file that is not a SQLite database."""


class SchemaTooNewError(StorageError):
    """The database was written by a newer version of the assistant."""


class ModelError(AssistantError):
    """A mistake of the model's, sent back to it so that it can correct itself."""


class UnknownToolError(ModelError):
    """A call named a tool that does not exist or is not allowed here."""


class ToolArgumentError(ModelError):
    """A call's arguments do not fit the tool's schema."""


class ToolError(ModelError):
    """A tool refused its input for a reason the model can act on (a bad date, a missing id)."""


class ScheduleError(ModelError):
    """Schedule text that cannot be read; the message quotes it and shows accepted forms."""


class TaskError(ModelError):
    """A task operation that is refused: a limit is reached or the task is in the wrong state."""


class TaskNotFoundError(TaskError):
    """No task with that id belongs to this user."""


class RunError(AssistantError):
    """A scheduled run failed for a reason that is safe to show its owner."""


class RetryableRunError(RunError):
    """A scheduled run failed for a reason that may pass: it is retried with backoff."""
