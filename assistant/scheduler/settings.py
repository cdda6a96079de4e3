"""The scheduler's timing and bounds, as the config sets them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from assistant.config import ConcurrencySettings
from assistant.tasks.task import KINDS, TaskKind

_DEFAULTS = ConcurrencySettings()
DEFAULT_CONCURRENCY: Mapping[TaskKind, int] = {kind: getattr(_DEFAULTS, kind) for kind in KINDS}


@dataclass(frozen=True)
class SchedulerSettings:
    """Timing and bounds of the scheduler; the defaults are the config's."""

    grace: timedelta = timedelta(hours=24)
    max_attempts: int = 5
    retry_base: timedelta = timedelta(seconds=30)
    retry_max: timedelta = timedelta(hours=1)
    run_timeout: float = 120.0
    report_timeout: float = 30.0
    batch_size: int = 500
    shutdown_grace: timedelta = timedelta(seconds=5)
    concurrency: Mapping[TaskKind, int] = field(default_factory=lambda: dict(DEFAULT_CONCURRENCY))
    read_ahead: timedelta = timedelta(seconds=8)  # tasks due this soon are reserved, up to:
    reserved_max: int = 100_000
    # Python's switch interval while a scheduler runs (a process-wide setting, so the app's
    # choice, off by default): None leaves it alone. See scheduler/switch_interval.py.
    switch_interval: float | None = None

    @property
    def lease(self) -> timedelta:
        """How long a claim holds: a run's timeout and a margin."""
        return timedelta(seconds=self.run_timeout + 60)
