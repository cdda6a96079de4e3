"""The engine that fires stored tasks on time: claims, read-ahead, hand-off, attempts, retries,
misfires, recovery after a crash, and delivery through the channel."""

from assistant.scheduler.delivery import Delivery, Executor, Notice, Outbox, ReminderExecutor
from assistant.scheduler.engine import Scheduler
from assistant.scheduler.settings import SchedulerSettings

__all__ = [
    "Delivery",
    "Executor",
    "Notice",
    "Outbox",
    "ReminderExecutor",
    "Scheduler",
    "SchedulerSettings",
]
