"""The tools the assistant ships with."""

from __future__ import annotations

from assistant.tools.builtin.clock import get_current_time
from assistant.tools.builtin.code import execute_code
from assistant.tools.builtin.finding import find_tools
from assistant.tools.builtin.images import generate_image
from assistant.tools.builtin.memory import delete_note, list_notes, save_note, search_memory
from assistant.tools.builtin.system import system_stats
from assistant.tools.builtin.tasks import (
    add_recurring_task,
    add_reminder,
    cancel_task,
    edit_task,
    list_tasks,
    pause_task,
    resume_task,
)
from assistant.tools.builtin.web import api_call, fetch_url, search_web
from assistant.tools.tool import Tool

OPTIONAL = ("generate_image", "execute_code")  # built in, but only when the config enables them


def builtin_tools(*, code: bool = False, images: bool = False) -> list[Tool]:
    """The built-in tools in catalogue order; running code and drawing only when enabled."""
    return [
        get_current_time,
        add_reminder,
        add_recurring_task,
        list_tasks,
        cancel_task,
        pause_task,
        resume_task,
        edit_task,
        save_note,
        search_memory,
        list_notes,
        delete_note,
        search_web,
        fetch_url,
        api_call,
        system_stats,
        find_tools,
        *([generate_image] if images else []),
        *([execute_code] if code else []),
    ]
