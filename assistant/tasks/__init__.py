"""Scheduled tasks: the schedule language, the task store and the scheduler that fires them."""

from assistant.tasks.delivery import Delivery, Executor, Notice, Outbox, ReminderExecutor
from assistant.tasks.oneshot import parse_once
from assistant.tasks.reading import Parsed
from assistant.tasks.recurring import parse_recurring
from assistant.tasks.runs import Firing
from assistant.tasks.schedule import Cron, Interval, Once, Schedule, next_after
from assistant.tasks.scheduler import Scheduler
from assistant.tasks.settings import SchedulerSettings
from assistant.tasks.store import TaskStore
from assistant.tasks.task import NewTask, Owner, Run, Task, TaskKind

__all__ = [
    "Cron",
    "Delivery",
    "Executor",
    "Firing",
    "Interval",
    "NewTask",
    "Notice",
    "Once",
    "Outbox",
    "Owner",
    "Parsed",
    "ReminderExecutor",
    "Run",
    "Schedule",
    "Scheduler",
    "SchedulerSettings",
    "Task",
    "TaskKind",
    "TaskStore",
    "next_after",
    "parse_once",
    "parse_recurring",
]
