"""What the assistant says of itself: the greeting at /start, /help, and the command menu."""

from __future__ import annotations

from assistant.locales import ENGLISH, tr


def menu(language: str = ENGLISH) -> dict[str, str]:
    """The commands and what each does, in ``language``."""
    return {
        "start": tr(language, "say hello and set things up"),
        "help": tr(language, "what I can do"),
        "tasks": tr(language, "your reminders and tasks, with buttons"),
        "remind": tr(language, "/remind <when> <text>: a reminder"),
        "every": tr(language, "/every <schedule> <text>: a recurring reminder"),
        "edit": tr(language, "/edit <id> <when and/or text>: change a task"),
        "cancel": tr(language, "/cancel <id>: cancel a task"),
        "notes": tr(language, "your latest notes"),
        "note": tr(language, "/note <text>: save a note"),
        "search": tr(language, "/search <words>: search notes and past chats"),
        "tz": tr(language, "/tz <city, Area/City or UTC+3>: set your timezone"),
        "lang": tr(language, "/lang en|ru: the language I answer you in"),
        "clear": tr(language, "start the conversation afresh (notes and tasks stay)"),
        "stop": tr(language, "stop what I am doing"),
        "audit": tr(language, "the tools I used lately"),
        "export": tr(language, "your notes, tasks and conversations as files"),
        "usage": tr(language, "what the model cost: today, this month and 30 days"),
    }


def hello(name: str, language: str) -> str:
    """The greeting at /start: who it is and where the commands are."""
    greeting = tr(language, "Hello, {name}!", name=name) if name else tr(language, "Hello!")
    about = tr(
        language,
        "I keep your reminders and tasks, notes, and answer questions with my "
        "tools. /help shows the commands.",
    )
    return f"{greeting} {about}"


def which_zone(language: str) -> str:
    """The question of a new person's time zone, under the greeting."""
    return tr(
        language,
        "Which time zone are you in? Press yours, share your location, or send a city: /tz Berlin.",
    )


def help_text(language: str) -> str:
    """Every command with what it does, and an everyday example."""
    lines = [f"/{name} — {about}" for name, about in menu(language).items()]
    example = tr(language, "remind me in 20 minutes to take the pizza out")
    lines.append("\n" + tr(language, "Or just write: “{example}”.", example=example))
    return "\n".join(lines)
