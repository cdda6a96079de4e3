"""Scheduled tasks and their runs: the values, their rows and the store that keeps them."""

from assistant.tasks.runs import Firing
from assistant.tasks.store import TaskStore
from assistant.tasks.task import NewTask, Owner, Run, Task, TaskKind

__all__ = ["Firing", "NewTask", "Owner", "Run", "Task", "TaskKind", "TaskStore"]
