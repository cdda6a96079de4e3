"""One attempt at a firing: its kind's executor under the run's timeout, every ending an outcome.

A refusal fails the run; a passing trouble (or a timeout, where repeating is safe) is retried
with a backoff until the attempts run out; a bug is logged with a reference the owner sees.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from assistant.clock import Clock
from assistant.errors import RetryableRunError, RunError
from assistant.scheduler.deadline import Deadlines
from assistant.scheduler.delivery import Executor
from assistant.tasks.runs import Firing, Outcome, delivered
from assistant.tasks.task import Task, TaskKind

if TYPE_CHECKING:
    from assistant.scheduler.settings import SchedulerSettings

log = logging.getLogger(__name__)


class Attempts:
    """Runs firings through the executors of their kinds."""

    def __init__(
        self, executors: Mapping[TaskKind, Executor], clock: Clock, settings: SchedulerSettings
    ) -> None:
        self._executors = executors
        self._clock = clock
        self._settings = settings
        self._deadlines = Deadlines(settings.run_timeout)

    def replayable(self, task: Task) -> bool:
        """Whether running this task twice is harmless (so an interrupted run is repeated)."""
        executor = self._executors.get(task.kind)
        return executor is not None and executor.replayable(task)

    async def run(self, firing: Firing, started: datetime) -> Outcome:
        """Run the firing once and say how it ended."""
        task = firing.task
        executor = self._executors.get(task.kind)
        try:
            if executor is None:
                raise RunError(f"this installation cannot run {task.kind} tasks")
            with self._deadlines.within():
                delivery = await executor.run(firing)
        except RetryableRunError as exc:
            return self._retry_or_fail(firing, started, str(exc))
        except RunError as exc:
            return self._failed(firing, started, str(exc))
        except TimeoutError:
            reason = f"took longer than {self._settings.run_timeout:g} s"
            if executor is not None and executor.replayable(task):
                return self._retry_or_fail(firing, started, reason)
            return self._failed(firing, started, reason)
        except Exception:
            reference = secrets.token_hex(4)
            log.exception("task %s failed with an internal error (ref %s)", task.id, reference)
            reason = f"an internal error stopped it (reference {reference})"
            return self._failed(firing, started, reason)
        now = self._clock.now()
        return delivered(firing, started, now, delivery.message_id, delivery.summary)

    def _failed(self, firing: Firing, started: datetime, reason: str) -> Outcome:
        now = self._clock.now()
        return Outcome(firing.task, firing.scheduled_for, "error", now, None, reason, None, started)

    def _retry_or_fail(self, firing: Firing, started: datetime, reason: str) -> Outcome:
        now, attempt = self._clock.now(), firing.task.attempts + 1
        if attempt >= self._settings.max_attempts:
            return self._failed(firing, started, f"{reason} (gave up after {attempt} tries)")
        backoff = min(self._settings.retry_base * 2 ** (attempt - 1), self._settings.retry_max)
        retry_at = now + backoff
        return Outcome(
            firing.task, firing.scheduled_for, "retry", now, None, reason, retry_at, started
        )
